import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import Testing

/// `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
private func basic(_ clientID: String, _ secret: String) -> HTTPFields {
    let credentials = "\(Form.escape(clientID)):\(Form.escape(secret))"
    return [.authorization: "Basic " + Data(credentials.utf8).base64EncodedString()]
}

private let callbackURI = "http://127.0.0.1:5555/callback"

/// A code from the login dialog (no PKCE: a confidential client's).
private func code(_ client: Client, extra: [(String, String)] = []) async throws -> String {
    try #require(Redirect.query(try await client.login(extra: extra))["code"])
}

private func exchange(
    _ client: Client, code: String, form: [(String, String)], headers: HTTPFields = [:]
) async throws -> Reply {
    try await client.post(
        "\(v)/oauth/access_token", form: [("code", code), ("redirect_uri", callbackURI)] + form, headers: headers)
}

/// A standard `invalid_client` refusal: 401, the OAuth error body, a Basic challenge.
private func expectInvalidClient(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == 401, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.json?["error"]?.stringValue == "invalid_client", "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.header("www-authenticate")?.hasPrefix("Basic") == true, sourceLocation: sourceLocation)
    #expect(reply.header("cache-control") == "no-store", sourceLocation: sourceLocation)
}

@Suite("The token endpoint authenticates clients as RFC 6749 §2.3.1 says")
struct TokenEndpointAuthTests {
    @Test(
        "HTTP Basic client authentication is accepted, with or without client_id in the body", arguments: Mode.allCases)
    func basicAccepted(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, _ in
            let alone = try await exchange(
                client, code: try await code(client), form: [], headers: basic(appID, appSecret))
            #expect(alone.status == 200, "\(alone.text)")
            #expect(alone.json?["access_token"]?.stringValue?.hasPrefix("EAA") == true)
            let withID = try await exchange(
                client, code: try await code(client), form: [("client_id", appID)], headers: basic(appID, appSecret))
            #expect(withID.status == 200, "\(withID.text)")
            let both = try await exchange(
                client, code: try await code(client), form: [("client_id", appID), ("client_secret", appSecret)],
                headers: basic(appID, appSecret))
            #expect(both.status == 200, "the same credentials both ways: \(both.text)")
            let appToken = try await client.post(
                "\(v)/oauth/access_token", form: [("grant_type", "client_credentials")],
                headers: basic(appID, appSecret))
            #expect(appToken.json?["access_token"]?.stringValue?.hasPrefix("\(appID)|") == true, "\(appToken.text)")
        }
    }

    @Test("Basic credentials are form-decoded: a secret with reserved characters works")
    func basicURLEncoded() async throws {
        let secret = "s3cr:t+/%é &x="
        var app = EmulatedApp.default
        app.secret = secret
        try await withEmulatorClient(.router, configuration: testConfiguration(apps: [app])) { client, _ in
            let reply = try await exchange(
                client, code: try await code(client), form: [], headers: basic(appID, secret))
            #expect(reply.status == 200, "\(reply.text)")
            let body = try await exchange(
                client, code: try await code(client), form: [("client_id", appID), ("client_secret", secret)])
            #expect(body.status == 200, "the same secret in the body: \(body.text)")
        }
    }

    @Test("Refused as invalid_client (401, WWW-Authenticate: Basic)", arguments: Mode.allCases)
    func refused(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, _ in
            // Both ways, naming different clients or secrets.
            expectInvalidClient(
                try await exchange(
                    client, code: try await code(client), form: [("client_id", "999")],
                    headers: basic(appID, appSecret)))
            expectInvalidClient(
                try await exchange(
                    client, code: try await code(client), form: [("client_id", appID), ("client_secret", "other")],
                    headers: basic(appID, appSecret)))
            // Basic with a wrong secret, an unknown client, or no valid credentials at all.
            expectInvalidClient(
                try await exchange(client, code: try await code(client), form: [], headers: basic(appID, "wrong")))
            expectInvalidClient(
                try await exchange(client, code: try await code(client), form: [], headers: basic("999", appSecret)))
            for header in ["Basic", "Basic !!!", "Basic " + Data("no-colon".utf8).base64EncodedString()] {
                expectInvalidClient(
                    try await exchange(
                        client, code: try await code(client), form: [], headers: [.authorization: header]))
            }
            // Neither way, for a grant that needs a confidential client.
            expectInvalidClient(try await exchange(client, code: try await code(client), form: [("client_id", appID)]))
            expectInvalidClient(
                try await client.post(
                    "\(v)/oauth/access_token", form: [("grant_type", "client_credentials"), ("client_id", appID)]))
            // A refused exchange leaves the code unused.
            let code = try await code(client)
            expectInvalidClient(try await exchange(client, code: code, form: [], headers: basic(appID, "wrong")))
            #expect(try await exchange(client, code: code, form: [], headers: basic(appID, appSecret)).status == 200)
        }
    }

    @Test("A public client (PKCE) needs no credentials")
    func publicClient() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let pkce = PKCE()
            let code = try await code(
                client, extra: [("code_challenge", pkce.challenge), ("code_challenge_method", "S256")])
            let reply = try await exchange(
                client, code: code, form: [("client_id", appID), ("code_verifier", pkce.verifier)])
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test("Discovery advertises Basic and body client authentication, and iss in authorization responses")
    func discoveryAdvertises() async throws {
        try await withEmulatorClient(.router) { client, _ in
            let document = try #require(try await client.get("/.well-known/openid-configuration").json)
            #expect(
                document["token_endpoint_auth_methods_supported"]
                    == .array([.string("client_secret_basic"), .string("client_secret_post")]))
            #expect(document["authorization_response_iss_parameter_supported"] == .bool(true))
        }
    }
}

