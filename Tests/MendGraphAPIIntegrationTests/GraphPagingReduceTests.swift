import Foundation
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendTesting
import Testing

/// The `limit` each logged request to `/me/feed` sent (`nil` without one), and its status.
private func feedRequests(_ emulator: RunningEmulator) async -> [(limit: Int?, status: Int)] {
    await emulator.requestLog().filter { $0.path.hasSuffix("/me/feed") }.map { entry in
        let limit = entry.query.split(separator: "&").first { $0.hasPrefix("limit=") }.flatMap {
            Int($0.dropFirst("limit=".count))
        }
        return (limit, entry.status)
    }
}

@Suite("Graph paging asks for less when the provider says so")
struct GraphPagingReduceTests {
    @Test("Past a payload budget, the page is sent again with half the limit, which is restored after successes")
    func halvesAndRestores() async throws {
        var configuration = EmulatorConfiguration()
        configuration.users[0].seedPostCount = 200
        try await withEmulator(configuration: configuration) { emulator in
            // The first request only is over the budget (25 × 2 fields > 30).
            try await emulator.inject(.payloadBudget(30, path: "/me/feed", times: 1))
            let client = graphClient(
                emulator, tokens: StaticCredential(token: try await emulator.token(scopes: ["user_posts"])))
            var ids = Set<String>()
            for try await post in client.items(
                GraphRequest(path: "me/feed", parameters: ["limit": "25"], fields: ["id", "message"]), of: Post.self)
            {
                ids.insert(post.id)
            }
            #expect(ids.count == 200)
            let sent = await feedRequests(emulator)
            // Halved once; doubled after every 3 successes, back up to the limit asked for.
            #expect(sent.map(\.limit) == [25, 12, 12, 12, 24, 24, 24, 25, 25, 25, 25])
            #expect(sent.map(\.status) == [500] + Array(repeating: 200, count: 10))
        }
    }

    @Test("Under a lasting budget and without a limit, paging reaches the end at the size that fits")
    func lastingBudgetWithoutLimit() async throws {
        var configuration = EmulatorConfiguration()
        configuration.users[0].seedPostCount = 100
        try await withEmulator(configuration: configuration) { emulator in
            try await emulator.inject(.payloadBudget(30, path: "/me/feed"))
            let client = graphClient(
                emulator, tokens: StaticCredential(token: try await emulator.token(scopes: ["user_posts"])))
            var count = 0
            for try await page in client.pages(
                GraphRequest(path: "me/feed", fields: ["id", "message"]), of: Post.self)
            {
                count += page.items.count
            }
            #expect(count == 100)
            let sent = await feedRequests(emulator)
            // No limit: the provider's default page (25) is too much; the documented default 25 is halved to 12,
            // and every restoration to 24 is refused again.
            #expect(sent.map(\.limit) == [nil, 12, 12, 12, 24, 12, 12, 12, 24, 12, 12, 12])
            #expect(sent.filter { $0.status == 500 }.count == 3)
        }
    }

    @Test("When even one item is too much, the provider's error is thrown")
    func oneItemTooMany() async throws {
        try await withEmulator { emulator in
            try await emulator.inject(.payloadBudget(1, path: "/me/feed"))
            let client = graphClient(
                emulator, tokens: StaticCredential(token: try await emulator.token(scopes: ["user_posts"])))
            let error = try await #require(throws: MendError.self) {
                for try await _ in client.pages(
                    GraphRequest(path: "me/feed", parameters: ["limit": "25"], fields: ["id", "message"]),
                    of: Post.self)
                {}
            }
            #expect(error.code == .Graph.unknown)
            #expect(error.recovery.action == .reduceRequestSize)
            #expect(error.category == .recoverable)
            #expect(await feedRequests(emulator).map(\.limit) == [25, 12, 6, 3, 1])
        }
    }
}
