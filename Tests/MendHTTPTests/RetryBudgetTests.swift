import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@Suite("Retry budget")
struct RetryBudgetTests {
    @Test("A 100 % outage: total attempts stay within requests + the floor")
    func outage() async throws {
        let transport = InMemoryTransport(replies: [.html(503, "<html>down</html>")])
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let budget = RetryBudget(configuration: .init(ratio: 0.1, floor: 10), now: now)
        let client = APIClient(
            transport: transport, configuration: .init(clock: PipelineClock(sleep: { _ in }, now: { now })),
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 5), retryBudget: budget))
        let url = URL(string: "https://api.example/items")!
        var failures = 0
        for _ in 0..<200 {
            do {
                _ = try await client.send(APIRequest(method: .get, url: url))
            } catch let error as MendError {
                #expect(error.code == .HTTP.serviceUnavailable)
                failures += 1
            }
        }
        #expect(failures == 200)
        // Without a budget, 200 requests × 5 attempts = 1,000 calls into a dead server.
        #expect(transport.requestCount == 200 + 10)
        #expect(budget.balance(now: now) < 1)
    }

    @Test("Successes earn retries at the configured ratio; the floor refills with time")
    func deposits() {
        let start = Date(timeIntervalSince1970: 0)
        let budget = RetryBudget(
            configuration: .init(ratio: 0.1, floor: 2, floorRefillPerSecond: 0.5, maximumBalance: 5), now: start)
        #expect(budget.tryWithdraw(now: start))
        #expect(budget.tryWithdraw(now: start))
        #expect(!budget.tryWithdraw(now: start))
        for _ in 0..<10 { budget.recordSuccess() }
        #expect(budget.tryWithdraw(now: start))
        #expect(!budget.tryWithdraw(now: start))
        // Two seconds at half a token a second refill one token, never above the floor.
        #expect(budget.tryWithdraw(now: start.addingTimeInterval(2)))
        #expect(abs(budget.balance(now: start.addingTimeInterval(1000)) - 2) < 1e-9)
        for _ in 0..<1000 { budget.recordSuccess() }
        #expect(budget.balance(now: start.addingTimeInterval(1000)) == 5)
    }
}
