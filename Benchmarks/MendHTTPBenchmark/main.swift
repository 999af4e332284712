// Prints the MendHTTP pipeline's overhead against calling AsyncHTTPClient directly, on the same loopback server in
// the same run: median latency and throughput at 1 and 64 concurrent requests.
//
//   swift run -c release MendHTTPBenchmark [requests-per-round]
//
// A benchmark, not a test: it prints figures and never fails on them.
import AsyncHTTPClient
import Foundation
import HTTPTypes
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendTesting
import NIOCore
import NIOHTTP1

let requestsPerRound = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 4000
let body = #"{"id":"1234567890","name":"Ada Lovelace","email":"ada@example.com"}"#

struct Figures {
    var medianMicros: Double
    var p99Micros: Double
    var requestsPerSecond: Double
}

func measure(
    concurrency: Int, total: Int, _ operation: @escaping @Sendable () async throws -> Void
) async throws -> Figures {
    // Warm up connections and code paths.
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency { group.addTask { for _ in 0..<20 { try await operation() } } }
        try await group.waitForAll()
    }
    let perWorker = total / concurrency
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var samples: [Double] = []
                samples.reserveCapacity(perWorker)
                for _ in 0..<perWorker {
                    let begin = ContinuousClock.now
                    try await operation()
                    let elapsed = ContinuousClock.now - begin
                    samples.append(
                        Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
                }
                return samples
            }
        }
        var all: [Double] = []
        for try await samples in group { all += samples }
        return all.sorted()
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Figures(
        medianMicros: latencies[latencies.count / 2], p99Micros: latencies[latencies.count * 99 / 100],
        requestsPerSecond: Double(latencies.count) / seconds)
}

try await LoopbackHTTPServer.withServer({ _ in .json(200, body) }) { server in
    let url = server.url("/me?fields=id,name,email")
    let client = HTTPClient.shared
    let mend = APIClient(transport: AsyncHTTPClientTransport(client: client))
    let raw: @Sendable () async throws -> Void = {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 10 << 20)
        guard response.status == .ok else { throw CancellationError() }
    }
    let piped: @Sendable () async throws -> Void = {
        // The pipeline's own work: middleware, the transport seam, the body limit and the error decoder's check.
        let response = try await mend.send(APIRequest(method: .get, url: url))
        guard response.head.status.code == 200 else { throw CancellationError() }
    }
    print("MendHTTP pipeline vs raw AsyncHTTPClient, loopback, \(requestsPerRound) requests per round")
    print("concurrency | raw median µs | Mend median µs | latency ratio | raw req/s | Mend req/s | throughput ratio")
    for concurrency in [1, 64] {
        // Alternate rounds so that neither side always runs on a warmer machine.
        var rawRuns: [Figures] = []
        var mendRuns: [Figures] = []
        for _ in 0..<3 {
            rawRuns.append(try await measure(concurrency: concurrency, total: requestsPerRound, raw))
            mendRuns.append(try await measure(concurrency: concurrency, total: requestsPerRound, piped))
        }
        let rawBest = rawRuns.sorted { $0.medianMicros < $1.medianMicros }[1]
        let mendBest = mendRuns.sorted { $0.medianMicros < $1.medianMicros }[1]
        let rawRate = rawRuns.map(\.requestsPerSecond).sorted()[1]
        let mendRate = mendRuns.map(\.requestsPerSecond).sorted()[1]
        print(
            String(
                format: "%11d | %13.1f | %14.1f | %13.3f | %9.0f | %10.0f | %16.3f", concurrency,
                rawBest.medianMicros, mendBest.medianMicros, mendBest.medianMicros / rawBest.medianMicros, rawRate,
                mendRate, mendRate / rawRate))
    }
}