@Suite("The emulator's authorization responses carry iss (RFC 9207)")
struct AuthorizationResponseIssuerEmulatorTests {
    @Test("Answers and cancellations carry the issuer", arguments: Mode.allCases)
    func redirectsCarryIss(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, _ in
            let answer = Redirect.query(try await client.login())
            #expect(answer["iss"] == "https://www.facebook.com")
            let token = Redirect.fragment(try await client.login(responseType: "token"))
            #expect(token["iss"] == "https://www.facebook.com")
            let query = Form.encode([("client_id", appID), ("redirect_uri", callbackURI), ("state", "s1")])
            let page = try await client.get("\(v)/dialog/oauth?\(query)")
            let id = try #require(ConsentForm.value(of: "dialog_id", in: page.text))
            let cancel = try await client.post(
                "\(v)/dialog/oauth/confirm", form: [("dialog_id", id), ("decision", "cancel")])
            #expect(Redirect.query(try #require(cancel.header("location")))["iss"] == "https://www.facebook.com")
        }
    }

    @Test("With the base-URL issuer, the document, the redirects and the id_token name the URL the client used")
    func baseURLIssuer() async throws {
        var configuration = testConfiguration()
        configuration.issuer = EmulatorConfiguration.baseURLIssuer
        try await withEmulatorClient(.direct, configuration: configuration) { client, _ in
            let issuer = "http://127.0.0.1"  // the base URL of a direct request
            #expect(try await client.get("/.well-known/openid-configuration").json?["issuer"]?.stringValue == issuer)
            let location = try await client.login(scope: "openid,email", extra: [("nonce", "n0nce")])
            let answer = Redirect.query(location)
            #expect(answer["iss"] == issuer)
            let reply = try await exchange(
                client, code: try #require(answer["code"]), form: [], headers: basic(appID, appSecret))
            let idToken = try #require(reply.json?["id_token"]?.stringValue)
            let payload = try #require(B64.decode(String(idToken.split(separator: ".")[1])))
            #expect(try JSONValue.parse(payload).get()["iss"]?.stringValue == issuer)
        }
    }
}
