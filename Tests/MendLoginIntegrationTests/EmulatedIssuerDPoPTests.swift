import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendHandMadeTokens
import MendLogin
import MendTesting
import Testing

/// MendLogin's DPoP path against a provider: the emulator's Google issuer with DPoP turned on, through
/// `OIDCSessionAuthority` — discovery, a bound login, userinfo and refresh with proofs, nonce challenges on command,
/// a provider clock that is off — and the issuer's refusals of proofs that are wrong.
@Suite("DPoP against an OIDC provider (the emulator's Google issuer)")
struct EmulatedIssuerDPoPTests {
    static let client = "mend-ios.apps.googleusercontent.com"

    /// A direct login stack at the emulator's Google issuer, on `clock`.
    struct Stack {
        let provider: LoginProvider
        let credentials: CredentialsManager
        let login: LoginManager
    }

    static func stack(
        _ emulator: RunningEmulator, clock: OffsetClock, binding: SessionBinding = .dpop
    ) async throws -> Stack {
        let transport = AsyncHTTPClientTransport()
        var provider = try await LoginProvider.discover(
            issuer: emulator.url("/google"), clientID: client, transport: transport)
        provider.authorizationParameters = ["access_type": "offline"]
        let validator = IDTokenValidator(
            issuer: try #require(provider.issuer), clientID: client, jwksURI: try #require(provider.jwksURI),
            transport: transport, clock: clock.pipeline())
        var authority = OIDCSessionAuthority(
            provider: provider, transport: transport, idTokenValidator: validator, clock: clock.pipeline())
        authority.binding = binding
        let credentials = CredentialsManager(
            store: InMemoryTokenStore(), authority: authority, clock: clock.pipeline())
        let login = LoginManager(
            provider: provider, credentials: credentials, defaultScopes: ["openid", "email", "profile"])
        return Stack(provider: provider, credentials: credentials, login: login)
    }

