// Prints the MendHTTP pipeline's overhead against calling AsyncHTTPClient directly, on the same loopback server in
// the same run, at 1 and 64 concurrent requests, in two variants:
//
// - `plain`: a GET through `APIClient` with the standard steps (authorization with no credential, the rate-limit
//   gate, retry, logging), the success body checked as JSON — against `HTTPClient.execute` and collecting the body;
// - `credential+decode`: the same with a `CredentialProvider` attaching a bearer token, and the JSON body decoded
//   into a struct — against the raw client setting the same header and decoding the same struct.
//
// and, where MendTelemetry exists (issue 31), a third:
//
// - `telemetry`: the `plain` GET through a client observed by MendTelemetry's `TelemetryObserver`, whose tracer builds
//   every span with its attributes and events and drops it when it ends (a no-op exporter) and whose metrics go to
//   swift-metrics' no-op handler — against the same client unobserved: the adapter's cost.
//
//   swift run -c release --traits Server MendHTTPBenchmark [requests-per-round] [pairs] [seconds-per-concurrency]
//   swift run -c release --traits Server MendHTTPBenchmark count raw|mend|raw-decode|mend-decode|mend-telemetry N   # N sequential
//                                                                   # requests, for valgrind --tool=callgrind
//
// `count` also takes `mend-bare` (the client with no steps: the exchange, the body limit, the error decoder) and
// `transport` (Mend's AsyncHTTPClient transport alone, the request made by `APIRequest`), which split Mend's cost;
// and `mend-bearer`, `mend-dpop` and `mend-dpop-rebuilt`, the plain GET with a bearer credential, with a DPoP-bound
// one (a P-256 proof per request; the session's prover made once, as MendLogin's credentials manager makes it), and
// with a bound one whose prover is made again for every request (its key read back from bytes, its thumbprint hashed:
// what MendLogin did until the prover was made once per session).
// Instructions per request are (count(N2) − count(N1)) / (N2 − N1); with `--separate-threads=yes` the thread that runs
// the tasks (`OneThreadExecutor`) moves by about a thousand from run to run, the event loops' counts by a few thousand
// with the timing of their wake-ups. `scripts/count-instructions` runs every variant and prints both.
//
// Under valgrind, use a copy without debug info (`objcopy --strip-debug`): valgrind 3.19 cannot read the DWARF 5
// that this toolchain writes.
//
// On a shared machine the noise between two long runs is larger than the pipeline's cost, so the benchmark
// interleaves short rounds — raw, Mend, Mend, raw, raw, Mend, … (each pair alternates which side goes first) — and
// reports, per variant and concurrency, the median of the per-pair ratios (Mend / raw) with their interquartile
// range and range. Defaults: 1000 requests per round at concurrency 1 (four times as many at 64, so that a round
// lasts about as long), 21 pairs, at most 30 s per concurrency (at least 3 pairs).
//
// It uses only MendHTTP's public API that the pipeline has had since its first wave (`APIClient`, `.standard`,
// `CredentialProvider`), and a loopback server of its own, so that the same file measures older commits.
//
// A benchmark, not a test: it prints figures and never fails on them.
import AsyncHTTPClient
import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(MendTelemetry)
    import Instrumentation
    import MendTelemetry
    import Metrics
    import Tracing

    /// A tracer that builds each span (attributes, events, status) and drops it when it ends: an exporter that
    /// exports nothing, so that what is measured is the adapter's own work.
    struct DroppingTracer: Tracer {
        final class Span: Tracing.Span, @unchecked Sendable {
            // Unchecked: one task writes a span at a time (the pipeline's), as with any span.
            let context: ServiceContext
            var operationName: String
            var attributes = SpanAttributes()
            var events: [SpanEvent] = []
            var status: SpanStatus?
            var isRecording: Bool { true }

            init(operationName: String, context: ServiceContext) {
                self.operationName = operationName
                self.context = context
            }

            func setStatus(_ status: SpanStatus) { self.status = status }
            func addEvent(_ event: SpanEvent) { events.append(event) }
            func recordError<Instant: TracerInstant>(
                _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
            ) {}
            func addLink(_ link: SpanLink) {}
            func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
        }

        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> Span {
            Span(operationName: operationName, context: context())
        }

        func forceFlush() {}
        func inject<Carrier, Inject: Injector>(
            _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
        ) where Inject.Carrier == Carrier {}
        func extract<Carrier, Extract: Extractor>(
            _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
        ) where Extract.Carrier == Carrier {}
    }
