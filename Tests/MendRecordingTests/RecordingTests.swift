import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@testable import MendRecording

/// Recording and replaying at the transport seam, without sockets: redaction into placeholders, the fail-closed
/// scan, the record modes and the replay's matching.
@Suite struct RecordingTests {
    static let accessToken = "EAAGm0PX4ZCpsBAKZBZAlongrandomtoken1234567890abcdef"
    static let refreshToken = "mrt_b3Jr8F1xQ9vZk2LmN4pW7sT0yU6aE5cD"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let appSecret = "0123456789abcdef0123456789abcdef"

    /// A login-like exchange: the code and verifier in a form, the tokens in the answer, then a call with the token.
    static let service = InMemoryTransport { request, body in
        switch request.path?.split(separator: "?").first ?? "" {
        case "/oauth/access_token":
            return .json(
                200, #"{"access_token":"\#(accessToken)","refresh_token":"\#(refreshToken)","expires_in":3600}"#,
                headers: [("Set-Cookie", "sid=s3cr3tS3ssionC00kieValue99; Path=/; HttpOnly")])
        case "/me":
            guard request.headerFields[.authorization] != nil else { return .json(401, #"{"error":"no token"}"#) }
            return .json(
                200,
                #"{"id":"100000000000001","name":"Alice","paging":{"cursors":{"after":"QVFIUmx1WmFGOGx5dE1QbnpCNkxqZA"}},"fbtrace_id":"AbCdEfGhIjKlMnOpQrStUv1"}"#
            )
        case "/busy":
            return .html(503, "<html>busy</html>")
        default:
            return .failure(MendError(code: .Transport.connectionLost, developerMessage: "dropped", catalog: .core))
        }
    }

    static func login(_ transport: any HTTPTransport, verifier: String = verifier) async throws -> JSONValue {
        let client = APIClient(transport: transport, steps: .standard(retryPolicy: .never))
        let form =
            "grant_type=authorization_code&code=AQDx7kF0uC9Rr2aLongAuthorizationCode0042&code_verifier=\(verifier)"
            + "&client_secret=\(appSecret)&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback"
        let answer = try await client.send(
            APIRequest(
                method: .post, url: URL(string: "https://graph.example/oauth/access_token")!,
                headers: [.contentType: "application/x-www-form-urlencoded"], body: Data(form.utf8)))
        let tokens = try answer.decode(JSONValue.self)
        let token = try #require(tokens["access_token"]?.stringValue)
        let me = try await client.send(
            APIRequest(
                method: .get, url: URL(string: "https://graph.example/me?fields=id,name")!,
                headers: [.authorization: "Bearer \(token)"]))
        return .object(["tokens": tokens, "me": try me.decode(JSONValue.self)])
    }

    @Test("A recording holds placeholders, the same secret the same one, and replays consistently with no service")
    func recordThenReplay() async throws {
        let file = temporaryDirectory().appendingPathComponent("login.har")
        let recorder = try RecordingTransport(wrapping: Self.service, file: file, mode: .once)
        #expect(recorder.effectiveMode == .all)
        let live = try await Self.login(recorder)
        #expect(live["tokens"]?["access_token"]?.stringValue == Self.accessToken)

        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in [
            Self.accessToken, Self.refreshToken, Self.verifier, Self.appSecret, "s3cr3tS3ssionC00kieValue99",
            "AQDx7kF0uC9Rr2aLongAuthorizationCode0042",
        ] {
            #expect(!text.contains(secret))
            #expect(!text.contains(Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])))
        }
        // The token the exchange answered is the placeholder the next call presents.
        let document = try HARDocument(data: Data(contentsOf: file))
        #expect(document.entries.count == 2)
        let answered = document.entries[0].response.content.text ?? ""
        #expect(answered.contains("<mend:access_token:1>") && answered.contains("<mend:refresh_token:1>"))
        let presented = document.entries[1].request.headers.first { $0.name.lowercased() == "authorization" }
        #expect(presented?.value == "Bearer <mend:access_token:1>")
        // What is no secret stays: the cursor, the trace id, the user's id and name.
        #expect(text.contains("QVFIUmx1WmFGOGx5dE1QbnpCNkxqZA") && text.contains("AbCdEfGhIjKlMnOpQrStUv1"))
        #expect(text.contains("Alice") && text.contains("100000000000001"))

        // Replay: no service at all, a fresh verifier (the client makes one per login), the same answers.
        let replay = try ReplayTransport(recording: file)
        let replayed = try await Self.login(replay, verifier: "a-completely-different-verifier-of-43-chars-xyz")
        #expect(replayed["me"] == live["me"])
        #expect(replayed["tokens"]?["access_token"] == .string("<mend:access_token:1>"))
        // Each recorded answer is used once.
        let again = await #expect(throws: MendError.self) { try await Self.login(replay) }
        #expect(again?.code == .Transport.replayMismatch)
        #expect(again?.developerMessage.contains("no answer left") == true)
    }

    @Test("A request the recording has no answer for names the closest recorded one and how it differs")
    func mismatch() async throws {
        let file = temporaryDirectory().appendingPathComponent("me.har")
        let recorder = try RecordingTransport(wrapping: Self.service, file: file, mode: .all)
        let client = APIClient(transport: recorder, steps: .standard(retryPolicy: .never))
        _ = try await client.send(
            APIRequest(
                method: .get, url: URL(string: "https://graph.example/me?fields=id,name&limit=5")!,
                headers: [.authorization: "Bearer x"]))
        let replay = APIClient(transport: try ReplayTransport(recording: file), steps: .standard(retryPolicy: .never))
        // The query's order does not matter, nor the host, nor the headers.
        _ = try await replay.send(
            APIRequest(method: .get, url: URL(string: "http://127.0.0.1:1/me?limit=5&fields=id,name")!))
        let error = await #expect(throws: MendError.self) {
            try await replay.send(
                APIRequest(method: .get, url: URL(string: "https://graph.example/me?fields=id,email&limit=5")!))
        }
        #expect(error?.code == .Transport.replayMismatch)
        #expect(error?.category == .other)
        let message = error?.developerMessage ?? ""
        #expect(message.contains("GET /me?fields=id,name&limit=5"), "\(message)")
        #expect(message.contains("recorded fields=id,name, sent fields=id,email"), "\(message)")
    }

    @Test("Record modes: once, newEpisodes, none and all")
    func modes() async throws {
        let file = temporaryDirectory().appendingPathComponent("modes.har")
        func get(_ transport: any HTTPTransport, _ path: String) async throws -> Int {
            let client = APIClient(transport: transport, steps: .standard(retryPolicy: .never))
            do {
                return try await client.send(
                    APIRequest(
                        method: .get, url: URL(string: "https://graph.example\(path)")!,
                        headers: [.authorization: "Bearer t"])
                ).head.status.code
            } catch let error as MendError {
                return error.httpStatus ?? -error.code.rawValue
            }
        }
        // none, without a file: refused.
        #expect(throws: MendError.self) { try RecordingTransport(wrapping: Self.service, file: file, mode: .none) }
        // once, without a file: records.
        let counting = Counting(Self.service)
        let once = try RecordingTransport(wrapping: counting, file: file, mode: .once)
        #expect(try await get(once, "/me") == 200)
        #expect(counting.count == 1)
        // once, with the file: replays only — a new request is a mismatch, nothing reaches the service.
        let again = try RecordingTransport(wrapping: counting, file: file, mode: .once)
        #expect(again.effectiveMode == .none)
        #expect(try await get(again, "/me") == 200)
        #expect(try await get(again, "/busy") == -MendError.Code.Transport.replayMismatch.rawValue)
        #expect(counting.count == 1)
        // newEpisodes: replays what it has, records the rest (appended).
        let episodes = try RecordingTransport(wrapping: counting, file: file, mode: .newEpisodes)
        #expect(try await get(episodes, "/me") == 200)
        #expect(try await get(episodes, "/busy") == 503)
        #expect(counting.count == 2)
        #expect(try HARDocument(data: Data(contentsOf: file)).entries.count == 2)
        // none: replays the two.
        let none = try RecordingTransport(wrapping: counting, file: file, mode: .none)
        #expect(try await get(none, "/busy") == 503)
        #expect(try await get(none, "/me") == 200)
        #expect(counting.count == 2)
        // all: records anew, replacing the file.
        let all = try RecordingTransport(wrapping: counting, file: file, mode: .all)
        #expect(try await get(all, "/me") == 200)
        #expect(counting.count == 3)
        #expect(try HARDocument(data: Data(contentsOf: file)).entries.count == 1)
    }

    @Test("Concurrent exchanges are all recorded: the file holds every one, each with its own answer")
    func concurrent() async throws {
        let file = temporaryDirectory().appendingPathComponent("concurrent.har")
        let echo = InMemoryTransport { request, _ in .json(200, #"{"path":"\#(request.path ?? "")"}"#) }
        let recorder = try RecordingTransport(wrapping: echo, file: file, mode: .all)
        let client = APIClient(transport: recorder, steps: .standard(retryPolicy: .never))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    _ = try await client.send(
                        APIRequest(method: .get, url: URL(string: "https://api.example/item/\(index)")!))
                }
            }
            try await group.waitForAll()
        }
        let entries = try HARDocument(data: Data(contentsOf: file)).entries
        #expect(entries.count == 40)
        #expect(
            Set(entries.compactMap { $0.response.content.text })
                == Set((0..<40).map { #"{"path":"/item/\#($0)"}"# }))
    }

    @Test("A transport failure and an HTTP error are recorded with the Mend error they became, and replayed as such")
    func failures() async throws {
        let file = temporaryDirectory().appendingPathComponent("failures.har")
        let recorder = try RecordingTransport(wrapping: Self.service, file: file, mode: .all)
        let client = APIClient(transport: recorder, steps: .standard(retryPolicy: .never))
        let dropped = await #expect(throws: MendError.self) {
            try await client.send(APIRequest(method: .get, url: URL(string: "https://graph.example/drop")!))
        }
        let busy = await #expect(throws: MendError.self) {
            try await client.send(APIRequest(method: .get, url: URL(string: "https://graph.example/busy")!))
        }
        let document = try HARDocument(data: Data(contentsOf: file))
        #expect(document.entries[0].mend?.error?.name == "connectionLost")
        #expect(document.entries[0].response.status == 0)
        #expect(document.entries[1].mend?.error?.code == 503)
        #expect(document.entries[1].mend?.error?.category == "transient")

        let replay = APIClient(transport: try ReplayTransport(recording: file), steps: .standard(retryPolicy: .never))
        let replayedDrop = await #expect(throws: MendError.self) {
            try await replay.send(APIRequest(method: .get, url: URL(string: "https://graph.example/drop")!))
        }
        let replayedBusy = await #expect(throws: MendError.self) {
            try await replay.send(APIRequest(method: .get, url: URL(string: "https://graph.example/busy")!))
        }
        #expect(replayedDrop?.code == dropped?.code && replayedDrop?.category == dropped?.category)
        #expect(replayedBusy?.code == busy?.code && replayedBusy?.category == busy?.category)
    }

    @Test("The fail-closed scan stops a write with a secret no rule knows, naming where it sits; allow(name) keeps it")
    func failClosed() async throws {
        let secretive = InMemoryTransport { _, _ in
            .json(200, #"{"session":{"handle":"kP9xQ2mZ7vB4nR8tL1wY6cF3hJ5sD0gA"}}"#)
        }
        let file = temporaryDirectory().appendingPathComponent("scan.har")
        let recorder = try RecordingTransport(wrapping: secretive, file: file, mode: .all)
        let client = APIClient(transport: recorder, steps: .standard(retryPolicy: .never))
        let refused = await #expect(throws: MendError.self) {
            try await client.send(APIRequest(method: .get, url: URL(string: "https://api.example/session")!))
        }
        #expect(refused?.code == .Transport.recordingRefused)
        #expect(refused?.developerMessage.contains("entries[0].response.content.text $.session.handle") == true)
        #expect(refused?.developerMessage.contains("kP9xQ2mZ7vB4nR8tL1wY6cF3hJ5sD0gA") == false)
        #expect(!FileManager.default.fileExists(atPath: file.path))

        // A name the app knows to be no secret: allowed; or one it knows to be: redacted.
        var allowing = RedactionRules()
        allowing.allow("handle")
        let allowed = try RecordingTransport(wrapping: secretive, file: file, mode: .all, rules: allowing)
        _ = try await APIClient(transport: allowed).send(
            APIRequest(method: .get, url: URL(string: "https://api.example/session")!))
        #expect(try String(contentsOf: file, encoding: .utf8).contains("kP9xQ2mZ7vB4nR8tL1wY6cF3hJ5sD0gA"))
        var redacting = RedactionRules()
        redacting.redact("handle")
        let redacted = try RecordingTransport(wrapping: secretive, file: file, mode: .all, rules: redacting)
        _ = try await APIClient(transport: redacted).send(
            APIRequest(method: .get, url: URL(string: "https://api.example/session")!))
        #expect(try String(contentsOf: file, encoding: .utf8).contains("<mend:handle:1>"))
    }

    @Test("Redaction reaches every place a secret sits: query, form, JSON at depth, JSON in a string, URLs, cookies")
    func redactionEverywhere() throws {
        let redactor = ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable())
        #expect(
            redactor.redact(url: "https://g.example/me?fields=id&access_token=\(Self.accessToken)")
                == "https://g.example/me?fields=id&access_token=%3Cmend%3Aaccess_token%3A1%3E")
        #expect(
            redactor.redact(
                form: "batch=%5B%7B%22relative_url%22%3A%22me%3Faccess_token%3D\(Self.accessToken)%22%7D%5D"
            )
            .contains("access_token%3D%3Cmend%3Aaccess_token%3A1%3E"))
        let json = redactor.redact(
            json: .object([
                "data": .array([.object(["token": .string("zzzzzzzzzz"), "code": .int(190)])]),
                "body": .string(#"{"access_token":"\#(Self.accessToken)"}"#),
                "error": .object(["code": .string("UNAUTHENTICATED")]),
                "next": .string("https://g.example/feed?after=abc&access_token=\(Self.accessToken)"),
            ]))
        #expect(json["data"]?.arrayValue?.first?["token"] == .string("<mend:token:1>"))
        #expect(json["data"]?.arrayValue?.first?["code"] == .int(190))
        #expect(json["body"] == .string(#"{"access_token":"<mend:access_token:1>"}"#))
        #expect(json["error"]?["code"] == .string("UNAUTHENTICATED"))
        #expect(json["next"]?.stringValue?.contains("after=abc&access_token=%3Cmend%3Aaccess_token%3A1%3E") == true)
        #expect(redactor.redact(header: "Cookie", value: "a=1; b=2") == "a=<mend:cookie:1>; b=<mend:cookie:2>")
        #expect(redactor.redact(header: "Authorization", value: "Basic dXNlcjpwYXNz") == "Basic <mend:basic:1>")
        #expect(
            redactor.redact(text: "failed: Bearer \(Self.accessToken) and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln")
                == "failed: Bearer <mend:access_token:1> and <mend:jwt:1>")
        // A recording being added to goes on numbering after the placeholders it holds.
        let continuing = PlaceholderTable(continuing: #"["<mend:access_token:4>","<mend:code:2>"]"#)
        #expect(continuing.placeholder(for: "another", kind: "access_token") == "<mend:access_token:5>")
    }
}

/// Counts what reaches a transport.
final class Counting: HTTPTransport {
    let upstream: any HTTPTransport
    private let sent = Locked(0)
    var count: Int { sent.withLock { $0 } }

    init(_ upstream: any HTTPTransport) { self.upstream = upstream }

    func send(_ request: HTTPRequest, body: HTTPBody?, timeout: Duration?) async throws -> (HTTPResponse, HTTPBody) {
        sent.withLock { $0 += 1 }
        return try await upstream.send(request, body: body, timeout: timeout)
    }
}
