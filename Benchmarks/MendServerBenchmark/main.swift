// Prints the throughput and latency of `mend-server`'s `GET /v1/session` at 64 connections as a ratio against a bare
// Hummingbird "hello" route, live on loopback in the same run and driven by the same AsyncHTTPClient load generator,
// for SQLite and PostgreSQL and for EdDSA and ES256 session keys; then the login (code exchange against the emulator)
// and refresh figures, and what a session check costs piece by piece.
//
//   swift run -c release --traits Server --scratch-path .build-server MendServerBenchmark [requests-per-round] [rounds]
//
// MEND_BENCH_POSTGRES_URL=postgres://user@127.0.0.1:port/database adds PostgreSQL (skipped, saying so, without it).
// MEND_BENCH_SESSIONS_ONLY=es256|eddsa runs only the session checks below, for that key, on the first database;
// MEND_BENCH_STACK_ONLY=1 only mend-server's stack (`/health/live`) against hello; MEND_BENCH_COUNT=<route> N sends N
// sequential requests to one route, for callgrind (CountBenchmark.swift, scripts/count-server-instructions).
// Two session-check loads: (a) a realistic mix — 10,000 sessions, each request presenting one of their tokens in
// turn, so every token comes back every 10,000 requests (about twice a round, six times over the run), as a client
// presents its token on every API call of the token's lifetime; the verified-token cache's hit rate is printed — and
// (b) the worst case, every request a token never seen before, with the cache full at its bound (10,000 tokens) and
// evicting on every miss. MEND_TOKEN_CACHE_SIZE sizes the cache (10,000 by default: exactly the 10,000 sessions of
// (a)). Each figure carries the process's CPU time and context switches per request (servers and load generator
// together, so two routes of one run differ by their servers' share). A benchmark, not a test: it prints figures and
// never fails on them.
import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import JWTKit
import Logging
import MendClientTesting
import MendCore
import MendEmulator
import MendServer
import MendServing
import MendTesting
import NIOCore
import NIOHTTP1
import NIOPosix

let connections = 64
// README's `[requests-per-round] [rounds]`: at least one request per connection and one round (as MendHTTPBenchmark).
let requestsPerRound = max(connections, CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000)
let rounds = max(1, CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 3)
// 10,000 sessions presented in turn; fewer when a round has fewer requests (a short run's figures mean little anyway).
let distinctSessions = min(10_000, requestsPerRound)

struct Figures {
    var requestsPerSecond: Double
    var p50Micros: Double
    var p99Micros: Double
    /// The whole process's CPU time per request (servers and load generator together: routes compared in one run
    /// differ only by their server's share), and its kernel part.
    var cpuMicros = 0.0
    var systemMicros = 0.0
    /// The process's context switches per request, voluntary (a thread waiting: a lock, an empty queue) and not.
    var switches = 0.0
}

/// The process's CPU time (user, system, µs) and context switches so far.
func processUsage() -> (user: Double, system: Double, switches: Double) {
    var usage = rusage()
    #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return (micros(usage.ru_utime), micros(usage.ru_stime), Double(usage.ru_nvcsw + usage.ru_nivcsw))
}

