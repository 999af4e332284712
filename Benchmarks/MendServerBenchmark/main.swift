// Prints the throughput and latency of `mend-server`'s `GET /v1/session` (JWT verification plus a session lookup in
// the database) at 64 connections, as a ratio against a bare Hummingbird "hello" route, both live on loopback in the
// same run, driven by the same AsyncHTTPClient load generator.
//
//   swift run -c release --scratch-path .build-server MendServerBenchmark [requests-per-round] [rounds]
//
// MEND_BENCH_DATABASE_URL=postgres://… measures on PostgreSQL instead of SQLite. A benchmark, not a test: it prints
// figures and never fails on them.
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import MendCore
import MendEmulator
import MendServer
import MendServing
import MendTesting
import NIOCore
import NIOHTTP1
import NIOPosix

let requestsPerRound = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
let rounds = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 3
let connections = 64

struct Figures {
    var requestsPerSecond: Double
    var p50Micros: Double
    var p99Micros: Double
}

/// `connections` workers, each on its own keep-alive connection, send `total` requests in all.
func measure(client: HTTPClient, url: String, headers: HTTPHeaders, total: Int) async throws -> Figures {
    func once() async throws {
        var request = HTTPClientRequest(url: url)
        request.headers = headers
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw BenchmarkFailure(description: "\(url) answered \(response.status)") }
        _ = try await response.body.collect(upTo: 1 << 20)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<connections { group.addTask { for _ in 0..<20 { try await once() } } }
        try await group.waitForAll()
    }
    let perWorker = total / connections
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<connections {
            group.addTask {
                var samples: [Double] = []
                samples.reserveCapacity(perWorker)
                for _ in 0..<perWorker {
                    let begin = ContinuousClock.now
                    try await once()
                    let elapsed = ContinuousClock.now - begin
                    samples.append(
                        Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
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
        requestsPerSecond: Double(latencies.count) / seconds, p50Micros: latencies[latencies.count / 2],
        p99Micros: latencies[latencies.count * 99 / 100])
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a bare Hummingbird app with one "hello" route on 127.0.0.1:0 for the duration of `body`.
func withHelloServer<T>(_ body: (Int) async throws -> T) async throws -> T {
    let router = Router()
    router.get("/hello") { _, _ in "hello" }
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        logger: Logger(label: "hello", factory: { _ in SwiftLogNoOpLogHandler() }))
    return try await ServerRunLoop.withRunning(app) { server in try await body(server.port) }
}

func format(_ figures: Figures) -> String {
    String(
        format: "%8.0f req/s   p50 %7.0f µs   p99 %7.0f µs", figures.requestsPerSecond, figures.p50Micros,
        figures.p99Micros)
}

var clientConfiguration = HTTPClient.Configuration()
clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)

let databaseURL = ProcessInfo.processInfo.environment["MEND_BENCH_DATABASE_URL"] ?? "sqlite::memory:"
print("MendServerBenchmark: GET /v1/session vs a bare Hummingbird route, \(connections) connections,")
print(
    "\(requestsPerRound) requests per round, \(rounds) rounds, database \(databaseURL.hasPrefix("postgres") ? "PostgreSQL" : "SQLite")"
)

/// The benchmark, outside the main actor (top-level code is main-actor isolated; the harnesses are not).
func runBenchmark(client: HTTPClient, databaseURL: String) async throws {
    try await withEmulator { emulator in
        var configuration = ServerConfiguration.forEmulator(emulator)
        configuration.databaseURL = databaseURL
        configuration.rateLimits = .unlimited
        try await withMendServer(configuration: configuration) { server in
            var login = HTTPClientRequest(url: server.url("/v1/login/code").absoluteString)
            login.method = .POST
            login.headers.add(name: "Content-Type", value: "application/json")
            login.body = .bytes(ByteBuffer(string: try await emulator.loginCodeBody().jsonText()))
            let response = try await client.execute(login, timeout: .seconds(30))
            let data = try await response.body.collect(upTo: 1 << 20)
            guard let json = try JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any],
                let access = json["access_token"] as? String
            else { throw BenchmarkFailure(description: "login failed: \(String(buffer: data))") }
            var bearer = HTTPHeaders()
            bearer.add(name: "Authorization", value: "Bearer \(access)")

            try await withHelloServer { helloPort in
                var ratios: [Double] = []
                for round in 1...rounds {
                    let hello = try await measure(
                        client: client, url: "http://127.0.0.1:\(helloPort)/hello", headers: [:],
                        total: requestsPerRound)
                    let session = try await measure(
                        client: client, url: server.url("/v1/session").absoluteString, headers: bearer,
                        total: requestsPerRound)
                    let live = try await measure(
                        client: client, url: server.url("/health/live").absoluteString, headers: [:],
                        total: requestsPerRound)
                    let ratio = session.requestsPerSecond / hello.requestsPerSecond
                    ratios.append(ratio)
                    print("round \(round)")
                    print("  hello          \(format(hello))")
                    print("  GET /health/live (mend-server stack, no database)\(format(live))")
                    print("  GET /v1/session\(format(session))")
                    print(
                        String(
                            format: "  ratio          %.2f of hello's throughput, p50 x%.1f, p99 x%.1f", ratio,
                            session.p50Micros / hello.p50Micros, session.p99Micros / hello.p99Micros))
                }
                print(String(format: "median throughput ratio: %.2f", ratios.sorted()[ratios.count / 2]))
            }
        }
    }
}

do {
    try await runBenchmark(client: client, databaseURL: databaseURL)
} catch {
    print("benchmark failed: \(error)")
}
try await client.shutdown().get()
