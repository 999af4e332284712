// Prints the MendHTTP pipeline's overhead against calling AsyncHTTPClient directly, on the same loopback server in
// the same run, at 1 and 64 concurrent requests.
//
//   swift run -c release MendHTTPBenchmark [requests-per-round] [pairs] [seconds-per-concurrency]
//
// On a shared machine the noise between two long runs is larger than the pipeline's cost, so the benchmark
// interleaves short rounds — raw, Mend, Mend, raw, raw, Mend, … (each pair alternates which side goes first) — and
// reports, per concurrency, the median of the per-pair ratios (Mend / raw) with their interquartile range and
// range. Defaults: 1000 requests per round at concurrency 1 (four times as many at 64, so that a round lasts about
// as long), 21 pairs, at most 30 s per concurrency (at least 3 pairs).
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
import NIOPosix

let arguments = CommandLine.arguments.dropFirst().map(Int.init)
let requestsPerRound = max(64, (arguments.first ?? nil) ?? 1000)
let pairs = max(1, (arguments.dropFirst().first ?? nil) ?? 21)
let secondsPerConcurrency = max(1, (arguments.dropFirst(2).first ?? nil) ?? 30)
let concurrencies = [1, 64]
let body = #"{"id":"1234567890","name":"Ada Lovelace","email":"ada@example.com"}"#

/// One round's figures.
struct Round {
    var medianMicros: Double
    var p99Micros: Double
    var requestsPerSecond: Double
}

/// `concurrency` workers send `total` requests in all, each timing its own.
func round(
    concurrency: Int, total: Int, _ operation: @escaping @Sendable () async throws -> Void
) async throws -> Round {
    let perWorker = max(1, total / concurrency)
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var samples: [Double] = []
                samples.reserveCapacity(perWorker)
                for _ in 0..<perWorker {
                    let begin = ContinuousClock.now
                    try await operation()
                    samples.append(micros(ContinuousClock.now - begin))
                }
                return samples
            }
        }
        var all: [Double] = []
        for try await samples in group { all += samples }
        return all.sorted()
    }
    let seconds = micros(ContinuousClock.now - start) / 1e6
    return Round(
        medianMicros: quantile(latencies, 0.5), p99Micros: quantile(latencies, 0.99),
        requestsPerSecond: Double(latencies.count) / seconds)
}

func micros(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

/// The `q` quantile of sorted `values`, interpolated between neighbours.
func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let position = Double(sorted.count - 1) * q
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
}

/// "median 1.034  IQR 1.010–1.061  range 0.962–1.127".
func spread(_ values: [Double]) -> String {
    let sorted = values.sorted()
    return String(
        format: "median %.3f  IQR %.3f–%.3f  range %.3f–%.3f", quantile(sorted, 0.5), quantile(sorted, 0.25),
        quantile(sorted, 0.75), sorted.first ?? .nan, sorted.last ?? .nan)
}

func median(_ values: [Double]) -> Double { quantile(values.sorted(), 0.5) }

var clientConfiguration = HTTPClient.Configuration()
clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrencies.max() ?? 64
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)

try await LoopbackHTTPServer.withServer({ _ in .json(200, body) }) { server in
    let url = server.url("/me?fields=id,name,email")
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
    print(
        "MendHTTP pipeline vs raw AsyncHTTPClient, loopback: up to \(pairs) interleaved pairs of short rounds per "
            + "concurrency (each pair alternates which side goes first), at most \(secondsPerConcurrency) s each")
    for concurrency in concurrencies {
        let roundSize = requestsPerRound * max(1, concurrency / 16)
        // Warm up both paths: connections, code paths, allocator.
        _ = try await round(concurrency: concurrency, total: max(roundSize, concurrency * 20), raw)
        _ = try await round(concurrency: concurrency, total: max(roundSize, concurrency * 20), piped)
        var rawRounds: [Round] = []
        var mendRounds: [Round] = []
        let started = ContinuousClock.now
        let deadline = started + .seconds(secondsPerConcurrency)
        for pair in 0..<pairs {
            if pair >= 3, ContinuousClock.now > deadline { break }
            if pair.isMultiple(of: 2) {
                rawRounds.append(try await round(concurrency: concurrency, total: roundSize, raw))
                mendRounds.append(try await round(concurrency: concurrency, total: roundSize, piped))
            } else {
                mendRounds.append(try await round(concurrency: concurrency, total: roundSize, piped))
                rawRounds.append(try await round(concurrency: concurrency, total: roundSize, raw))
            }
        }
        let elapsed = micros(ContinuousClock.now - started) / 1e6
        let latencyRatios = zip(mendRounds, rawRounds).map { $0.medianMicros / $1.medianMicros }
        let throughputRatios = zip(mendRounds, rawRounds).map { $0.requestsPerSecond / $1.requestsPerSecond }
        print("")
        print(
            String(
                format: "concurrency %d: %d pairs of %d-request rounds in %.1f s", concurrency, rawRounds.count,
                roundSize, elapsed))
        for (name, rounds) in [("raw ", rawRounds), ("Mend", mendRounds)] {
            print(
                "  \(name)"
                    + String(
                        format: "  median latency %7.1f µs   p99 %7.1f µs   %8.0f req/s   (medians over the rounds)",
                        median(rounds.map(\.medianMicros)), median(rounds.map(\.p99Micros)),
                        median(rounds.map(\.requestsPerSecond))))
        }
        print("  latency ratio    (Mend / raw median latency, per pair): \(spread(latencyRatios))")
        print("  throughput ratio (Mend / raw requests per second, per pair): \(spread(throughputRatios))")
    }
}
try await client.shutdown().get()