#endif

let body = #"{"id":"1234567890","name":"Ada Lovelace","email":"ada@example.com"}"#
let token = "EAAbenchmarkTokenAAAAAAAAAAAAAAAAAAAAAAAAAAA"

/// The decoded body of the `credential+decode` variant.
struct Profile: Decodable, Sendable {
    var id: String
    var name: String
    var email: String
}

/// A fixed bearer token, as an app's own provider would be.
struct FixedToken: CredentialProvider {
    func currentCredential() async throws -> Credential? { Credential(token: token) }
    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential { throw error }
}

/// A DPoP-bound session's credential, as MendLogin's credentials manager gives it out: its prover made once
/// (`DPoPSessionProofs`), or — `rebuilt` — made again for every request.
struct BoundToken: CredentialProvider {
    let proofs = DPoPSessionProofs()
    let session: Session
    let rebuilt: Bool

    init(rebuilt: Bool) throws {
        self.rebuilt = rebuilt
        var session = Session(
            issuer: .backend, accessToken: AccessToken(tokenString: token, userID: "1", permissions: []),
            refreshToken: nil)
        session.proofKey = try DPoPSoftwareKeys().makeKey()
        self.session = session
    }

    func currentCredential() async throws -> Credential? {
        guard rebuilt, let key = session.proofKey else { return try proofs.credential(for: session) }
        return Credential(token: token, prover: try DPoPSessionProver(key: key))
    }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential { throw error }
}

// MARK: A loopback server that answers every request with the same JSON.

final class JSONResponder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

func startServer() async throws -> (any Channel, URL) {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(JSONResponder()) }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress?.port ?? 0
    return (channel, URL(string: "http://127.0.0.1:\(port)/me?fields=id,name,email")!)
}

// MARK: Timing

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

// MARK: The run

/// A synchronous `main` that waits for the async run: valgrind 3.19 cannot follow `dispatch_main`, which an async
/// `main` ends in (it stops the main thread with `pthread_exit`), so callgrind could not count an async `main`.
@main
enum MendHTTPBenchmark {
    static func main() {
        runDetachedAndWait(onOneThread: CommandLine.arguments.dropFirst().first == "count") {
            do {
                try await run()
            } catch {
                print("MendHTTPBenchmark: \(error)")
                exit(1)
            }
        }
    }

