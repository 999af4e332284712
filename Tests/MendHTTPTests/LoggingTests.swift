import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@Suite("Logging behaviours and redaction")
struct LoggingTests {
    static let token = "EAAsecretAAAAAAAAAAAAAAAAA1"

    @Test("Captured logs never contain a token, whether it travels in a header or the query")
    func noTokensInLogs() async throws {
        let capture = LogCapture()
        let transport = InMemoryTransport(replies: [
            .json(401, #"{"message":"bad token \#(Self.token)","access_token":"\#(Self.token)"}"#), .json(200, "{}"),
        ])
        let client = makeClient(transport, provider: RotatingProvider(), logging: .all, capture: capture)
        let url = URL(
            string:
                "https://graph.example/me?access_token=\(Self.token)&code=AQDlongauthorizationcodevalue123&fields=id")!
        _ = try await client.send(APIRequest(method: .get, url: url))
        let text = capture.text
        #expect(!text.isEmpty)
        #expect(text.contains("graph.example/me"))
        for secret in [
            Self.token, "EAAtokenAAAAAAAAAAAAAAAAA1", "EAAtokenBBBBBBBBBBBBBBBBB2", "AQDlongauthorizationcodevalue123",
        ] {
            #expect(!text.contains(secret), "leaked \(secret)")
        }
        #expect(text.contains("Re-authenticating"))
    }

    @Test("Nothing is logged unless asked, and each behaviour logs only its own lines")
    func behaviours() async throws {
        let quiet = LogCapture()
        _ = try await makeClient(InMemoryTransport(replies: [.json(200, "{}")]), capture: quiet)
            .send(APIRequest(method: .get, url: apiURL))
        #expect(quiet.records.isEmpty)

        let retries = LogCapture()
        _ = try await makeClient(
            InMemoryTransport(replies: [.status(503), .json(200, "{}")]), logging: .retries, capture: retries
        )
        .send(APIRequest(method: .get, url: apiURL))
        #expect(retries.records.map(\.message) == ["Retrying"])
        #expect(retries.records.allSatisfy { $0.level == .debug })
    }
}
