import Foundation
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendTesting
import Testing

@Suite("Graph client: throttling, paging, batches, broken responses")
struct GraphClientTrafficTests {
    @Test("A throttle holds further requests to the app until the provider's wait has passed")
    func throttleHolds() async throws {
        try await withEmulator { emulator in
            let usage = #"{"call_count":100,"total_cputime":20,"total_time":30}"#
            try await emulator.inject(
                FaultRule(
                    kind: .error, error: "graph/4", path: "/me", headers: ["X-App-Usage": usage], retryAfter: "30",
                    times: 1))
            let waits = Waits()
            let client = graphClient(
                emulator, tokens: StaticCredential(token: try await emulator.token()), waits: waits, recovery: false)
            let error = try await #require(throws: MendError.self) { try await client.send(GraphRequest(path: "me")) }
            #expect(error.code == .Graph.appRateLimit)
            #expect(error.recovery.action == .waitForRateLimit)
            #expect(client.latestUsage?.app?.callCount == 100)
            #expect(await emulator.requestLog().count == 1)
            // The next request waits out the throttle first (the wait is recorded, not slept), then goes out.
            _ = try await client.send(GraphRequest(path: "me"))
            #expect(waits.all.count == 1)
            #expect(waits.all.first.map { $0 >= .seconds(29) && $0 <= .seconds(30) } == true)
            #expect(await emulator.requestLog().count == 2)
        }
    }

    @Test("Paging across 1,000 items, following cursors")
    func paging() async throws {
        var configuration = EmulatorConfiguration()
        configuration.users[0].seedPostCount = 1000
        try await withEmulator(configuration: configuration) { emulator in
            let client = graphClient(
                emulator,
                tokens: StaticCredential(token: try await emulator.token(scopes: ["public_profile", "user_posts"])))
            var ids = Set<String>()
            var count = 0
            for try await post in client.items(
                GraphRequest(path: "me/feed", parameters: ["limit": "100"]), of: Post.self)
            {
                ids.insert(post.id)
                count += 1
            }
            #expect(count == 1000)
            #expect(ids.count == 1000)
            let pages = await emulator.requestLog().filter { $0.path.hasSuffix("/me/feed") }.count
            #expect(pages >= 10 && pages <= 11)
        }
    }

    @Test("A 50-item batch with mixed results is one HTTP call with per-item errors")
    func batch() async throws {
        try await withEmulator { emulator in
            let client = graphClient(emulator, tokens: StaticCredential(token: try await emulator.token()))
            var requests = (0..<48).map { _ in GraphRequest(path: "me", fields: ["id"]) }
            requests.append(GraphRequest(path: "999999999999999", fields: ["id"]))
            requests.append(GraphRequest(path: "me/friends"))
            let results = try await client.send(GraphBatch(requests: requests))
            #expect(results.count == 50)
            #expect(results.prefix(48).allSatisfy { $0.body?["id"] != nil })
            #expect(results[48].error?.code == .Graph.invalidParameter)
            #expect(results[48].error?.category == .other)
            #expect(results[49].body?["data"] != nil)
            let log = await emulator.requestLog()
            #expect(log.count == 1)
            #expect(log.first?.method == "POST")
        }
    }

    @Test("A 51-item batch fails before sending, or splits into two calls when asked")
    func oversizedBatch() async throws {
        try await withEmulator { emulator in
            let client = graphClient(emulator, tokens: StaticCredential(token: try await emulator.token()))
            let batch = GraphBatch(requests: (0..<51).map { _ in GraphRequest(path: "me", fields: ["id"]) })
            let error = try await #require(throws: MendError.self) { try await client.send(batch) }
            #expect(error.code == .Graph.invalidParameter)
            #expect(error.attempts == 0)
            #expect(await emulator.requestLog().isEmpty)
            let results = try await client.send(batch, splitting: true)
            #expect(results.count == 51)
            #expect(await emulator.requestLog().count == 2)
        }
    }

    @Test("An HTML 503 is a transient error after retries, never a success")
    func html503() async throws {
        try await withEmulator { emulator in
            try await emulator.inject(FaultRule(kind: .html, path: "/me", status: 503))
            let client = graphClient(emulator, tokens: StaticCredential(token: try await emulator.token()))
            let error = try await #require(throws: MendError.self) { try await client.send(GraphRequest(path: "me")) }
            #expect(error.code == .HTTP.serviceUnavailable)
            #expect(error.category == .transient)
            #expect(error.attempts == 3)
        }
    }

    @Test("Truncated JSON is a classified transport error")
    func truncated() async throws {
        try await withEmulator { emulator in
            try await emulator.inject(FaultRule(kind: .truncatedJSON, path: "/me"))
            let client = graphClient(emulator, tokens: StaticCredential(token: try await emulator.token()))
            let error = try await #require(throws: MendError.self) { try await client.send(GraphRequest(path: "me")) }
            #expect(error.code == .Transport.malformedResponse)
            #expect(error.category == .transient)
        }
    }

    @Test("A 50 MB body is rejected at the limit")
    func hugeBody() async throws {
        try await withEmulator { emulator in
            let body = "{\"data\":\"" + String(repeating: "x", count: 50 << 20) + "\"}"
            try await emulator.inject(
                FaultRule(kind: .status, path: "/me", status: 200, body: body, contentType: "application/json"))
            let client = graphClient(
                emulator, tokens: StaticCredential(token: try await emulator.token()), limit: 1 << 20)
            let error = try await #require(throws: MendError.self) { try await client.send(GraphRequest(path: "me")) }
            #expect(error.code == .Transport.responseTooLarge)
            #expect((error.response?.body?.count ?? 0) <= ResponseExcerpt.defaultBodyLimit)
        }
    }
}