    static func run() async throws {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let client = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        let (server, url) = try await startServer()
        let transport = AsyncHTTPClientTransport(client: client)
        let mend = APIClient(transport: transport)
        let bare = APIClient(transport: transport, steps: [])
        let mendWithCredential = APIClient(transport: transport, steps: .standard(credentialProvider: FixedToken()))
        let mendBound = APIClient(
            transport: transport, steps: .standard(credentialProvider: try BoundToken(rebuilt: false)))
        let mendBoundRebuilt = APIClient(
            transport: transport, steps: .standard(credentialProvider: try BoundToken(rebuilt: true)))
        #if canImport(MendTelemetry)
            let observed = APIClient(
                transport: transport,
                configuration: APIClient.Configuration(
                    observer: TelemetryObserver(
                        tracer: DroppingTracer(), metricsFactory: NOOPMetricsHandler.instance)))
        #endif

        var operations: [String: @Sendable () async throws -> Void] = [
            "raw": {
                let response = try await client.execute(
                    HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 10 << 20)
                guard response.status == .ok else { throw CancellationError() }
            },
            "mend": {
                // The pipeline's own work: the steps, the transport seam, the body limit and the error decoder's check.
                let response = try await mend.send(APIRequest(method: .get, url: url))
                guard response.head.status.code == 200 else { throw CancellationError() }
            },
            "mend-bare": {
                let response = try await bare.send(APIRequest(method: .get, url: url))
                guard response.head.status.code == 200 else { throw CancellationError() }
            },
            "transport": {
                let (response, body) = try await transport.send(
                    APIRequest(method: .get, url: url).head, body: nil, timeout: .seconds(30))
                _ = try await body.collect(upTo: 10 << 20)
                guard response.status.code == 200 else { throw CancellationError() }
            },
            "raw-decode": {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                let response = try await client.execute(request, timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 10 << 20)
                guard response.status == .ok else { throw CancellationError() }
                _ = try JSONDecoder().decode(Profile.self, from: Data(bytes.readableBytesView))
            },
            "mend-decode": {
                let response = try await mendWithCredential.send(APIRequest(method: .get, url: url))
                _ = try response.decode(Profile.self)
            },
            "mend-bearer": {
                let response = try await mendWithCredential.send(APIRequest(method: .get, url: url))
                guard response.head.status.code == 200 else { throw CancellationError() }
            },
            "mend-dpop": {
                let response = try await mendBound.send(APIRequest(method: .get, url: url))
                guard response.head.status.code == 200 else { throw CancellationError() }
            },
            "mend-dpop-rebuilt": {
                let response = try await mendBoundRebuilt.send(APIRequest(method: .get, url: url))
                guard response.head.status.code == 200 else { throw CancellationError() }
            },
        ]
        var variants = [("plain", "raw", "mend"), ("credential+decode", "raw-decode", "mend-decode")]
        #if canImport(MendTelemetry)
            operations["mend-telemetry"] = {
                let response = try await observed.send(APIRequest(method: .get, url: url))
                guard response.head.status.code == 200 else { throw CancellationError() }
            }
            variants.append(("telemetry", "mend", "mend-telemetry"))
        #endif

        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "count" {
            // N sequential requests of one side only: instructions per request under callgrind are the difference between
            // two counts divided by the difference in N (start-up cancels out).
            guard arguments.count == 3, let operation = operations[arguments[1]], let count = Int(arguments[2]) else {
                print(
                    "usage: MendHTTPBenchmark count raw|mend|mend-bare|transport|raw-decode|mend-decode|mend-bearer|"
                        + "mend-dpop|mend-dpop-rebuilt|mend-telemetry N"
                )
                exit(64)
            }
            try await operation()  // connect first, outside the count's difference
            for _ in 0..<count { try await operation() }
            try await server.close()
            try await client.shutdown()
            return
        }

        let numbers = arguments.map(Int.init)
        let requestsPerRound = max(64, (numbers.first ?? nil) ?? 1000)
        let pairs = max(1, (numbers.dropFirst().first ?? nil) ?? 21)
        let secondsPerConcurrency = max(1, (numbers.dropFirst(2).first ?? nil) ?? 30)

        print(
            "MendHTTP pipeline vs raw AsyncHTTPClient, loopback: up to \(pairs) interleaved pairs of short rounds per "
                + "variant and concurrency (each pair alternates which side goes first), at most \(secondsPerConcurrency) s "
                + "each")
        for (variant, rawName, mendName) in variants {
            let raw = operations[rawName]!
            let piped = operations[mendName]!
            for concurrency in [1, 64] {
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
                    "\(variant), "
                        + String(
                            format: "concurrency %d: %d pairs of %d-request rounds in %.1f s", concurrency,
                            rawRounds.count,
                            roundSize, elapsed))
                let names = variant == "telemetry" ? ("Mend", "+OTel") : ("raw ", "Mend")
                for (name, rounds) in [(names.0, rawRounds), (names.1, mendRounds)] {
                    print(
                        "  \(name)"
                            + String(
                                format:
                                    "  median latency %7.1f µs   p99 %7.1f µs   %8.0f req/s   (medians over the rounds)",
                                median(rounds.map(\.medianMicros)), median(rounds.map(\.p99Micros)),
                                median(rounds.map(\.requestsPerSecond))))
                }
                let ratio = variant == "telemetry" ? "observed / unobserved" : "Mend / raw"
                print("  latency ratio    (\(ratio) median latency, per pair): \(spread(latencyRatios))")
                print("  throughput ratio (\(ratio) requests per second, per pair): \(spread(throughputRatios))")
            }
        }
        try await server.close()
        try await client.shutdown()
    }
}
