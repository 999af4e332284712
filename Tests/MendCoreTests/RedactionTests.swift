import Foundation
import MendClientTesting
import MendCore
import MendGraphAPI
import Testing

@Suite("Redaction")
struct RedactionTests {
    static let token = "EAAGm0PX4ZCpsBAKZBZCqZBZAkZD2a9Xq7Lw3sK"
    static let appSecret = "s3cr3t-app-secret-value-0042"
    static let code = "AQDx9Kp2rTz8vLmN4qWs7uYb3cFhJk"
    static let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJl"

    @Test("The shortcut past the patterns changes nothing: a text it skips is one no pattern matches")
    func shortcutAgreesWithEveryPattern() {
        var samples = [
            "", "id,name,email", "10157_4402", "me/feed", "limit", "5", Self.token, Self.jwt, Self.code,
            "access_token=\(Self.token)", "Bearer abcdefgh1234", "bearer\tabcdefgh1234", "OAuth\u{00A0}abcdefgh1234",
            "123456789|abcdefghijklmnopqrstuv", "{\"code\": \"\(Self.code)\"}", "prefixEAAGm0PX4ZCpsBAKZBZCqZB",
            "x.eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2ln", "code=\(Self.code)", "café", "a|b", "e y J",
            "mrt_b3Jr8F1xQ9vZk2LmN4pW7sT0yU6aE5cD", "xmend_admin_Q2hhbmdlTWVQbGVhc2UxMjM0NTY3ODkw",
            "postgres://mend:pw1234@127.0.0.1/db", "k1:EdDSA:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
            #"{\"token\":\"abcdefgh12345\"}"#,
        ]
        // And every text of up to three characters from the patterns' own alphabet.
        let alphabet = ["e", "y", "J", "E", "A", "=", "|", " ", "\"", "x", "1", "\\", ":", "_", "m", "r", "t"]
        for first in alphabet {
            for second in alphabet { for third in alphabet { samples.append(first + second + third) } }
        }
        for sample in samples {
            let expected = Redactor.redactWithEveryPattern(sample)
            #expect(Redactor.standard.redact(text: sample) == expected, "\(sample)")
            if !SecretText.mayMatch(sample) { #expect(expected == sample, "\(sample)") }
        }
    }

    /// Every rendering of an error must be free of every secret.
    static func renderings(of error: MendError) -> [String] {
        let nsError = error as NSError
        return [
            error.description, error.debugDescription, error.shortDescription, error.developerMessage,
            error.errorDescription ?? "", error.failureReason ?? "", error.recoverySuggestion ?? "",
            "\(error)", String(reflecting: error), nsError.localizedDescription, "\(nsError.userInfo)",
            error.response?.body ?? "", error.response.map { "\($0.headers)" } ?? "",
            error.response?.json?.jsonText() ?? "",
        ]
    }

    static let secrets = [token, appSecret, code, jwt, "Zm9vOmJhcjEyMzQ1Njc4"]

    static func errorWithSecrets() -> MendError {
        let body = """
            {"error":{"message":"Invalid token \(token) for app","code":190,"fbtrace_id":"Ab1"},
             "access_token":"\(token)","client_secret":"\(appSecret)","code":"\(code)","id_token":"\(jwt)",
             "debug":"https://graph.example/me?access_token=\(token)&code=\(code)&fields=id"}
            """
        let parsed = try? JSONValue.parse(Data(body.utf8)).get()
        var error = MendError(
            code: .Graph.accessTokenInvalid,
            developerMessage: "GET /me?access_token=\(token) failed; Authorization: Bearer \(token); id_token \(jwt)",
            catalog: .everyClientSpace)
        error.response = ResponseExcerpt(
            status: 400,
            headers: [
                ("Authorization", "Bearer \(token)"), ("Set-Cookie", "session=\(appSecret)"),
                ("WWW-Authenticate", "OAuth \"Facebook Platform\" \"invalid_token\" \"token \(token)\""),
                ("X-Request-Id", "req-1"), ("Proxy-Authorization", "Basic Zm9vOmJhcjEyMzQ1Njc4"),
            ],
            body: Data(body.utf8), json: parsed)
        error.additionalMessages = ["client_secret=\(appSecret)"]
        error.underlying = URLError(
            .badServerResponse, userInfo: [NSURLErrorFailingURLStringErrorKey: "https://x/?access_token=\(token)"])
        return error
    }

    @Test("No rendering of an error contains a token, secret, code or credential")
    func renderingsAreRedacted() {
        let error = Self.errorWithSecrets()
        for rendering in Self.renderings(of: error) {
            for secret in Self.secrets {
                #expect(!rendering.contains(secret), "secret found in: \(rendering.prefix(200))")
            }
        }
        #expect(error.response?.headers["x-request-id"] == "req-1")
        #expect(error.response?.json?["error"]?["code"] == .int(190))
        #expect(error.response?.json?["error"]?["fbtrace_id"] == .string("Ab1"))
    }

    @Test("Registered secret values are removed wherever they appear")
    func registeredSecrets() {
        let redactor = Redactor.standard.adding(secrets: ["plain-opaque-session-abc"])
        #expect(
            redactor.redact(text: "the session plain-opaque-session-abc expired") == "the session <redacted> expired")
        // Very short values are not registered (they would redact ordinary words).
        #expect(Redactor.standard.adding(secrets: ["abc"]).redact(text: "abc") == "abc")
    }

    @Test("Error codes under the key `code` stay; authorization codes go")
    func codesStay() {
        let json = JSONValue.object([
            "code": .int(190),
            "errors": .array([.object(["extensions": .object(["code": .string("UNAUTHENTICATED")])])]),
        ])
        #expect(Redactor.standard.redact(json: json) == json)
        #expect(
            Redactor.standard.redact(json: .object(["code": .string(Self.code)]))
                == .object(["code": .string("<redacted>")]))
        #expect(Redactor.standard.redact(text: "/cb?code=\(Self.code)&state=xyz") == "/cb?code=<redacted>&state=xyz")
    }

    @Test("Excerpts are bounded and say so")
    func bounded() {
        let body = Data(String(repeating: "x", count: 100_000).utf8)
        let excerpt = ResponseExcerpt(status: 500, headers: [], body: body)
        #expect(excerpt.body?.count == ResponseExcerpt.defaultBodyLimit)
        #expect(excerpt.isBodyTruncated)
        #expect(excerpt.bodyByteCount == 100_000)
        let unkept = ResponseExcerpt(status: 200, headers: [("X-Internal-Debug", "secret-ish")], body: Data())
        #expect(unkept.headers.isEmpty)
        #expect(unkept.body == nil)
    }

    @Test(
        "Token shapes are matched in their exact case: a request id that starts with eaa or eyj is not a token",
        arguments: ["eaab259826ee92cd4adada82", "Eaab259826ee92cd4adada82", "eyjabcdefgh.ijklmnopq.rstuv"])
    func tokenPrefixesAreCaseSensitive(_ identifier: String) {
        #expect(Redactor.standard.redact(text: "request \(identifier)") == "request \(identifier)")
    }

    @Test("Graph tokens and JWTs are still redacted")
    func tokensAreStillRedacted() {
        let text = Redactor.standard.redact(text: "t=EAABwzLixnjYBAK1234567890 j=eyJhbGciOi.eyJzdWIiOi.c2ln")
        #expect(!text.contains("EAABwzLixnjYBAK1234567890"))
        #expect(!text.contains("eyJhbGciOi.eyJzdWIiOi"))
    }
}
