import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import Testing

/// The emulator's Apple-like and Google-like OpenID Connect issuers, checked with MendLogin's own discovery, PKCE
/// login and id_token validation, and on the wire.
@Suite("Emulated OIDC issuers (Apple, Google)")
struct EmulatedIssuerTests {
    static let googleIOS = "mend-ios.apps.googleusercontent.com"
    static let googleWeb = "mend-web.apps.googleusercontent.com"
    static let appleWeb = "com.example.mend.web"
    static let appleNative = "com.example.mend"

    /// One request to the emulator in-process, as a client at its base URL would send it.
    static func send(
        _ emulator: RunningEmulator, _ method: HTTPRequest.Method, _ target: String, form: [(String, String)]? = nil
    ) async -> EmulatorResponse {
        var headers = HTTPFields()
        var body = Data()
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = Data(form.map { "\($0.0)=\(escape($0.1))" }.joined(separator: "&").utf8)
        }
        return await emulator.emulator.handle(
            EmulatorRequest(
                method: method, target: target, headers: headers, body: body,
                baseURL: emulator.baseURL.absoluteString))
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func query(_ location: String) -> [String: String] {
        let components = URLComponents(string: location.replacingOccurrences(of: "#", with: "?"))
        return Dictionary(
            (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// An Apple client secret: an ES256 JWT signed with the team key the emulator hands out.
    static func appleClientSecret(
        _ emulator: RunningEmulator, clientID: String = appleWeb, keyID: String = "MENDKEY001",
        teamID: String = "MENDTEAM01", audience: String? = nil, lifetime: Int = 3600,
        key: P256.Signing.PrivateKey? = nil, header rawHeader: String? = nil,
        claims rawClaims: ((_ now: Int, _ audience: String) -> String)? = nil
    ) async throws -> String {
        let teamKey = try P256.Signing.PrivateKey(pemRepresentation: await emulator.emulator.appleTeamKeyPEM())
        let now = Int(await emulator.emulator.now().timeIntervalSince1970)
        func encode(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let header = encode(rawHeader ?? #"{"alg":"ES256","kid":"\#(keyID)"}"#)
        let aud = audience ?? emulator.baseURL.absoluteString + "/apple"
        let claims = encode(
            rawClaims?(now, aud)
                ?? #"{"iss":"\#(teamID)","iat":\#(now),"exp":\#(now + lifetime),"aud":"\#(aud)","sub":"\#(clientID)"}"#)
        let signature = try (key ?? teamKey).signature(for: Data("\(header).\(claims)".utf8))
        return "\(header).\(claims)." + base64URL(signature.rawRepresentation)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("Google: discovery, a PKCE login of a public client through MendLogin, its id_token validated")
    func googleLogin() async throws {
        try await withEmulator { emulator in
            let transport = AsyncHTTPClientTransport()
            let issuer = emulator.url("/google")
            let provider = try await LoginProvider.discover(
                issuer: issuer, clientID: Self.googleIOS, transport: transport)
            #expect(provider.issuer == issuer.absoluteString)
            #expect(provider.revocationEndpoint == emulator.url("/google/revoke"))
            let validator = IDTokenValidator(
                issuer: try #require(provider.issuer), clientID: Self.googleIOS,
                jwksURI: try #require(provider.jwksURI), transport: transport)
            let login = LoginManager(
                provider: provider,
                credentials: CredentialsManager(
                    store: InMemoryTokenStore(),
                    authority: provider.dialect.sessionAuthority(
                        for: provider, transport: transport, idTokenValidator: validator)),
                defaultScopes: ["openid", "email", "profile"])
            let result = try await login.logIn(presenter: presenter(.grantAll))
            let session = try #require(result.session)
            #expect(session.user?.email == "alice@example.com")
            #expect(session.user?.name == "Alice Example")
            #expect(session.user?.id.count == 21)
            #expect(session.idToken != nil)
            // The id_token's shapes: a boolean email_verified, hd for a Workspace domain, azp.
            let claims = try #require(Self.claims(session.idToken))
            #expect(claims["email_verified"] == .bool(true))
            #expect(claims["hd"] == .string("example.com"))
            #expect(claims["azp"] == .string(Self.googleIOS))
        }
    }

    @Test("A Google session: refreshed after expiry, checked at userinfo, ended by invalid_grant, revoked at logout")
    func googleSession() async throws {
        try await withEmulator { emulator in
            let transport = AsyncHTTPClientTransport()
            let clock = OffsetClock()
            var provider = try await LoginProvider.discover(
                issuer: emulator.url("/google"), clientID: Self.googleIOS, transport: transport)
            provider.authorizationParameters = ["access_type": "offline"]
            let validator = IDTokenValidator(
                issuer: try #require(provider.issuer), clientID: Self.googleIOS,
                jwksURI: try #require(provider.jwksURI), transport: transport, clock: clock.pipeline())
            let store = InMemoryTokenStore()
            let credentials = CredentialsManager(
                store: store,
                authority: OIDCSessionAuthority(
                    provider: provider, transport: transport, idTokenValidator: validator,
                    clock: clock.pipeline()),
                clock: clock.pipeline())
            let login = LoginManager(
                provider: provider, credentials: credentials, defaultScopes: ["openid", "email", "profile"])
            let first = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
            #expect(first.refreshToken != nil)
            // Past the access token's hour, on both clocks: the token is refreshed, not the user signed out.
            clock.advance(by: 4000)
            await emulator.advanceClock(by: 4000)
            let token = try await credentials.validToken()
            #expect(token.tokenString != first.accessToken.tokenString)
            #expect(try await credentials.checkValidity(force: true))
            let refreshed = try #require(try await credentials.currentSession())
            #expect(refreshed.user?.id == first.user?.id)
            #expect(refreshed.refreshToken == first.refreshToken)
            // Logout revokes the refresh token at Google; the emulator records it.
            let outcome = try await credentials.logout()
            #expect(outcome.revoked)
            let revocations = await emulator.emulator.revocations()
            #expect(revocations.map(\.tokenKind) == ["refresh"])
            #expect(revocations.first?.clientID == Self.googleIOS)

            // A second login whose refresh token the provider revokes behind the app's back: the next refresh gets
            // invalid_grant, which ends the session (session/16), and nothing else does.
            let second = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
            let revoked = await Self.send(
                emulator, .post, "/google/revoke", form: [("token", try #require(second.refreshToken))])
            #expect(revoked.status == .ok)
            try await emulator.inject(error: "http/503", path: "/google/token", times: 1)
            clock.advance(by: 4000)
            await emulator.advanceClock(by: 4000)
            let transient = await #expect(throws: MendError.self) { try await credentials.validToken() }
            #expect(transient?.category == .transient)
            #expect(try await credentials.currentSession() != nil, "a 503 never signs out")
            // The next refresh reaches the provider's invalid_grant. On a loaded machine the first refresh may have
            // failed before it reached the emulator (a transient error too), leaving the 503 for the next: every
            // failure before the end must be transient and keep the session.
            var ended: MendError?
            for _ in 0..<5 {
                ended = await #expect(throws: MendError.self) { try await credentials.validToken() }
                guard ended?.category == .transient else { break }
                #expect(try await credentials.currentSession() != nil, "a transient error never signs out")
            }
            #expect(ended?.code == .Session.refreshTokenUnknown)
            #expect(try await credentials.currentSession() == nil)
        }
    }

    static func claims(_ token: String?) -> JSONValue? {
        guard let token, case let parts = token.split(separator: "."), parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), case .success(let value) = JSONValue.parse(data) else { return nil }
        return value
    }

    @Test("Google: a public client needs PKCE; a web client's secret is checked; refresh with offline access")
    func googleTokenEndpoint() async throws {
        try await withEmulator(configuration: EmulatorConfiguration(autoConsent: .grantAll)) { emulator in
            let noPKCE = await Self.send(
                emulator, .get,
                "/google/o/oauth2/v2/auth?client_id=\(Self.googleIOS)&redirect_uri=http://127.0.0.1:4000/callback"
                    + "&response_type=code&scope=openid")
            #expect(noPKCE.status == .badRequest)
            // The web client: a secret, offline access, a loopback redirect on any port.
            let authorize = await Self.send(
                emulator, .get,
                "/google/o/oauth2/v2/auth?client_id=\(Self.googleWeb)&redirect_uri=http://127.0.0.1:4000/callback"
                    + "&response_type=code&scope=openid%20email&access_type=offline&state=s1&nonce=n1")
            let location = try #require(authorize.headers[.location])
            let code = try #require(Self.query(location)["code"])
            #expect(Self.query(location)["state"] == "s1")
            let form: [(String, String)] = [
                ("grant_type", "authorization_code"), ("code", code), ("client_id", Self.googleWeb),
                ("redirect_uri", "http://127.0.0.1:4000/callback"),
            ]
            let wrongSecret = await Self.send(emulator, .post, "/google/token", form: form + [("client_secret", "x")])
            #expect(wrongSecret.status == .unauthorized)
            #expect(wrongSecret.json?["error"] == .string("invalid_client"))
            let tokens = await Self.send(
                emulator, .post, "/google/token", form: form + [("client_secret", "google-web-secret")])
            #expect(tokens.status == .ok)
            let refresh = try #require(tokens.json?["refresh_token"]?.stringValue)
            #expect(Self.claims(tokens.json?["id_token"]?.stringValue)?["nonce"] == .string("n1"))
            // A replayed code is refused, and what it issued is revoked.
            let replay = await Self.send(
                emulator, .post, "/google/token", form: form + [("client_secret", "google-web-secret")])
            #expect(replay.json?["error"] == .string("invalid_grant"))
            let refreshed = await Self.send(
                emulator, .post, "/google/token",
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.googleWeb),
                    ("client_secret", "google-web-secret"),
                ])
            #expect(refreshed.json?["error"] == .string("invalid_grant"))
        }
    }

    @Test("Apple: form_post when names or e-mail are asked for; no loopback, IP or http redirect")
    func appleAuthorizationRules() async throws {
        try await withEmulator(configuration: EmulatorConfiguration(autoConsent: .grantAll)) { emulator in
            let base = "/apple/auth/authorize?client_id=\(Self.appleWeb)&response_type=code&state=s2&nonce=n2"
            let query = await Self.send(
                emulator, .get, base + "&redirect_uri=https://app.example/callback&scope=name%20email")
            #expect(query.status == .badRequest)
            #expect(String(decoding: query.body, as: UTF8.self).contains("form_post"))
            for redirect in ["http://127.0.0.1:4000/callback", "https://127.0.0.1/callback", "https://localhost/cb"] {
                let refused = await Self.send(emulator, .get, base + "&redirect_uri=\(redirect)")
                #expect(refused.status == .badRequest, "\(redirect)")
            }
            let posted = await Self.send(
                emulator, .get,
                base + "&redirect_uri=https://app.example/callback&scope=name%20email&response_mode=form_post")
            #expect(posted.status == .ok)
            let page = String(decoding: posted.body, as: UTF8.self)
            #expect(page.contains(#"action="https://app.example/callback""#))
            #expect(page.contains(#"name="code""#) && page.contains(#"name="state" value="s2""#))
            #expect(page.contains(#"name="user""#))
            // The name comes once: a second authorization has no user object.
            let again = await Self.send(
                emulator, .get,
                base + "&redirect_uri=https://app.example/callback&scope=name%20email&response_mode=form_post")
            #expect(!String(decoding: again.body, as: UTF8.self).contains(#"name="user""#))
        }
    }

    @Test(
        "Apple: a client secret breaking RFC 7515 or RFC 7519 is refused: crit, a member twice, padding, nbf ahead, times as strings"
    )
    func appleClientSecretStandards() async throws {
        try await withEmulator(configuration: EmulatorConfiguration(autoConsent: .grantAll)) { emulator in
            let client = Self.appleNative
            func claims(
                _ now: Int, _ aud: String, _ tail: String = "", iat: String? = nil, exp: String? = nil
            ) -> String {
                #"{"iss":"MENDTEAM01","iat":\#(iat ?? String(now)),"exp":\#(exp ?? String(now + 3600)),"aud":"\#(aud)","sub":"\#(client)"\#(tail)}"#
            }
            let accepted = try await Self.appleClientSecret(emulator, clientID: client, claims: { claims($0, $1) })
            let refused = [
                try await Self.appleClientSecret(
                    emulator, clientID: client,
                    header: #"{"alg":"ES256","kid":"MENDKEY001","crit":["urn:x"],"urn:x":1}"#),
                try await Self.appleClientSecret(
                    emulator, clientID: client, claims: { claims($0, $1, #","sub":"other""#) }),
                try await Self.appleClientSecret(
                    emulator, clientID: client, header: #"{"alg":"ES256","kid":"MENDKEY001","kid":"MENDKEY001"}"#),
                accepted + "==",
                try await Self.appleClientSecret(
                    emulator, clientID: client, claims: { claims($0, $1, #","nbf":\#($0 + 600)"#) }),
                try await Self.appleClientSecret(
                    emulator, clientID: client, claims: { claims($0, $1, iat: "\"\($0)\"") }),
                try await Self.appleClientSecret(
                    emulator, clientID: client, claims: { claims($0, $1, exp: "\"\($0 + 3600)\"") }),
            ]
            for (index, secret) in ([accepted] + refused).enumerated() {
                let code = try await Self.appleNativeCode(emulator, nonce: "n")
                let reply = await Self.send(
                    emulator, .post, "/apple/auth/token",
                    form: [
                        ("grant_type", "authorization_code"), ("code", code), ("client_id", client),
                        ("client_secret", secret),
                    ])
                if index == 0 {
                    #expect(reply.status == .ok, "the well-formed secret")
                } else {
                    #expect(reply.json?["error"] == .string("invalid_client"), "secret \(index) was accepted")
                }
            }
        }
    }

    /// An authorization code of a native Sign in with Apple (the emulator's control API), for `nonce`.
    static func appleNativeCode(_ emulator: RunningEmulator, nonce: String) async throws -> String {
        let answer = await emulator.emulator.handle(
            EmulatorRequest(
                method: .post, target: "/_emulator/issuers/apple/native",
                headers: [.contentType: "application/json"],
                body: Data(#"{"nonce":"\#(nonce)"}"#.utf8), baseURL: emulator.baseURL.absoluteString))
        return try #require(answer.json?["authorization_code"]?.stringValue)
    }

    @Test("Apple: the client secret is an ES256 JWT of the team's key; tokens, string booleans, revocation recorded")
    func appleTokens() async throws {
        try await withEmulator(configuration: EmulatorConfiguration(autoConsent: .grantAll)) { emulator in
            let native = try await Self.appleNativeCode(emulator, nonce: "abc123")
            let form: [(String, String)] = [
                ("grant_type", "authorization_code"), ("code", native), ("client_id", Self.appleNative),
            ]
            let forged = try await Self.appleClientSecret(
                emulator, clientID: Self.appleNative, key: P256.Signing.PrivateKey())
            let wrongAudience = try await Self.appleClientSecret(
                emulator, clientID: Self.appleNative, audience: "https://appleid.apple.com")
            let tooLong = try await Self.appleClientSecret(emulator, clientID: Self.appleNative, lifetime: 16_000_000)
            for secret in [forged, wrongAudience, tooLong, "not-a-jwt"] {
                let refused = await Self.send(
                    emulator, .post, "/apple/auth/token", form: form + [("client_secret", secret)])
                #expect(refused.status == .badRequest)
                #expect(refused.json?["error"] == .string("invalid_client"))
            }
            let secret = try await Self.appleClientSecret(emulator, clientID: Self.appleNative)
            let tokens = await Self.send(emulator, .post, "/apple/auth/token", form: form + [("client_secret", secret)])
            #expect(tokens.status == .ok, "\(String(decoding: tokens.body, as: UTF8.self))")
            let claims = try #require(Self.claims(tokens.json?["id_token"]?.stringValue))
            #expect(claims["email_verified"] == .string("true"))
            #expect(claims["is_private_email"] == .string("true"))
            #expect(claims["email"]?.stringValue?.hasSuffix("@privaterelay.appleid.com") == true)
            #expect(claims["nonce"] == .string("abc123"))
            let refresh = try #require(tokens.json?["refresh_token"]?.stringValue)
            let revoked = await Self.send(
                emulator, .post, "/apple/auth/revoke",
                form: [
                    ("client_id", Self.appleNative), ("client_secret", secret), ("token", refresh),
                    ("token_type_hint", "refresh_token"),
                ])
            #expect(revoked.status == .ok)
            let revocations = await emulator.emulator.revocations()
            #expect(revocations.map(\.issuer) == ["apple"])
            #expect(revocations.first?.tokenKind == "refresh")
            #expect(revocations.first?.userID == emulator.emulator.configuration.users[0].id)
            let afterRevoke = await Self.send(
                emulator, .post, "/apple/auth/token",
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.appleNative),
                    ("client_secret", secret),
                ])
            #expect(afterRevoke.json?["error"] == .string("invalid_grant"))
        }
    }

    @Test("Native id_tokens (Apple, Google, Limited Login) validate with MendLogin's validator; tampering fails")
    func nativeTokens() async throws {
        try await withEmulator { emulator in
            let transport = AsyncHTTPClientTransport()
            let rawNonce = "raw-nonce-0123456789"
            let hashed = SHA256.hash(data: Data(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined()
            let base = emulator.baseURL.absoluteString
            // Apple's SDK gets the hash and puts it in the token; Google's gets the nonce as it is.
            for (kind, clientID, jwks, sent, rule) in [
                (
                    "apple", Self.appleNative, "/apple/auth/keys", hashed,
                    IDTokenValidator.NonceRule.sha256Hex(ofRawNonce: rawNonce)
                ),
                ("google", Self.googleIOS, "/google/oauth2/v3/certs", rawNonce, .exact(rawNonce)),
            ] {
                let answer = await emulator.emulator.handle(
                    EmulatorRequest(
                        method: .post, target: "/_emulator/issuers/\(kind)/native",
                        headers: [.contentType: "application/json"], body: Data(#"{"nonce":"\#(sent)"}"#.utf8),
                        baseURL: base))
                let token = try #require(answer.json?["id_token"]?.stringValue)
                // The backend accepts the app's web and native clients.
                let validator = IDTokenValidator(
                    issuer: "\(base)/\(kind)", clientIDs: ["web.client.example", clientID],
                    jwksURI: emulator.url(jwks), transport: transport)
                let claims = try await validator.validate(token, nonceRule: rule)
                #expect(!claims.subject.isEmpty)
                #expect(claims.emailVerified == true, "\(kind): email_verified as a string or a boolean")
                #expect(claims.isPrivateEmail == (kind == "apple" ? true : nil))
                #expect(claims.hostedDomain == (kind == "google" ? "example.com" : nil))
                let other = IDTokenValidator(
                    issuer: "\(base)/\(kind)", clientIDs: ["another.client"], jwksURI: emulator.url(jwks),
                    transport: transport)
                await #expect(throws: MendError.self) { try await other.validate(token, nonceRule: rule) }
                let wrongIssuer = IDTokenValidator(
                    issuer: "\(base)/\(kind == "apple" ? "google" : "apple")", clientIDs: [clientID],
                    jwksURI: emulator.url(jwks), transport: transport)
                await #expect(throws: MendError.self) { try await wrongIssuer.validate(token, nonceRule: rule) }
                let wrongNonce: IDTokenValidator.NonceRule =
                    kind == "apple" ? .exact(rawNonce) : .sha256Hex(ofRawNonce: rawNonce)
                await #expect(throws: MendError.self) { try await validator.validate(token, nonceRule: wrongNonce) }
                await #expect(throws: MendError.self) {
                    try await validator.validate(token, nonceRule: .sha256Hex(ofRawNonce: "another raw nonce"))
                }
            }
            let limited = try await emulator.emulator.limitedLoginToken(
                appID: nil, userID: nil, nonce: hashed, baseURL: base)
            let facebook = IDTokenValidator(
                issuer: "https://www.facebook.com", clientID: emulator.emulator.configuration.defaultApp.id,
                jwksURI: emulator.url("/.well-known/oauth/openid/jwks/"), transport: transport)
            let claims = try await facebook.validate(limited, nonceRule: .sha256Hex(ofRawNonce: rawNonce))
            #expect(claims.subject == "100000000000001")
            await #expect(throws: MendError.self) { try await facebook.validate(limited, nonce: rawNonce) }
        }
    }

    @Test("Faults reach the issuers' paths through the control API")
    func faults() async throws {
        try await withEmulator { emulator in
            try await emulator.inject(error: "http/503", path: "/google/*", times: 1)
            let failed = await Self.send(emulator, .get, "/google/.well-known/openid-configuration")
            #expect(failed.status == .serviceUnavailable)
            let fine = await Self.send(emulator, .get, "/google/.well-known/openid-configuration")
            #expect(fine.status == .ok)
        }
    }
}