    /// One request to the emulator in-process.
    static func send(
        _ emulator: RunningEmulator, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:],
        form: [(String, String)]? = nil
    ) async -> EmulatorResponse {
        var fields = headers
        var body = Data()
        if let form {
            fields[.contentType] = "application/x-www-form-urlencoded"
            body = Data(FormEncoding.encode(form).utf8)
        }
        return await emulator.emulator.handle(
            EmulatorRequest(
                method: method, target: path, headers: fields, body: body, baseURL: emulator.baseURL.absoluteString))
    }

    static func proof(
        _ key: DPoPKey, _ method: String, _ url: URL, accessToken: String?, nonce: String? = nil
    ) async throws -> String {
        try await DPoPSessionProver(key: key).proof(
            method: method, url: url, accessToken: accessToken, nonce: nonce, issuedAt: Date())
    }

    static func requests(_ emulator: RunningEmulator, to path: String) async -> Int {
        await emulator.requestLog().filter { $0.path == path }.count
    }

    static func dpopEmulator() -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration()
        configuration.issuerDPoP = true
        return configuration
    }

    @Test("A bound Google session: discovery says DPoP, login, userinfo, refresh and logout prove the session's key")
    func boundSession() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let clock = OffsetClock()
            let stack = try await Self.stack(emulator, clock: clock)
            #expect(stack.provider.dpopSigningAlgorithms == ["ES256"])
            let first = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            let key = try #require(first.proofKey, "the provider bound the session: it keeps its key")
            #expect(try await stack.credentials.checkValidity(force: true))
            #expect(try await stack.credentials.currentCredential()?.description.contains("DPoP") == true)

            // Past the access token's hour, on both clocks: refreshed with a proof, still bound to the same key.
            clock.advance(by: 4000)
            await emulator.advanceClock(by: 4000)
            let token = try await stack.credentials.validToken()
            #expect(token.tokenString != first.accessToken.tokenString)
            let refreshed = try #require(try await stack.credentials.currentSession())
            #expect(refreshed.proofKey == key)
            #expect(try await stack.credentials.checkValidity(force: true))

            // The bound refresh token alone is refused: a copy of it is useless without the key.
            let copied = await Self.send(
                emulator, .post, "/google/token",
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", try #require(refreshed.refreshToken)),
                    ("client_id", Self.client),
                ])
            #expect(copied.status == .badRequest)
            #expect(String(decoding: copied.body, as: UTF8.self).contains("invalid_dpop_proof"))

            let outcome = try await stack.credentials.logout()
            #expect(outcome.revoked)
            #expect(await emulator.emulator.revocations().map(\.tokenKind) == ["refresh"])
        }
    }

    @Test(
        "The issuer refuses a bound token without a proof, as Bearer, with another key's, URL's or method's proof, or a replayed one"
    )
    func refusals() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock())
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            let key = try #require(session.proofKey)
            let access = session.accessToken.tokenString
            let userinfo = emulator.url("/google/v1/userinfo")
            let other = try DPoPSoftwareKeys().makeKey()

            func status(_ authorization: String, proof: String?) async -> (HTTPResponse.Status, String?) {
                var headers: HTTPFields = [.authorization: authorization]
                if let proof { headers[HTTPField.Name("DPoP")!] = proof }
                let answer = await Self.send(emulator, .get, "/google/v1/userinfo", headers: headers)
                return (answer.status, answer.headers[.wwwAuthenticate])
            }
            let good = try await Self.proof(key, "GET", userinfo, accessToken: access)
            let cases: [(String, String, String?)] = [
                ("as Bearer", "Bearer \(access)", nil),
                (
                    "as Bearer with a proof", "Bearer \(access)",
                    try await Self.proof(key, "GET", userinfo, accessToken: access)
                ),
                ("without a proof", "DPoP \(access)", nil),
                (
                    "another key's proof", "DPoP \(access)",
                    try await Self.proof(other, "GET", userinfo, accessToken: access)
                ),
                (
                    "another URL's", "DPoP \(access)",
                    try await Self.proof(key, "GET", emulator.url("/google/token"), accessToken: access)
                ),
                (
                    "another method's", "DPoP \(access)",
                    try await Self.proof(key, "POST", userinfo, accessToken: access)
                ),
                (
                    "another token's", "DPoP \(access)",
                    try await Self.proof(key, "GET", userinfo, accessToken: access + "x")
                ),
                (
                    "a token endpoint's (no ath)", "DPoP \(access)",
                    try await Self.proof(key, "GET", userinfo, accessToken: nil)
                ),
            ]
            for (what, authorization, proof) in cases {
                let (code, challenge) = await status(authorization, proof: proof)
                #expect(code == .unauthorized, "\(what)")
                #expect(
                    challenge?.contains(#"DPoP error="invalid_dpop_proof""#) == true, "\(what): \(challenge ?? "-")")
            }
            // The right proof passes once; the same proof again is a replay.
            #expect(await status("DPoP \(access)", proof: good).0 == .ok)
            let replayed = await status("DPoP \(access)", proof: good)
            #expect(replayed.0 == .unauthorized)
            #expect(replayed.1?.contains("used before") == true)
            // The token endpoint refuses a proof that does not verify (another URL), before it spends the refresh token.
            let refresh = try #require(session.refreshToken)
            let wrong = await Self.send(
                emulator, .post, "/google/token",
                headers: [HTTPField.Name("DPoP")!: try await Self.proof(key, "POST", userinfo, accessToken: nil)],
                form: [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.client)])
            #expect(wrong.status == .badRequest)
            #expect(String(decoding: wrong.body, as: UTF8.self).contains("invalid_dpop_proof"))
            #expect(try await stack.credentials.refresh().proofKey == key, "the refresh token was not spent")
        }
    }

    @Test("The issuer refuses a proof built by hand with crit, or with = padding, and accepts it without")
    func criticalAndPadding() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock())
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            let key = try P256.Signing.PrivateKey(rawRepresentation: try #require(session.proofKey).material)
            let access = session.accessToken.tokenString
            func proof(extraHeader: String = "", padded: Bool = false) throws -> String {
                let header =
                    #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(HandMadeJWS.jwk(of: key.publicKey))\#(extraHeader)}"#
                let ath = Base64URL.encode(Array(SHA256.hash(data: Data(access.utf8))))
                let claims =
                    #"{"jti":"\#(UUID().uuidString)","htm":"GET","htu":"\#(emulator.url("/google/v1/userinfo").absoluteString)","iat":\#(Int(Date().timeIntervalSince1970)),"ath":"\#(ath)"}"#
                return try HandMadeJWS.es256(header: header, claims: claims, key: key) + (padded ? "==" : "")
            }
            func status(_ proof: String) async -> HTTPResponse.Status {
                await Self.send(
                    emulator, .get, "/google/v1/userinfo",
                    headers: [.authorization: "DPoP \(access)", HTTPField.Name("DPoP")!: proof]
                ).status
            }
            #expect(await status(try proof()) == .ok)
            #expect(await status(try proof(extraHeader: #","crit":["urn:x"],"urn:x":1"#)) == .unauthorized)
            #expect(await status(try proof(padded: true)) == .unauthorized)
        }
    }

    @Test("Nonce challenges on command cost one request each; a provider clock an hour off is asked for a nonce once")
    func nonces() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let clock = OffsetClock()
            let stack = try await Self.stack(emulator, clock: clock)
            await emulator.emulator.setIssuerDPoP(requireNonce: true)
            await emulator.emulator.clearRequestLog()
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            #expect(session.proofKey != nil)
            #expect(await Self.requests(emulator, to: "/google/token") == 2, "the challenge, then the login")
            // The nonce is known now: a check costs one request, until the nonce rotates.
            #expect(try await stack.credentials.checkValidity(force: true))
            #expect(await Self.requests(emulator, to: "/google/v1/userinfo") == 1)
            await emulator.emulator.setIssuerDPoP(rotateNonce: true)
            #expect(try await stack.credentials.checkValidity(force: true))
            #expect(await Self.requests(emulator, to: "/google/v1/userinfo") == 3, "one challenge, one retry")
            _ = try await stack.credentials.refresh()
            #expect(await Self.requests(emulator, to: "/google/token") == 3, "the rotated nonce came with the answer")

            // Nonces no longer required, the provider's clock an hour ahead: the proof's iat is outside its window,
            // the provider asks for a nonce (its own timestamp of the proof), and the retry passes.
            await emulator.emulator.setIssuerDPoP(requireNonce: false, rotateNonce: true)
            await emulator.advanceClock(by: 3600)
            _ = try await stack.credentials.refresh()
            #expect(await Self.requests(emulator, to: "/google/token") == 5)
            #expect(try await stack.credentials.currentSession() != nil)
        }
    }

    @Test(
        "One nonce book per session authority: the app's API client uses the nonce the login was given; another stack's login is challenged again"
    )
    func nonceBookPerSession() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let clock = OffsetClock()
            await emulator.emulator.setIssuerDPoP(requireNonce: true)
            let first = try await Self.stack(emulator, clock: clock)
            await emulator.emulator.clearRequestLog()
            _ = try #require(try await first.login.logIn(presenter: presenter(.grantAll)).session)
            #expect(await Self.requests(emulator, to: "/google/token") == 2, "the challenge, then the login")
            // The app's own client, served by the same credentials manager, knows the nonce: one request.
            let api = APIClient(
                transport: AsyncHTTPClientTransport(), steps: .standard(credentialProvider: first.credentials))
            _ = try await api.send(APIRequest(method: .get, url: try #require(first.provider.userinfoEndpoint)))
            #expect(await Self.requests(emulator, to: "/google/v1/userinfo") == 1)
            // Another stack (another authority, another manager) has a book of its own: its login is challenged.
            let second = try await Self.stack(emulator, clock: clock)
            _ = try #require(try await second.login.logIn(presenter: presenter(.grantAll)).session)
            #expect(await Self.requests(emulator, to: "/google/token") == 4, "a challenge again, then the login")
        }
    }

    @Test(
        "DPoP turned off at the issuer: a bound session's tokens are taken as bearer ones, at userinfo and refresh alike"
    )
    func turnedOff() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock())
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            #expect(session.proofKey != nil)
            _ = await emulator.emulator.setIssuerDPoP(enabled: false)
            let userinfo = await Self.send(
                emulator, .get, "/google/v1/userinfo",
                headers: [.authorization: "Bearer \(session.accessToken.tokenString)"])
            #expect(userinfo.status == .ok)
            let refreshed = await Self.send(
                emulator, .post, "/google/token",
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", try #require(session.refreshToken)),
                    ("client_id", Self.client),
                ])
            #expect(refreshed.status == .ok, "\(String(decoding: refreshed.body, as: UTF8.self))")
            #expect(String(decoding: refreshed.body, as: UTF8.self).contains(#""token_type":"Bearer""#))
        }
    }

    @Test("A bound login names its key in the authorization request (dpop_jkt): the code is bound to the session's key")
    func loginSendsDPoPJKT() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock())
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            let key = try #require(session.proofKey)
            let authorizations = await emulator.requestLog().filter { $0.path == "/google/o/oauth2/v2/auth" }
            #expect(authorizations.count == 1)
            #expect(authorizations.first?.query.contains("dpop_jkt=\(key.thumbprint)") == true)
        }
        // Opted out: no key, no dpop_jkt.
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock(), binding: .bearer)
            #expect(try await stack.login.logIn(presenter: presenter(.grantAll)).session?.proofKey == nil)
            let authorizations = await emulator.requestLog().filter { $0.path == "/google/o/oauth2/v2/auth" }
            #expect(authorizations.count == 1)
            #expect(authorizations.first?.query.contains("dpop_jkt") == false)
        }
    }

    /// A code from the Google issuer's authorization endpoint for its web client (a secret, no PKCE needed), with
    /// `dpop_jkt` when given; or the endpoint's refusal.
    static func authorize(
        _ emulator: RunningEmulator, dpopJKT: String?
    ) async -> EmulatorResponse {
        var target =
            "/google/o/oauth2/v2/auth?client_id=\(EmulatedIssuerTests.googleWeb)"
            + "&redirect_uri=http://127.0.0.1:4000/callback&response_type=code&scope=openid&state=s1"
        if let dpopJKT { target += "&dpop_jkt=" + EmulatedIssuerTests.escape(dpopJKT) }
        return await Self.send(emulator, .get, target)
    }

    /// The web client's token request redeeming `code`, with `proof` as its `DPoP` header when given.
    static func redeem(_ emulator: RunningEmulator, _ code: String, proof: String?) async -> EmulatorResponse {
        await Self.send(
            emulator, .post, "/google/token", headers: proof.map { [HTTPField.Name("DPoP")!: $0] } ?? [:],
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("client_id", EmulatedIssuerTests.googleWeb),
                ("client_secret", "google-web-secret"), ("redirect_uri", "http://127.0.0.1:4000/callback"),
            ])
    }

    @Test(
        "dpop_jkt binds the code to a key: redeemed with another key's proof or none it is refused (and not spent); a malformed one is refused"
    )
    func authorizationCodeBinding() async throws {
        var configuration = Self.dpopEmulator()
        configuration.autoConsent = .grantAll
        try await withEmulator(configuration: configuration) { emulator in
            let token = emulator.url("/google/token")
            let keyA = try DPoPSoftwareKeys().makeKey()
            let keyB = try DPoPSoftwareKeys().makeKey()
            let authorized = await Self.authorize(emulator, dpopJKT: keyA.thumbprint)
            let authorizedLocation = try #require(authorized.headers[.location])
            let code = try #require(EmulatedIssuerTests.query(authorizedLocation)["code"])

            // Bound to key A, redeemed with a proof of key B: refused, as the issuer's other proof refusals are.
            let other = await Self.redeem(
                emulator, code, proof: try await Self.proof(keyB, "POST", token, accessToken: nil))
            #expect(other.status == .badRequest)
            #expect(other.json?["error"] == .string("invalid_dpop_proof"))
            // Without a proof at all: refused the same way.
            let none = await Self.redeem(emulator, code, proof: nil)
            #expect(none.status == .badRequest)
            #expect(none.json?["error"] == .string("invalid_dpop_proof"))
            // With a proof of key A: the code was not spent by the refusals, and the tokens are bound to A.
            let right = await Self.redeem(
                emulator, code, proof: try await Self.proof(keyA, "POST", token, accessToken: nil))
            #expect(right.status == .ok, "\(String(decoding: right.body, as: UTF8.self))")
            #expect(right.json?["token_type"] == .string("DPoP"))

            // A value that is not an RFC 7638 SHA-256 thumbprint (43 base64url characters) is refused at once.
            for malformed in ["", "not a thumbprint", String(keyA.thumbprint.dropLast()), keyA.thumbprint + "="] {
                let refused = await Self.authorize(emulator, dpopJKT: malformed)
                #expect(refused.status == .badRequest, "\(malformed)")
                #expect(refused.headers[.location] == nil, "\(malformed)")
                #expect(String(decoding: refused.body, as: UTF8.self).contains("dpop_jkt"), "\(malformed)")
            }
            // A code asked for without dpop_jkt takes any key's proof, or none.
            let free = await Self.authorize(emulator, dpopJKT: nil)
            let freeLocation = try #require(free.headers[.location])
            let freeCode = try #require(EmulatedIssuerTests.query(freeLocation)["code"])
            let unbound = await Self.redeem(
                emulator, freeCode, proof: try await Self.proof(keyB, "POST", token, accessToken: nil))
            #expect(unbound.json?["token_type"] == .string("DPoP"))
        }
    }

    /// A device code from the Google issuer's device authorization endpoint (RFC 8628), approved at once.
    static func approvedDeviceCode(_ emulator: RunningEmulator) async throws -> String {
        let started = await Self.send(
            emulator, .post, "/google/device/code", form: [("client_id", Self.client), ("scope", "openid email")])
        let userCode = try #require(started.json?["user_code"]?.stringValue)
        try await emulator.emulator.answerDeviceLogin(userCode: userCode, approve: true)
        return try #require(started.json?["device_code"]?.stringValue)
    }

    /// The device-code grant's token request for `deviceCode`, with `proof` as its `DPoP` header when given.
    static func pollDevice(_ emulator: RunningEmulator, _ deviceCode: String, proof: String?) async -> EmulatorResponse
    {
        await Self.send(
            emulator, .post, "/google/token", headers: proof.map { [HTTPField.Name("DPoP")!: $0] } ?? [:],
            form: [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                ("client_id", Self.client),
            ])
    }

    @Test("The device grant (RFC 8628) is bound to the key its token request proves, nonces included; bearer without")
    func deviceGrantBound() async throws {
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let token = emulator.url("/google/token")
            let key = try DPoPSoftwareKeys().makeKey()
            let bound = await Self.pollDevice(
                emulator, try await Self.approvedDeviceCode(emulator),
                proof: try await Self.proof(key, "POST", token, accessToken: nil))
            #expect(bound.status == .ok, "\(String(decoding: bound.body, as: UTF8.self))")
            #expect(bound.json?["token_type"] == .string("DPoP"))
            let access = try #require(bound.json?["access_token"]?.stringValue)
            let refresh = try #require(bound.json?["refresh_token"]?.stringValue)
            // The access token is bound: as Bearer it is refused, as DPoP with a proof of the key it passes.
            let userinfo = emulator.url("/google/v1/userinfo")
            let asBearer = await Self.send(
                emulator, .get, "/google/v1/userinfo", headers: [.authorization: "Bearer \(access)"])
            #expect(asBearer.status == .unauthorized)
            let proved = await Self.send(
                emulator, .get, "/google/v1/userinfo",
                headers: [
                    .authorization: "DPoP \(access)",
                    HTTPField.Name("DPoP")!: try await Self.proof(key, "GET", userinfo, accessToken: access),
                ])
            #expect(proved.status == .ok)
            // The public client's refresh token is bound too: without a proof of the key it is refused.
            let copied = await Self.send(
                emulator, .post, "/google/token",
                form: [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.client)])
            #expect(copied.json?["error"] == .string("invalid_dpop_proof"))

            // Without a proof: a bearer token, as before.
            let bearer = await Self.pollDevice(emulator, try await Self.approvedDeviceCode(emulator), proof: nil)
            #expect(bearer.status == .ok)
            #expect(bearer.json?["token_type"] == .string("Bearer"))

            // Nonces required: the proof without one is challenged (400, use_dpop_nonce, the nonce), the device code
            // is not spent, and the retry with the nonce is bound.
            await emulator.emulator.setIssuerDPoP(requireNonce: true)
            let deviceCode = try await Self.approvedDeviceCode(emulator)
            let challenged = await Self.pollDevice(
                emulator, deviceCode, proof: try await Self.proof(key, "POST", token, accessToken: nil))
            #expect(challenged.status == .badRequest)
            #expect(challenged.json?["error"] == .string("use_dpop_nonce"))
            let nonce = try #require(challenged.headers[HTTPField.Name("DPoP-Nonce")!])
            let retried = await Self.pollDevice(
                emulator, deviceCode, proof: try await Self.proof(key, "POST", token, accessToken: nil, nonce: nonce))
            #expect(retried.status == .ok, "\(String(decoding: retried.body, as: UTF8.self))")
            #expect(retried.json?["token_type"] == .string("DPoP"))
        }
    }

    @Test("Bearer sessions: a provider that does not speak DPoP, or an app that opts out")
    func bearer() async throws {
        try await withEmulator { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock())
            #expect(stack.provider.dpopSigningAlgorithms.isEmpty)
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            #expect(session.proofKey == nil)
            #expect(try await stack.credentials.checkValidity(force: true))
        }
        try await withEmulator(configuration: Self.dpopEmulator()) { emulator in
            let stack = try await Self.stack(emulator, clock: OffsetClock(), binding: .bearer)
            let session = try #require(try await stack.login.logIn(presenter: presenter(.grantAll)).session)
            #expect(session.proofKey == nil)
            #expect(try await stack.credentials.checkValidity(force: true))
            _ = try await stack.credentials.refresh()
        }
    }
}
