import Foundation
import MendCore
import MendTesting
import Testing

/// `mend explain --har`, `mend redact` and `mend explain -`, through the built binary, on a HAR shaped as Chromium
/// writes it (its `_initiator`, `_priority`, `serverIPAddress` and `pages`, a refused connection's `_error`).
@Suite("HAR files: explain and redact", .enabled(if: MendBinary.url != nil))
struct RecordingCommandsTests {
    static let secrets = [
        "EAAGm0PX4ZCpsBAFakeBrowserAccessToken0123456789", "AQBx9FakeAuthorizationCodeFromTheBrowser_0042xyz",
        "Zk3v9m2QpX7rT1yW5uB8nD4cF6hJ0aL-sE_gK2iO3qR", "0123456789abcdef0123456789abcdef",
        "FakeSessionCookieValue",
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL3d3dy5mYWNlYm9vay5jb20iLCJzdWIiOiIxMDAwIiwiZW1haWwiOiJhbGljZUBleGFtcGxlLmNvbSJ9",
    ]

    @Test("explain --har: every failed exchange in order, a Graph error and a refused connection, text and JSON")
    func explainHAR() async throws {
        let har = try MendBinary.fixturePath("browser.har")
        let text = try await MendBinary.run(["explain", "--har", har])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("#3 GET https://graph.facebook.com/v25.0/me/feed?access_token=<redacted> → 400"))
        #expect(text.stdout.contains("tokenExpired") && text.stdout.contains("AbCdEf123"))
        #expect(text.stdout.contains("#4 GET https://graph.facebook.com/v25.0/me/photos → no response"))
        #expect(text.stdout.contains("cannotConnect"))
        #expect(text.stdout.hasSuffix("2 failed of 5 exchanges\n"))
        for secret in Self.secrets { #expect(!text.stdout.contains(secret)) }

        let json = try await MendBinary.run(["explain", "--har", har, "--json"])
        let reports = try #require(try JSONValue.parse(Data(json.stdout.utf8)).get().arrayValue)
        #expect(reports.map { $0["entry"]?.intValue } == [3, 4])
        #expect(reports[0]["error"]?["domain"] == .string("graph") && reports[0]["error"]?["subcode"] == .int(463))
        #expect(reports[1]["error"]?["name"] == .string("cannotConnect") && reports[1]["status"] == .int(0))

        // Standard input too; a HAR without failures has nothing to explain (exit 1).
        let piped = try await MendBinary.run(
            ["explain", "--har", "-"], stdin: Data(contentsOf: URL(fileURLWithPath: har)))
        #expect(piped.stdout == text.stdout)
        let fine = #"{"log":{"version":"1.2","entries":[]}}"#
        #expect(try await MendBinary.run(["explain", "--har", "-"], stdin: Data(fine.utf8)).status == 1)
        let notHAR = try await MendBinary.run(["explain", "--har", "-"], stdin: Data("{}".utf8))
        #expect(notHAR.status == 65 && notHAR.stderr.contains("Not a HAR file"))
    }