/// `connections` workers, each on its own keep-alive connection, send `total` requests in all; request `i` carries
/// `headers(i)`.
func measure(
    client: HTTPClient, url: String, total: Int, headers: @escaping @Sendable (Int) -> HTTPHeaders = { _ in [:] }
) async throws -> Figures {
    @Sendable func once(_ index: Int) async throws {
        var request = HTTPClientRequest(url: url)
        request.headers = headers(index)
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw BenchmarkFailure(description: "\(url) answered \(response.status)") }
        _ = try await response.body.collect(upTo: 1 << 20)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<connections { group.addTask { for i in 0..<20 { try await once(worker * 20 + i) } } }
        try await group.waitForAll()
    }
    let perWorker = total / connections
    let usageBefore = processUsage()
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for worker in 0..<connections {
            group.addTask {
                var samples: [Double] = []
                samples.reserveCapacity(perWorker)
                for i in 0..<perWorker {
                    let begin = ContinuousClock.now
                    try await once(worker * perWorker + i)
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
    let usage = processUsage()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let count = Double(latencies.count)
    return Figures(
        requestsPerSecond: count / seconds, p50Micros: latencies[latencies.count / 2],
        p99Micros: latencies[latencies.count * 99 / 100],
        cpuMicros: (usage.user - usageBefore.user + usage.system - usageBefore.system) / count,
        systemMicros: (usage.system - usageBefore.system) / count,
        switches: (usage.switches - usageBefore.switches) / count)
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a bare Hummingbird app with one "hello" route on 127.0.0.1:0 for the duration of `body`.
func withHelloServer<T>(_ body: (Int) async throws -> T) async throws -> T {
    guard #available(macOS 14, iOS 17, tvOS 17, *) else { throw ServerRequiresNewerSystem(serverName: "the hello app") }
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
        + (figures.cpuMicros > 0
            ? String(
                format: "   CPU %5.1f µs (kernel %4.1f), %4.2f switches", figures.cpuMicros, figures.systemMicros,
                figures.switches) : "")
}

func micros(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

var clientConfiguration = HTTPClient.Configuration()
clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)

let postgresURL = ProcessInfo.processInfo.environment["MEND_BENCH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
let databases: [(name: String, url: String)] =
    [("SQLite", "sqlite::memory:")] + (postgresURL.map { [("PostgreSQL", $0)] } ?? [])
print("MendServerBenchmark: GET /v1/session vs a bare Hummingbird route, \(connections) connections,")
print("\(requestsPerRound) requests per round, \(rounds) rounds, \(distinctSessions) distinct sessions")
if postgresURL == nil { print("PostgreSQL skipped: set MEND_BENCH_POSTGRES_URL to include it") }

/// POSTs a JSON body; returns the JSON answer.
func postJSON(_ url: String, _ body: String) async throws -> [String: Any] {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(string: body))
    let response = try await client.execute(request, timeout: .seconds(30))
    let data = try await response.body.collect(upTo: 1 << 20)
    guard response.status == .ok,
        let json = try JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any]
    else { throw BenchmarkFailure(description: "\(url) answered \(response.status): \(String(buffer: data))") }
    return json
}

/// Latency figures of `samples` (µs) over `elapsed`.
func figures(_ samples: [Double], elapsed: Duration) -> Figures {
    let sorted = samples.sorted()
    return Figures(
        requestsPerSecond: Double(sorted.count) / (micros(elapsed) / 1e6), p50Micros: sorted[sorted.count / 2],
        p99Micros: sorted[sorted.count * 99 / 100])
}

/// One database, one signing algorithm: the session check against hello (view, and the database read it replaced).
func benchmarkSessionChecks(
    database: (name: String, url: String), algorithm: SigningKeyConfiguration.Algorithm, helloPort: Int
) async throws -> Double {
    try await withFreshEmulator { emulator in
        var configuration = ServerConfiguration.forEmulator(emulator)
        configuration.storage.databaseURL = database.url
        configuration.sessions.rateLimits = .unlimited
        configuration.sessions.signingKeys = [
            .generate(keyID: "bench-\(algorithm.rawValue.lowercased())", algorithm: algorithm)
        ]
        // MEND_TOKEN_CACHE_SIZE sizes the verified-token cache as it does mend-server's (10,000 by default).
        if let size = ProcessInfo.processInfo.environment["MEND_TOKEN_CACHE_SIZE"].flatMap(Int.init) {
            configuration.sessions.verifiedTokenCacheSize = size
        }
        return try await withMendServer(configuration: configuration) { server in
            let login = try await postJSON(
                server.url("/v1/login/code").absoluteString, try await emulator.loginCodeBody().jsonText())
            guard let access = login["access_token"] as? String else { throw BenchmarkFailure(description: "login") }
            let minted = try SessionTokens(like: access, configuration: configuration.sessions.signingKeys[0])
            let tokens = try minted.make(count: distinctSessions)
            let bearers = tokens.map { token -> HTTPHeaders in
                var headers = HTTPHeaders()
                headers.add(name: "Authorization", value: "Bearer \(token)")
                return headers
            }
            // PostgreSQL: let the revocation feed catch up before measuring (checks read the database until then).
            try await Task.sleep(for: .seconds(1))
            let sessionURL = server.url("/v1/session").absoluteString
            var ratios: [Double] = []
            var coldRatios: [Double] = []
            print("\n\(database.name), \(algorithm.rawValue) session keys")
            // (a) starts as a running service would be: every session has presented its token more than once (the
            // verified-token cache takes a token the second time it verifies).
            _ = try await measure(client: client, url: sessionURL, total: 2 * distinctSessions) {
                bearers[$0 % bearers.count]
            }
            for round in 1...rounds {
                let hello = try await measure(
                    client: client, url: "http://127.0.0.1:\(helloPort)/hello", total: requestsPerRound)
                let (hitsBefore, missesBefore) = (cacheCount(server, "hit"), cacheCount(server, "miss"))
                let session = try await measure(client: client, url: sessionURL, total: requestsPerRound) {
                    bearers[$0 % bearers.count]
                }
                let hits = cacheCount(server, "hit") - hitsBefore
                let misses = cacheCount(server, "miss") - missesBefore
                let live = try await measure(
                    client: client, url: server.url("/health/live").absoluteString, total: requestsPerRound)
                let ratio = session.requestsPerSecond / hello.requestsPerSecond
                ratios.append(ratio)
                print("round \(round)")
                print("  hello                                   \(format(hello))")
                print("  GET /health/live (mend-server's stack)  \(format(live))")
                print("  GET /v1/session (a) 10,000 sessions     \(format(session))")
                print(
                    String(
                        format: "      verified-token cache: %.1f%% hits (%d hits, %d misses)",
                        100 * Double(hits) / Double(max(1, hits + misses)), hits, misses))
                print(
                    String(
                        format: "  ratio %.2f of hello's throughput (p50 x%.1f, p99 x%.1f)",
                        ratio, session.p50Micros / hello.p50Micros, session.p99Micros / hello.p99Micros))
            }
            // (b) The worst case, after (a): fresh tokens, each presented once, the cache full and evicting — with ES256
            // keys against the stateless jwt-kit ES256 route (the peer of issue 42) in the same round.
            let peerKeys = JWTKeyCollection()
            var peerTokens: [String] = []
            if algorithm == .es256 {
                await peerKeys.add(ecdsa: ES256PrivateKey())
                peerTokens = try await signedPeerTokens(keys: peerKeys, count: distinctSessions)
            }
            // The same route given tokens with a mend-server access token's members and lengths (the peer's own carry a
            // subject and an expiry): what the token's size alone costs it.
            let sizedTokens =
                algorithm == .es256
                ? try await sizedPeerTokens(like: access, keys: peerKeys, count: distinctSessions) : []
            func bearerHeaders(_ tokens: [String]) -> [HTTPHeaders] {
                tokens.map { token -> HTTPHeaders in
                    var headers = HTTPHeaders()
                    headers.add(name: "Authorization", value: "Bearer \(token)")
                    return headers
                }
            }
            let peerHeaders = bearerHeaders(peerTokens)
            let sizedHeaders = bearerHeaders(sizedTokens)
            var peerRatios: [Double] = []
            var sizedRatios: [Double] = []
            try await withJWTKitPeer(keys: peerKeys) { peerPort in
                for round in 1...rounds {
                    let fresh = try minted.make(count: requestsPerRound + connections * 20).map {
                        token -> HTTPHeaders in
                        var headers = HTTPHeaders()
                        headers.add(name: "Authorization", value: "Bearer \(token)")
                        return headers
                    }
                    if round == 1 {
                        let sample = try minted.make(count: 5_000)
                        let elapsed = ContinuousClock().measure {
                            for token in sample where !minted.verifies(token) { fatalError("a token did not verify") }
                        }
                        print(
                            String(
                                format: "  in process, per token never seen: signature verification %.1f µs",
                                micros(elapsed) / Double(sample.count)))
                    }
                    let hello = try await measure(
                        client: client, url: "http://127.0.0.1:\(helloPort)/hello", total: requestsPerRound)
                    let hitsBefore = cacheCount(server, "hit")
                    let next = Locked(0)  // warm-up and measured requests alike take the next unused token
                    let cold = try await measure(client: client, url: sessionURL, total: requestsPerRound) { _ in
                        fresh[
                            next.withLock { index in
                                defer { index += 1 }
                                return index
                            }]
                    }
                    coldRatios.append(cold.requestsPerSecond / hello.requestsPerSecond)
                    print("round \(round), (b)")
                    print("  hello                                   \(format(hello))")
                    print("  GET /v1/session (b) every token new     \(format(cold))")
                    print(
                        String(
                            format: "      %d hits, the cache of %d tokens; ratio %.2f of hello's throughput",
                            cacheCount(server, "hit") - hitsBefore, configuration.sessions.verifiedTokenCacheSize,
                            cold.requestsPerSecond / hello.requestsPerSecond))
                    guard !peerHeaders.isEmpty else { continue }
                    /// The jwt-kit route with `sets` in turn, printed against hello and (b); its ratio to hello.
                    func peerRound(_ sets: [HTTPHeaders], _ label: String, _ quotient: String) async throws -> Double {
                        let peer = try await measure(
                            client: client, url: "http://127.0.0.1:\(peerPort)/check", total: requestsPerRound
                        ) { sets[$0 % sets.count] }
                        let ratio = peer.requestsPerSecond / hello.requestsPerSecond
                        print("  \(label.padding(toLength: 40, withPad: " ", startingAt: 0))\(format(peer))")
                        print(
                            "      ratio " + String(format: "%.2f", ratio) + " of hello's; every-token-new check ÷ "
                                + quotient + String(format: " %.2f", cold.requestsPerSecond / peer.requestsPerSecond))
                        return ratio
                    }
                    peerRatios.append(try await peerRound(peerHeaders, "jwt-kit ES256 route (stateless peer)", "peer"))
                    sizedRatios.append(
                        try await peerRound(sizedHeaders, "the same, tokens of mend-server's size", "this"))
                }
            }
            if !peerRatios.isEmpty {
                print(
                    "median ratio, stateless jwt-kit ES256 peer (same rounds as (b)): "
                        + String(format: "%.2f", peerRatios.sorted()[peerRatios.count / 2])
                        + String(
                            format: "; with tokens of mend-server's size: %.2f",
                            sizedRatios.sorted()[sizedRatios.count / 2]))
            }
            let median = ratios.sorted()[ratios.count / 2]
            let coldMedian = coldRatios.sorted()[coldRatios.count / 2]
            print(
                "median ratio, \(database.name), \(algorithm.rawValue): "
                    + String(format: "%.2f (a), %.2f (b, every token new)", median, coldMedian))
            return median
        }
    }
}

/// mend-server's stack alone: `GET /health/live` (no token, no database) against hello, interleaved round by round.
func benchmarkStack(helloPort: Int) async throws {
    try await withFreshEmulator { emulator in
        var configuration = ServerConfiguration.forEmulator(emulator)
        configuration.sessions.rateLimits = .unlimited
        try await withMendServer(configuration: configuration) { server in
            let live = server.url("/health/live").absoluteString
            let hello = "http://127.0.0.1:\(helloPort)/hello"
            _ = try await measure(client: client, url: hello, total: requestsPerRound)
            _ = try await measure(client: client, url: live, total: requestsPerRound)
            var ratios: [Double] = []
            print("\nmend-server's stack alone (GET /health/live) against hello, \(rounds) rounds:")
            for round in 1...rounds {
                let first = round.isMultiple(of: 2) ? live : hello
                let second = first == live ? hello : live
                let a = try await measure(client: client, url: first, total: requestsPerRound)
                let b = try await measure(client: client, url: second, total: requestsPerRound)
                let (stack, bare) = first == live ? (a, b) : (b, a)
                ratios.append(stack.requestsPerSecond / bare.requestsPerSecond)
                print("  round \(round): hello \(format(bare))")
                print("           live  \(format(stack))   ratio " + String(format: "%.2f", ratios.last!))
            }
            print("median ratio, stack alone: " + String(format: "%.2f", ratios.sorted()[ratios.count / 2]))
        }
    }
}

/// The server's `mend_access_token_cache_total{outcome=…}` so far.
func cacheCount(_ server: RunningMendServer, _ outcome: String) -> Int {
    let prefix = "mend_access_token_cache_total{outcome=\"\(outcome)\"} "
    let line = server.backend.metrics.render().split(separator: "\n").first { $0.hasPrefix(prefix) }
    return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
}

/// Logins (the code exchange against the emulator, codes fetched beforehand) and refreshes (each client rotating
/// its own session), 16 at a time.
func benchmarkLoginAndRefresh(database: (name: String, url: String)) async throws {
    try await withFreshEmulator { emulator in
        var configuration = ServerConfiguration.forEmulator(emulator)
        configuration.storage.databaseURL = database.url
        configuration.sessions.rateLimits = .unlimited
        try await withMendServer(configuration: configuration) { server in
            let concurrency = 16
            let logins = 480
            var bodies: [String] = []
            for _ in 0..<logins { bodies.append(try await emulator.loginCodeBody().jsonText()) }
            let loginURL = server.url("/v1/login/code").absoluteString
            let loginStart = ContinuousClock.now
            let loginResults = try await withThrowingTaskGroup(of: ([Double], [String]).self) { group in
                for worker in 0..<concurrency {
                    let mine = stride(from: worker, to: logins, by: concurrency).map { bodies[$0] }
                    group.addTask {
                        var samples: [Double] = []
                        var refreshTokens: [String] = []
                        for body in mine {
                            let begin = ContinuousClock.now
                            let json = try await postJSON(loginURL, body)
                            samples.append(micros(ContinuousClock.now - begin))
                            refreshTokens.append(json["refresh_token"] as? String ?? "")
                        }
                        return (samples, refreshTokens)
                    }
                }
                var all: [([Double], [String])] = []
                for try await result in group { all.append(result) }
                return all
            }
            print(
                "\n\(database.name) login (code exchange with the emulator), \(concurrency) at a time: "
                    + format(figures(loginResults.flatMap(\.0), elapsed: ContinuousClock.now - loginStart)))
            let refreshURL = server.url("/v1/session/refresh").absoluteString
            let perClient = 30
            let refreshStart = ContinuousClock.now
            let refreshSamples = try await withThrowingTaskGroup(of: [Double].self) { group in
                for (worker, result) in loginResults.enumerated() where worker < concurrency {
                    let first = result.1[0]
                    group.addTask {
                        var token = first
                        var samples: [Double] = []
                        for _ in 0..<perClient {
                            let begin = ContinuousClock.now
                            let json = try await postJSON(refreshURL, #"{"refresh_token":"\#(token)"}"#)
                            samples.append(micros(ContinuousClock.now - begin))
                            token = json["refresh_token"] as? String ?? ""
                        }
                        return samples
                    }
                }
                var all: [Double] = []
                for try await samples in group { all += samples }
                return all
            }
            print(
                "\(database.name) refresh (rotation), \(concurrency) at a time:                      "
                    + format(figures(refreshSamples, elapsed: ContinuousClock.now - refreshStart)))
        }
    }
}

/// What a session check's verification costs, in process at 64 concurrent tasks: jwt-kit's key collection (an
/// actor, as mend-server verified before) against swift-crypto's keys on the caller's thread (as it verifies now).
func benchmarkVerification() async throws {
    try await withFreshEmulator { emulator in
        var configuration = ServerConfiguration.forEmulator(emulator)
        configuration.sessions.rateLimits = .unlimited
        let key = SigningKeyConfiguration.generate(keyID: "cost")
        configuration.sessions.signingKeys = [key]
        try await withMendServer(configuration: configuration) { server in
            let login = try await postJSON(
                server.url("/v1/login/code").absoluteString, try await emulator.loginCodeBody().jsonText())
            guard let access = login["access_token"] as? String else { throw BenchmarkFailure(description: "login") }
            let collection = JWTKeyCollection()
            let backing = try Curve25519.Signing.PrivateKey(
                rawRepresentation: Data(base64Encoded: base64(key.privateKey.value))!)
            await collection.add(eddsa: EdDSA.PublicKey(backing: backing.publicKey), kid: JWKIdentifier(string: "cost"))
            let perTask = 2_000
            func run(_ name: String, _ verify: @escaping @Sendable () async -> Bool) async throws {
                let start = ContinuousClock.now
                let ok = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<connections {
                        group.addTask {
                            var all = true
                            for _ in 0..<perTask { all = await verify() && all }
                            return all
                        }
                    }
                    return await group.reduce(true) { $0 && $1 }
                }
                guard ok else { throw BenchmarkFailure(description: "\(name) refused a valid token") }
                let total = Double(connections * perTask)
                let seconds = micros(ContinuousClock.now - start) / 1e6
                let padded = name.padding(toLength: 58, withPad: " ", startingAt: 0)
                print("  \(padded) " + String(format: "%9.0f verifications/s", total / seconds))
            }
            print("\nVerification alone, in process, \(connections) concurrent tasks (EdDSA):")
            try await run("jwt-kit JWTKeyCollection (one actor, the old path's kind)") {
                (try? await collection.verify(access, as: BenchmarkClaims.self)) != nil
            }
            let minted = try SessionTokens(like: access, configuration: key)
            try await run("MendJOSE's key ring, no actor (mend-server now)") { minted.verifies(access) }
        }
    }
}

/// Standard base64 of base64url text.
func base64(_ base64url: String) -> String {
    var text = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    return text
}

/// The claims jwt-kit decodes (signature checked by the collection; nothing else here).
struct BenchmarkClaims: JWTPayload {
    var sub: String
    var sid: String
    var exp: Int64
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A fresh emulator: a random seed, so that its codes never repeat those an earlier run left in a PostgreSQL database
/// (the server would refuse them as replayed).
func withFreshEmulator<T>(_ body: (RunningEmulator) async throws -> T) async throws -> T {
    try await withEmulator(configuration: EmulatorConfiguration(seed: UInt64.random(in: 1...UInt64.max)), body)
}

/// The benchmark, outside the main actor (top-level code is main-actor isolated; the harnesses are not).
func runBenchmark() async throws {
    if let count = ProcessInfo.processInfo.environment["MEND_BENCH_DPOP_VERIFY"].flatMap(Int.init) {
        try await benchmarkProofCosts(count: count)
        return
    }
    if let only = ProcessInfo.processInfo.environment["MEND_BENCH_SESSIONS_ONLY"] {
        // The session checks alone, (a) and (b), for one algorithm (`es256` or `eddsa`) on the first database.
        let algorithm: SigningKeyConfiguration.Algorithm = only.lowercased() == "eddsa" ? .eddsa : .es256
        try await withHelloServer { helloPort in
            _ = try await benchmarkSessionChecks(database: databases[0], algorithm: algorithm, helloPort: helloPort)
        }
        return
    }
    if ProcessInfo.processInfo.environment["MEND_BENCH_STACK_ONLY"] != nil {
        try await withHelloServer { helloPort in try await benchmarkStack(helloPort: helloPort) }
        return
    }
    var medians: [String] = []
    var dpop: [String] = []
    try await withHelloServer { helloPort in
        dpop = try await benchmarkDPoP(helloPort: helloPort)
        if ProcessInfo.processInfo.environment["MEND_BENCH_DPOP_ONLY"] != nil { return }
        for database in databases {
            for algorithm in [SigningKeyConfiguration.Algorithm.eddsa, .es256] {
                let median = try await benchmarkSessionChecks(
                    database: database, algorithm: algorithm, helloPort: helloPort)
                let name = database.name.padding(toLength: 11, withPad: " ", startingAt: 0)
                let key = algorithm.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
                medians.append("  \(name) \(key) " + String(format: "%.2f", median))
            }
        }
    }
    print("\nDPoP, median throughput ratio against bare Hummingbird (the same rounds):")
    for line in dpop { print(line) }
    if ProcessInfo.processInfo.environment["MEND_BENCH_DPOP_ONLY"] != nil { return }
    for database in databases { try await benchmarkLoginAndRefresh(database: database) }
    try await benchmarkVerification()
    print("\nGET /v1/session, median throughput ratio against bare Hummingbird:")
    for line in medians { print(line) }
}

let counting = ProcessInfo.processInfo.environment["MEND_BENCH_COUNT"] != nil
if counting, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
    // Under valgrind, libdispatch starts no worker threads: the run's task tree (the servers', the load generator's)
    // prefers one thread of its own, where a job runs on the generic executor as on Swift's pool; the few unstructured
    // tasks SwiftNIO and Hummingbird start go to SwiftNIO's event loops, installed as the global executor.
    precondition(NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor())
}
// A synchronous wait for the async run: valgrind cannot follow `dispatch_main`, which an async top level ends in.
runDetachedAndWait(onOneThread: counting) {
    do {
        if let countRoute = ProcessInfo.processInfo.environment["MEND_BENCH_COUNT"] {
            try await benchmarkCount(route: countRoute, requests: requestsPerRound)
        } else {
            try await runBenchmark()
        }
    } catch {
        print("benchmark failed: \(error)")
    }
    try? await client.shutdown().get()
}
