import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import Testing
import _CryptoExtras

/// The login dialog, the consent page, the token endpoints and debug_token.
struct LoginFlowTests {
    static let redirect = "http://127.0.0.1:5555/callback"

    func exchange(_ client: Client, code: String, extra: [(String, String)]) async throws -> Reply {
        try await client.get(
            "\(v)/oauth/access_token?"
                + Form.encode([("client_id", appID), ("code", code), ("redirect_uri", Self.redirect)] + extra))
    }

    @Test(arguments: Mode.allCases)
    func consentPageGrantsSomePermissionsAndTheCodeExchangeWorks(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, _ in
            let query = Form.encode([
                ("client_id", appID), ("redirect_uri", Self.redirect), ("response_type", "code granted_scopes"),
                ("scope", "email,user_friends"), ("state", "xyz"),
            ])
            let page = try await client.get("\(v)/dialog/oauth?\(query)")
            #expect(page.status == 200)
            #expect(page.header("content-type")?.hasPrefix("text/html") == true)
            #expect(page.text.contains("Alice Example"))
            #expect(page.text.contains("<form id=\"consent-form\" method=\"post\""))
            #expect(page.text.contains("name=\"scope_email\""))
            #expect(page.text.contains("id=\"continue\"") && page.text.contains("id=\"cancel\""))

            let location = try await client.login(scope: "email,user_friends", state: "xyz", grant: ["email"])
            #expect(location.hasPrefix(Self.redirect + "?"))
            #expect(location.hasSuffix("#_=_"))
            let answer = Redirect.query(location)
            #expect(answer["state"] == "xyz")
            #expect(answer["granted_scopes"] == "public_profile,email")
            #expect(answer["denied_scopes"] == "user_friends")
            let code = try #require(answer["code"])

            let reply = try await exchange(client, code: code, extra: [("client_secret", appSecret)])
            #expect(reply.status == 200)
            let token = try #require(reply.json?["access_token"]?.stringValue)
            #expect(token.hasPrefix("EAA"))
            #expect(reply.json?["token_type"]?.stringValue == "bearer")
            #expect(reply.json?["expires_in"]?.intValue == 7200)

            let permissions = try await client.get("\(v)/me/permissions?access_token=\(token)")
            let list = try #require(permissions.json?["data"]?.arrayValue)
            #expect(list.contains(.object(["permission": .string("email"), "status": .string("granted")])))
            #expect(list.contains(.object(["permission": .string("user_friends"), "status": .string("declined")])))
        }
    }

    @Test func cancelRedirectsWithAccessDenied() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let query = Form.encode([("client_id", appID), ("redirect_uri", Self.redirect), ("state", "s1")])
            let page = try await client.get("\(v)/dialog/oauth?\(query)")
            let id = try #require(ConsentForm.value(of: "dialog_id", in: page.text))
            let answer = try await client.post(
                "\(v)/dialog/oauth/confirm", form: [("dialog_id", id), ("decision", "cancel")])
            #expect(answer.status == 302)
            let params = Redirect.query(try #require(answer.header("location")))
            #expect(params["error"] == "access_denied")
            #expect(params["error_reason"] == "user_denied")
            #expect(params["error_description"] != nil)
            #expect(params["state"] == "s1")
            // The dialog is single-use.
            let again = try await client.post("\(v)/dialog/oauth/confirm", form: [("dialog_id", id)])
            #expect(again.status == 400)
        }
    }

    @Test(arguments: [
        ([("client_id", "999")], "Invalid App ID"),
        ([("client_id", appID), ("redirect_uri", "https://evil.example/callback")], "URL Blocked"),
        ([("client_id", appID)], "URL Blocked"),
        ([("client_id", appID), ("redirect_uri", redirect), ("response_type", "banana")], "Invalid response_type"),
        ([("client_id", appID), ("redirect_uri", redirect), ("scope", "email,nonsense")], "Invalid Scopes"),
        (
            [
                ("client_id", appID), ("redirect_uri", redirect), ("code_challenge", PKCE().challenge),
                ("code_challenge_method", "plain"),
            ], "Invalid PKCE parameters"
        ),
        ([("client_id", appID), ("redirect_uri", redirect), ("code_challenge", "short")], "Invalid PKCE parameters"),
    ])
    func invalidDialogRequestsShowAnErrorPageAndNeverRedirect(query: [(String, String)], title: String) async throws {
        try await withEmulatorClient(.router) { client, _ in
            let reply = try await client.get("\(v)/dialog/oauth?\(Form.encode(query))")
            #expect(reply.status == 400)
            #expect(reply.header("location") == nil)
            #expect(reply.text.contains(title))
        }
    }

    @Test func loopbackRedirectsMayUseAnyPortButOtherURIsMustMatchExactly() {
        let registered = EmulatedApp.default.redirectURIs
        #expect(RedirectURIMatcherProbe.allowed("http://127.0.0.1:61234/callback", registered))
        #expect(RedirectURIMatcherProbe.allowed("http://localhost:8080/callback", registered))
        #expect(!RedirectURIMatcherProbe.allowed("http://127.0.0.1:61234/other", registered))
        #expect(!RedirectURIMatcherProbe.allowed("https://app.example:8443/callback", registered))
        #expect(RedirectURIMatcherProbe.allowed("https://app.example/callback", registered))
        #expect(!RedirectURIMatcherProbe.allowed("https://app.example/callback/", registered))
    }

    @Test func pkceExchangeNeedsTheRightVerifier() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let pkce = PKCE()
            let extra = [("code_challenge", pkce.challenge), ("code_challenge_method", "S256")]
            let code1 = try #require(Redirect.query(try await client.login(extra: extra))["code"])
            let wrong = try await exchange(
                client, code: code1, extra: [("code_verifier", "wrong-verifier-" + String(repeating: "x", count: 40))])
            #expect(wrong.status == 400)
            #expect(wrong.json?["error"]?["code"]?.intValue == 100)
            #expect(wrong.json?["error"]?["type"]?.stringValue == "OAuthException")
            #expect(wrong.json?["error"]?["fbtrace_id"]?.stringValue != nil)

            let code2 = try #require(Redirect.query(try await client.login(extra: extra))["code"])
            let missing = try await exchange(client, code: code2, extra: [("client_secret", appSecret)])
            #expect(missing.status == 400)
            let right = try await exchange(client, code: code2, extra: [("code_verifier", pkce.verifier)])
            #expect(right.status == 200)
            #expect(right.json?["access_token"]?.stringValue?.hasPrefix("EAA") == true)
        }
    }

    @Test func aReusedCodeFailsAndRevokesTheTokenItIssued() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let code = try #require(Redirect.query(try await client.login())["code"])
            let first = try await exchange(client, code: code, extra: [("client_secret", appSecret)])
            let token = try #require(first.json?["access_token"]?.stringValue)
            #expect(try await client.get("\(v)/me?access_token=\(token)").status == 200)
            let second = try await exchange(client, code: code, extra: [("client_secret", appSecret)])
            #expect(second.status == 400)
            #expect(second.json?["error"]?["code"]?.intValue == 100)
            #expect(second.json?["error"]?["error_subcode"]?.intValue == 36009)
            #expect(second.json?["error"]?["message"]?.stringValue == "This authorization code has been used.")
            let after = try await client.get("\(v)/me?access_token=\(token)")
            #expect(after.json?["error"]?["code"]?.intValue == 190)
            #expect(after.json?["error"]?["error_subcode"]?.intValue == 467)
        }
    }

    @Test func expiredCodesWrongRedirectsAndWrongSecretsFail() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let code = try #require(Redirect.query(try await client.login())["code"])
            let badSecret = try await exchange(client, code: code, extra: [("client_secret", "nope")])
            // Facebook answers a wrong secret with code 1 and HTTP 400 (the client's mistake, not an outage).
            #expect(badSecret.status == 400)
            #expect(badSecret.json?["error"]?["code"]?.intValue == 1)
            #expect(badSecret.json?["error"]?["type"]?.stringValue == "OAuthException")
            #expect(badSecret.json?["error"]?["is_transient"]?.boolValue == false)
            #expect(badSecret.json?["error"]?["message"]?.stringValue == "Error validating client secret.")
            let badRedirect = try await client.get(
                "\(v)/oauth/access_token?"
                    + Form.encode([
                        ("client_id", appID), ("code", code), ("client_secret", appSecret),
                        ("redirect_uri", "http://127.0.0.1:5555/other"),
                    ]))
            #expect(badRedirect.json?["error"]?["error_subcode"]?.intValue == 36008)
            await emulator.advanceClock(by: 601)
            let expired = try await exchange(client, code: code, extra: [("client_secret", appSecret)])
            #expect(expired.json?["error"]?["error_subcode"]?.intValue == 36007)
            #expect(expired.json?["error"]?["message"]?.stringValue == "This authorization code has expired.")
            let unknownApp = try await client.get("\(v)/oauth/access_token?client_id=42&code=x")
            #expect(unknownApp.json?["error"]?["code"]?.intValue == 101)
        }
    }

    @Test func tokenResponseTypePutsTheTokenInTheFragment() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let location = try await client.login(responseType: "token granted_scopes", state: "frag")
            let fragment = Redirect.fragment(location)
            #expect(fragment["access_token"]?.hasPrefix("EAA") == true)
            #expect(fragment["expires_in"] == "7200")
            #expect(fragment["data_access_expiration_time"] != nil)
            #expect(fragment["state"] == "frag")
            #expect(fragment["granted_scopes"] == "public_profile,email")
            #expect(Redirect.query(location)["access_token"] == nil)
        }
    }

    @Test func declinedPermissionsAreNotAskedAgainUnlessRerequested() async throws {
        try await withEmulatorClient(.router) { client, _ in
            _ = try await client.login(scope: "email,user_posts", grant: ["email"])
            let query = [("client_id", appID), ("redirect_uri", Self.redirect), ("scope", "email,user_posts")]
            let plain = try await client.get("\(v)/dialog/oauth?\(Form.encode(query))")
            #expect(!plain.text.contains("name=\"scope_user_posts\""))
            #expect(plain.text.contains("declined before"))
            let rerequest = try await client.get(
                "\(v)/dialog/oauth?\(Form.encode(query + [("auth_type", "rerequest")]))")
            #expect(rerequest.text.contains("name=\"scope_user_posts\""))
            let location = try await client.login(
                scope: "email,user_posts", grant: ["email", "user_posts"], extra: [("auth_type", "rerequest")])
            #expect(Redirect.query(location)["granted_scopes"] == "public_profile,email,user_posts")
        }
    }

    @Test func autoConsentRedirectsAtOnce() async throws {
        try await withEmulatorClient(.router, configuration: testConfiguration(autoConsent: .grant(["email"]))) {
            client, emulator in
            let query = Form.encode([
                ("client_id", appID), ("redirect_uri", Self.redirect), ("scope", "email,user_posts"),
                ("response_type", "code granted_scopes"),
            ])
            let reply = try await client.get("\(v)/dialog/oauth?\(query)")
            #expect(reply.status == 302)
            let params = Redirect.query(try #require(reply.header("location")))
            #expect(params["granted_scopes"] == "public_profile,email")
            #expect(params["denied_scopes"] == "user_posts")
            await emulator.setAutoConsent(.deny)
            let denied = try await client.get("\(v)/dialog/oauth?\(query)")
            #expect(Redirect.query(try #require(denied.header("location")))["error"] == "access_denied")
        }
    }

    @Test func longLivedExchangeAppTokensAndDebugToken() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let token = try await client.loginToken()
            let long = try await client.get(
                "\(v)/oauth/access_token?"
                    + Form.encode([
                        ("grant_type", "fb_exchange_token"), ("client_id", appID), ("client_secret", appSecret),
                        ("fb_exchange_token", token),
                    ]))
            #expect(long.json?["expires_in"]?.intValue == 5_183_944)
            let longToken = try #require(long.json?["access_token"]?.stringValue)
            let app = try await client.post(
                "\(v)/oauth/access_token",
                form: [("grant_type", "client_credentials"), ("client_id", appID), ("client_secret", appSecret)])
            let appToken = try #require(app.json?["access_token"]?.stringValue)
            #expect(appToken.hasPrefix("\(appID)|"))

            let debug = try await client.get(
                "/debug_token?" + Form.encode([("input_token", longToken), ("access_token", appToken)]))
            let data = try #require(debug.json?["data"])
            #expect(data["app_id"]?.stringValue == appID)
            #expect(data["type"]?.stringValue == "USER")
            #expect(data["application"]?.stringValue == "Mend Emulator App")
            #expect(data["is_valid"]?.boolValue == true)
            #expect(data["user_id"]?.stringValue == alice)
            #expect(data["scopes"]?.arrayValue?.contains(.string("email")) == true)
            #expect(data["granular_scopes"]?.arrayValue != nil)
            #expect(data["issued_at"]?.intValue == 1_767_225_600)
            #expect(data["expires_at"]?.intValue == 1_767_225_600 + 5_183_944)
            #expect(data["data_access_expires_at"]?.intValue == 1_767_225_600 + 7_776_000)
            // app_id|app_secret is an app token too.
            let invalid = try await client.get(
                "/debug_token?" + Form.encode([("input_token", "garbage"), ("access_token", "\(appID)|\(appSecret)")]))
            #expect(invalid.json?["data"]?["is_valid"]?.boolValue == false)
            #expect(invalid.json?["data"]?["error"]?["code"]?.intValue == 190)
        }
    }

    @Test func idTokenIsRS256SignedByAKeyInTheJWKSAndKeysRotate() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let code = try #require(
                Redirect.query(try await client.login(scope: "openid,email", extra: [("nonce", "n0nce")]))["code"])
            let reply = try await exchange(client, code: code, extra: [("client_secret", appSecret)])
            let idToken = try #require(reply.json?["id_token"]?.stringValue)
            let parts = idToken.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            let headerData = try #require(B64.decode(parts[0]))
            let claimsData = try #require(B64.decode(parts[1]))
            let header = try #require(try JSONValue.parse(headerData).get().objectValue)
            let claims = try JSONValue.parse(claimsData).get()
            #expect(header["alg"] == .string("RS256"))
            #expect(claims["aud"]?.stringValue == appID)
            #expect(claims["sub"]?.stringValue == alice)
            #expect(claims["nonce"]?.stringValue == "n0nce")
            #expect(claims["iss"]?.stringValue == "https://www.facebook.com")
            #expect(claims["email"]?.stringValue == "alice@example.com")
            let kid = try #require(header["kid"]?.stringValue)

            let jwks = try await client.get("/.well-known/oauth/openid/jwks/")
            let key = try #require(jwks.json?["keys"]?.arrayValue?.first { $0["kid"]?.stringValue == kid })
            let modulus = try #require(B64.decode(key["n"]!.stringValue!))
            let exponent = try #require(B64.decode(key["e"]!.stringValue!))
            let signatureData = try #require(B64.decode(parts[2]))
            let publicKey = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
            let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureData)
            #expect(
                publicKey.isValidSignature(
                    signature, for: SHA256.hash(data: Data("\(parts[0]).\(parts[1])".utf8)), padding: .insecurePKCS1v1_5
                ))

            let newKID = try await emulator.rotateSigningKey()
            #expect(newKID != kid)
            let rotated = try await client.get("/.well-known/oauth/openid/jwks/")
            let kids = rotated.json?["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue }
            #expect(kids == [newKID, kid])
            let discovery = try await client.get("/.well-known/openid-configuration")
            #expect(discovery.json?["jwks_uri"]?.stringValue?.hasSuffix("/.well-known/oauth/openid/jwks/") == true)
        }
    }
}

enum B64 {
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// The matcher through the dialog, as clients see it.
enum RedirectURIMatcherProbe {
    static func allowed(_ uri: String, _ registered: [String]) -> Bool {
        EmulatorProbe.redirectAllowed(uri, registered: registered)
    }
}
