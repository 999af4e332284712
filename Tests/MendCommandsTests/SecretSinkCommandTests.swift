import Foundation
import MendCore
import MendTesting
import Testing

/// Sinks of the built `mend` that issue 38 found leaking: swift-otel's own lines, and `mend redact` on a HAR whose
/// secrets sit outside the request and the response. Each test failed before its fix.
@Suite("mend keeps secrets out of its own output", .enabled(if: MendBinary.url != nil))
struct SecretSinkCommandTests {
    static let collectorPassword = "c0llect0r-Pa55word-9f3Kq7Zt2Lm8Xv4R"
    static let teamKey = "hcaik_01j8Zq4Tn2Vx6Rb9Wm3Ks5Pd7Yf1Hg0Lc"

    static var telemetry: [String: String?] {
        [
            "OTEL_EXPORTER_OTLP_HEADERS":
                "authorization=Basic%20\(Data("mend:\(collectorPassword)".utf8).base64EncodedString()),"
                + "x-honeycomb-team=\(teamKey)",
            "OTEL_SERVICE_NAME": "mend-test",
        ]
    }

    static func leaks(_ text: String) -> [String] {
        let basic = Data("mend:\(collectorPassword)".utf8).base64EncodedString()
        return [collectorPassword, teamKey, basic, basic.trimmingCharacters(in: ["="])].filter { text.contains($0) }
    }

    @Test("swift-otel's lines never carry OTEL_EXPORTER_OTLP_HEADERS' values, and mend prints none of its info lines")
    func collectorCredentials() async throws {
        // Failed before: 18 lines of "Configuration updated from environment" on standard error, the headers'
        // values in them.
        try await LoopbackHTTPServer.withServer({ _ in .text(200, "") }) { collector in
            var environment = Self.telemetry
            environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:\(collector.port)"
            let quiet = try await MendBinary.run(
                ["explain", "-"], stdin: Data(#"{"error":{"code":190,"subcode":463}}"#.utf8), environment: environment)
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(Self.leaks(quiet.stdout + quiet.stderr).isEmpty)
            #expect(!quiet.stderr.contains("Configuration updated"), "\(quiet.stderr)")

            // Asked for (OTEL_LOG_LEVEL=info), the lines come, with the headers' names and none of their values.
            environment["OTEL_LOG_LEVEL"] = "info"
            let verbose = try await MendBinary.run(
                ["explain", "-"], stdin: Data(#"{"error":{"code":190,"subcode":463}}"#.utf8), environment: environment)
            #expect(verbose.status == 0, "\(verbose.stderr)")
            #expect(verbose.stderr.contains("Configuration updated"), "the control: \(verbose.stderr)")
            // Mend reads the headers variable itself (percent-decoded, issue 39) and takes it out of the environment
            // swift-otel reads: none of swift-otel's lines names it any more.
            #expect(!verbose.stderr.contains("OTEL_EXPORTER_OTLP_HEADERS"), "\(verbose.stderr)")
            #expect(Self.leaks(verbose.stdout + verbose.stderr).isEmpty, "\(Self.leaks(verbose.stderr).count) leaks")
        }
    }

    static let token = "EAAGm0PX4ZCpsBAKZBZAwebsocketToken1234567890abcdef"
    static let refreshToken = "mrt_b3Jr8F1xQ9vZk2LmN4pW7sT0yU6aE5cD"
    static let opaque = "Zq8vR2mN4pW7sT0yU6aE5cD1xQ9vZk2L"

    /// A HAR as Chromium writes one for a page that logged in over a WebSocket: secrets in the page's title (its
    /// URL, fragment included), in WebSocket messages, and in a base64 body whose text ends in `=`.
    static func browserHAR() -> Data {
        let body = #"{"access_token":"\#(opaque)","token_type":"bearer"}"#
        let base64 = Data(body.utf8).base64EncodedString()
        let har = """
            {"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},
             "pages":[{"id":"page_1","startedDateTime":"2026-11-26T10:00:00.000Z","pageTimings":{},
                       "title":"http://127.0.0.1:8080/done#access_token=\(token)&expires_in=3600"}],
             "entries":[{"pageref":"page_1","startedDateTime":"2026-11-26T10:00:00.000Z","time":5,
               "request":{"method":"GET","url":"http://127.0.0.1:8080/socket","httpVersion":"HTTP/1.1",
                          "headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
               "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],
                           "content":{"size":\(body.utf8.count),"mimeType":"application/json","text":"\(base64)",
                                      "encoding":"base64"},
                           "redirectURL":"","headersSize":-1,"bodySize":\(body.utf8.count)},
               "cache":{},"timings":{"send":0,"wait":5,"receive":0},"_resourceType":"websocket",
               "_webSocketMessages":[{"type":"send","time":1.5,"opcode":1,
                                      "data":"{\\"type\\":\\"auth\\",\\"token\\":\\"\(refreshToken)\\"}"}]}]}}
            """
        return Data(har.utf8)
    }

    @Test("mend redact: a page's title, WebSocket messages and a padded base64 body are redacted, their fields kept")
    func redactsTheWholeHAR() async throws {
        // Failed before: exit 0 with the token in the title, the refresh token in the message and the access token
        // in the base64 body.
        let run = try await MendBinary.run(["redact", "-"], stdin: Self.browserHAR())
        #expect(run.status == 0, "\(run.stderr)")
        for secret in [Self.token, Self.refreshToken, Self.opaque] {
            #expect(!run.stdout.contains(secret))
            #expect(!run.stdout.contains(Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])))
        }
        let document = try JSONValue.parse(Data(run.stdout.utf8)).get()
        let entry = try #require(document["log"]?["entries"]?.arrayValue?.first)
        #expect(entry["_webSocketMessages"]?.arrayValue?.count == 1)
        #expect(entry["response"]?["content"]?["encoding"] == .string("base64"))
        // What the base64 body holds, decoded: the access token is a placeholder.
        let body = try #require(entry["response"]?["content"]?["text"]?.stringValue)
        let decoded = String(decoding: try #require(Data(base64Encoded: body)), as: UTF8.self)
        #expect(decoded.contains("<mend:access_token:") && !decoded.contains(Self.opaque), "\(decoded)")
        #expect(
            document["log"]?["pages"]?.arrayValue?.first?["title"]?.stringValue?.contains("expires_in=3600") == true)
    }
}