    @Test(
        "explain --har reads each answer as mend explain does and notes a _mend that disagrees")
    func recordedClassificationIsChecked() async throws {
        let body =
            #"{"error":{"message":"Error validating access token: Session has expired.","type":"OAuthException","code":190,"error_subcode":463,"fbtrace_id":"AbCdEf123"}}"#
        func entry(_ mend: String) -> String {
            """
            {"startedDateTime":"2026-11-27T00:00:00.000Z","time":1,"request":{"method":"GET",\
            "url":"https://graph.example/v25.0/me","httpVersion":"HTTP/1.1","headers":[],"queryString":[],\
            "cookies":[],"headersSize":-1,"bodySize":0},"response":{"status":400,"statusText":"Bad Request",\
            "httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"cookies":[],\
            "content":{"size":\(body.utf8.count),"mimeType":"application/json","text":\(JSONValue.string(body).jsonText())},\
            "redirectURL":"","headersSize":-1,"bodySize":\(body.utf8.count)},"cache":{},"timings":{"send":0,"wait":1,\
            "receive":0},"_mend":{"error":\(mend)}}
            """
        }
        let statusOnly =
            #"{"domain":"http","code":400,"name":"badRequest","category":"other","recovery":"changeRequest","message":"HTTP 400"}"#
        let appOwn =
            #"{"domain":"myapi","code":7,"name":"sessionGone","category":"recoverable","recovery":"reauthenticate","message":"gone"}"#
        let document =
            #"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":["#
            + entry(statusOnly) + "," + entry(appOwn) + "]}}"
        let file = temporaryDirectory().appendingPathComponent("disagree.har")
        try Data(document.utf8).write(to: file)
        let text = try await MendBinary.run(["explain", "--har", file.path])
        #expect(text.status == 0, "\(text.stderr)")
        let sections = text.stdout.components(separatedBy: "\n\n")
        #expect(sections.count >= 2)
        // The proxy's old status-only reading loses to the body's: graph/190/463, and the note says so.
        #expect(sections[0].contains("tokenExpired") && sections[0].contains("reauthenticate"), "\(sections[0])")
        #expect(
            sections[0].contains(
                "note: the recording's _mend says http/400 badRequest; its answer reads as graph/190/463 tokenExpired"),
            "\(sections[0])")
        // An app's own decoder knew its API: its _mend stays, and the note gives mend explain's reading.
        #expect(sections[1].contains("note: the recording's _mend says myapi/7"), "\(sections[1])")
        let json = try await MendBinary.run(["explain", "--har", file.path, "--json"])
        let reports = try #require(try JSONValue.parse(Data(json.stdout.utf8)).get().arrayValue)
        #expect(reports.first?["error"]?["domain"] == .string("graph"))
        #expect(reports.first?["recordedError"] == .string("http/400 badRequest"))
        #expect(reports.first?["readError"] == .string("graph/190/463 tokenExpired"))
    }

    @Test("redact: no secret survives, raw, base64 or URL-encoded; the browser's own fields stay; placeholders match")
    func redact() async throws {
        let har = try MendBinary.fixturePath("browser.har")
        let output = temporaryDirectory().appendingPathComponent("shared.har")
        let run = try await MendBinary.run(["redact", har, "-o", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("5 entries redacted"))
        let text = try String(contentsOf: output, encoding: .utf8)
        for secret in Self.secrets {
            #expect(!text.contains(secret), "raw")
            #expect(!text.contains(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!), "URL-encoded")
            #expect(!text.contains(Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])), "base64")
        }
        for kept in [
            "_initiator", "serverIPAddress", "page_1", "QVFIUk5fY3Vyc29yX3ZhbHVlX2Jhc2U2NA", "GhQ7vX2kLp9Zr4Tb1Wm",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "Alice", "net::ERR_CONNECTION_REFUSED",
        ] {
            #expect(text.contains(kept), "\(kept)")
        }
        // The token the exchange answered is the one the next calls present, under one placeholder.
        let document = try JSONValue.parse(Data(text.utf8)).get()
        let entries = try #require(document["log"]?["entries"]?.arrayValue)
        #expect(entries[1]["response"]?["content"]?["text"]?.stringValue?.contains("<mend:access_token:1>") == true)
        #expect(
            entries[2]["request"]?["headers"]?.arrayValue?.first?["value"] == .string("OAuth <mend:access_token:1>"))
        #expect(
            entries[2]["request"]?["url"]?.stringValue?.hasSuffix("access_token=%3Cmend%3Aaccess_token%3A1%3E") == true)
        // The code in the redirect and in the exchange: one placeholder.
        let location = entries[0]["response"]?["headers"]?.arrayValue?.first { $0["name"] == .string("Location") }
        #expect(
            location?["value"]?.stringValue?.contains("code=%3Cmend%3Acode%3A1%3E&state=%3Cmend%3Astate%3A1%3E") == true
        )
        #expect(
            entries[1]["request"]?["postData"]?["text"]?.stringValue?.contains("code=%3Cmend%3Acode%3A1%3E") == true)
        // Redacting the redacted file changes nothing.
        let again = try await MendBinary.run(["redact", output.path])
        #expect(try JSONValue.parse(Data(again.stdout.utf8)).get() == document)
    }

    @Test("redact fails closed on a secret no rule knows, naming where it sits; --allow or --redact settles it")
    func failClosed() async throws {
        let har = #"""
            {"log":{"version":"1.2","entries":[{"request":{"method":"GET","url":"https://api.example/x","headers":[]},
            "response":{"status":200,"headers":[],"content":{"mimeType":"application/json",
            "text":"{\"handle\":\"kP9xQ2mZ7vB4nR8tL1wY6cF3hJ5sD0gA\"}"}}}]}}
            """#
        let refused = try await MendBinary.run(["redact", "-"], stdin: Data(har.utf8))
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("entries[0].response.content.text $.handle"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("kP9xQ2mZ7vB4nR8tL1wY6cF3hJ5sD0gA") && refused.stdout.isEmpty)
        let allowed = try await MendBinary.run(["redact", "-", "--allow", "handle"], stdin: Data(har.utf8))
        #expect(allowed.status == 0 && allowed.stdout.contains("kP9xQ2mZ7vB4nR8tL1wY6cF3hJ5sD0gA"))
        let redacted = try await MendBinary.run(["redact", "-", "--redact", "handle"], stdin: Data(har.utf8))
        #expect(redacted.status == 0 && redacted.stdout.contains("<mend:handle:1>"))
    }

    @Test("explain - reads the body from standard input")
    func explainDash() async throws {
        let body =
            #"{"error":{"message":"Session has expired","type":"OAuthException","code":190,"error_subcode":463}}"#
        let run = try await MendBinary.run(["explain", "-", "--json"], stdin: Data(body.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONValue.parse(Data(run.stdout.utf8)).get()["subcode"] == .int(463))
    }
}
