import Crypto
import Foundation
import MendCore
import MendEmulator
import MendLogin
@_spi(MendFuzzing) import MendSignedRequest
import MendTesting
import SQLKit
import Testing

@testable import MendServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The session torture test: several client processes (each with several `CredentialsManager`s) and the real `mend`
/// binary share one session file and do random operations — valid token, refresh, validity check, whoami, logout,
/// login — with a seeded generator, while access tokens expire every two seconds, a fault proxy in front of
/// `mend-server` fails refreshes and validity checks (503, a connection dropped before or after the server
/// committed, an answer held past the client's timeout), the emulator fails logins, client processes are paused
/// (SIGSTOP) past token lifetimes, and — on purpose — a spent refresh token is replayed and the provider revokes the
/// app. After every step the invariants are read from the server's database and from the store:
///
/// - nobody is signed out unless they logged out or the provider/a replay revoked them;
/// - no session family is revoked unless a logout, a real replay or the provider did it;
/// - after a logout the refresh token is refused;
/// - the store never holds a refresh token that cannot be recovered (unrotated, or rotated with an unused successor
///   inside the grace window);
/// - no operation fails with anything but a transient error, "not logged in" after a logout, or the reason of a
///   purposeful revocation;
/// - at the end every manager of every process is on the same session.
///
/// It runs twice: with the default maximum session lifetime (90 days, never reached), and with one of 8 seconds, so
/// that sessions keep reaching it (session/15) while everything else goes on — a session past its maximum lifetime
/// is one more purposeful end: the client signs out, and nothing else may.
///
/// `MEND_TORTURE_STEPS` (default 200 per run: about a minute each) and `MEND_TORTURE_SEED` set the runs; the figures
/// are printed.
@Suite("Session torture", .enabled(if: TortureClient.url != nil && MendExecutable.url != nil))
struct SessionTortureTests {
    @Test(
        "Processes, managers, faults and time: sessions are never lost",
        arguments: [TortureRun.defaultMaximumLifetime, 8])
    func torture(maximumLifetime: Int) async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["MEND_TORTURE_SEED"].flatMap(UInt64.init) ?? 20_261_123
        let steps = environment["MEND_TORTURE_STEPS"].flatMap(Int.init) ?? 200
        let report = try await TortureRun(seed: seed, steps: steps, maximumLifetime: maximumLifetime).run()
        print(report.summary)
        #expect(report.violations.isEmpty, "\(report.violations.prefix(10).joined(separator: "\n"))")
        for (name, count) in report.coverage where count == 0 {
            Issue.record("the run never exercised \(name) (seed \(seed), \(steps) steps)")
        }
    }
}

/// The client executable (Tests/SessionTortureClient).
enum TortureClient {
    static var url: URL? { BuiltExecutable.url(named: "MendSessionTortureClient") }
}

/// A deterministic generator (SplitMix64), so that a seed names a run.
typealias SeededGenerator = SplitMix64

/// One answer of a client process.
struct TortureAnswer: Decodable, Sendable {
    var id: Int
    var ok: Bool
    var loggedIn: Bool
    var family: String?
    var refreshToken: String?
    var error: String?
    var errorName: String?
    var category: String?
    var revoked: Bool?
    var revocationError: String?
}

/// A running client process and its pending requests.
final class TortureProcess: @unchecked Sendable {
    // Safe: `pending` and `nextID` are only touched under `lock`.
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var pending: [Int: CheckedContinuation<TortureAnswer, Never>] = [:]
    private var nextID = 0
    let index: Int

    init(index: Int, arguments: [String]) throws {
        self.index = index
        process.executableURL = TortureClient.url
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        Thread { [weak self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer.removeSubrange(buffer.startIndex...newline)
                    if let answer = try? JSONDecoder().decode(TortureAnswer.self, from: Data(line)) {
                        self?.resolve(answer)
                    }
                }
            }
            self?.failAll()
        }.start()
    }

    private func resolve(_ answer: TortureAnswer) {
        let continuation = lock.withLock { pending.removeValue(forKey: answer.id) }
        continuation?.resume(returning: answer)
    }

    private func failAll() {
        let all = lock.withLock {
            let all = pending
            pending = [:]
            return all
        }
        for (id, continuation) in all {
            continuation.resume(returning: TortureAnswer(id: id, ok: false, loggedIn: false, error: "process ended"))
        }
    }

    /// Sends an operation and waits for its answer.
    func send(_ op: String, manager: Int, minTTL: Double? = nil) async -> TortureAnswer {
        await withCheckedContinuation { continuation in
            let id: Int = lock.withLock {
                nextID += 1
                pending[nextID] = continuation
                return nextID
            }
            var command: [String: Any] = ["id": id, "op": op, "manager": manager]
            if let minTTL { command["minTTL"] = minTTL }
            let data = (try? JSONSerialization.data(withJSONObject: command)) ?? Data()
            input.fileHandleForWriting.write(data + Data("\n".utf8))
        }
    }

    func stop() {
        input.fileHandleForWriting.write(Data("{\"id\":0,\"op\":\"quit\"}\n".utf8))
        try? input.fileHandleForWriting.close()
    }
}

/// The whole run: the emulator, mend-server, the fault proxy, the processes, the generator and the oracle.
struct TortureRun {
    let seed: UInt64
    let steps: Int
    /// The sessions' maximum lifetime, in seconds (`MEND_SESSION_MAX_TTL`).
    let maximumLifetime: Int

    /// The server's default maximum lifetime (90 days), in seconds: never reached in a run.
    static let defaultMaximumLifetime = Int(ServerConfiguration.Sessions().maximumLifetime.seconds)

    /// Whether sessions reach their maximum lifetime within a run.
    var lifetimeIsShort: Bool { maximumLifetime < 3600 }

    struct Report {
        var summary: String
        var violations: [String]
        var coverage: [(String, Int)]
    }

    /// What the client processes can do.
    enum Operation: String, CaseIterable {
        case validToken, refresh, checkValidity, whoami, logout, login
        case cliWhoami = "mend whoami", cliRefresh = "mend token refresh", cliLogout = "mend logout",
            cliLogin = "mend login"
    }

    /// One step.
    enum Action {
        case login(viaCLI: Bool, failing: Bool)
        case replay, deauthorize, pause
        /// Waits until the current session is past its maximum lifetime (short lifetimes only).
        case outliveLifetime
        case batch([Operation])
    }

    /// Draws a step: mostly one to four session operations at once (sometimes a logout, sometimes through the
    /// `mend` binary), sometimes a login, a replay, a revocation by the provider or a paused process.
    func draw(_ generator: inout SeededGenerator, loggedIn: Bool) -> Action {
        let roll = Double.random(in: 0..<1, using: &generator)
        switch roll {
        case ..<0.03: return .login(viaCLI: Bool.random(using: &generator), failing: roll < 0.005)
        case ..<0.045 where loggedIn: return .replay
        case ..<0.055 where loggedIn: return .deauthorize
        case ..<0.062: return .pause
        default: break
        }
        let width = Int.random(in: 1...4, using: &generator)
        return .batch(
            (0..<width).map { _ in
                let viaCLI = Double.random(in: 0..<1, using: &generator) < 0.08
                switch Double.random(in: 0..<1, using: &generator) {
                case ..<0.30: return viaCLI ? .cliWhoami : .validToken
                case ..<0.55: return viaCLI ? .cliRefresh : .refresh
                case ..<0.75: return .checkValidity
                case ..<0.985: return viaCLI ? .cliWhoami : .whoami
                default: return viaCLI ? .cliLogout : .logout
                }
            })
    }

    static let processes = 3
    static let managersPerProcess = 2
    static let accessTokenLifetime = 2
    static let faultProbability = 0.15
    /// How far the server's clock runs ahead of the clients' (DPoP: every proof's `iat` is off by as much, so each
    /// process is asked for a nonce that vouches for its proofs' time), and the server requires nonces.
    static let serverClockAhead: TimeInterval = 600
    /// The server's time, as the oracle reads it.
    static var serverNow: Int64 { Int64(Date().timeIntervalSince1970 + serverClockAhead) }

    func run() async throws -> Report {
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.sessions.accessTokenLifetime = .seconds(Self.accessTokenLifetime)
            configuration.sessions.maximumLifetime = .seconds(maximumLifetime)
            // Two-second tokens refresh far more often than the default per-user limit expects of 15-minute ones.
            configuration.sessions.rateLimits.refreshPerUser = nil
            configuration.sessions.rateLimits.refreshPerAddress = nil
            // DPoP on, with its hard cases: nonces required, and a server clock ten minutes ahead of the clients'.
            let clock = OffsetClock()
            clock.advance(by: Self.serverClockAhead)
            configuration.clock = clock.pipeline()
            configuration.sessions.dpopRequiresNonce = true
            return try await withMendServer(configuration: configuration) { server in
                let faults = FaultDice(seed: seed &+ 1, probability: Self.faultProbability)
                return try await FaultProxy.withProxy(
                    upstream: server.baseURL, holdTime: .seconds(3),
                    decide: { request in
                        let faulted =
                            (request.method == "POST" && request.path.hasPrefix("/v1/session/refresh"))
                            || (request.method == "GET" && request.path == "/v1/session")
                        return faulted ? faults.roll() : nil
                    }
                ) { proxy in
                    try await runClients(emulator: emulator, server: server, proxy: proxy)
                }
            }
        }
    }

    private func runClients(
        emulator: RunningEmulator, server: RunningMendServer, proxy: FaultProxy
    ) async throws
        -> Report
    {
        let directory = temporaryDirectory()
        let appID = emulator.emulator.configuration.defaultApp.id
        try JSONSerialization.data(withJSONObject: [
            "provider": "facebook", "appID": appID, "baseURL": emulator.baseURL.absoluteString,
            "backend": proxy.baseURL.absoluteString, "version": emulator.emulator.configuration.graphVersion,
        ]).write(to: directory.appendingPathComponent("profile.json"))
        let processes = try (0..<Self.processes).map { index in
            try TortureProcess(
                index: index,
                arguments: [
                    "--state-directory", directory.path, "--backend", proxy.baseURL.absoluteString, "--provider",
                    emulator.baseURL.absoluteString, "--app-id", appID, "--managers", String(Self.managersPerProcess),
                    "--attempt-timeout", "1.5",
                ])
        }
        defer { for process in processes { process.stop() } }
        var oracle = Oracle(
            server: server, store: FileTokenStore(url: directory.appendingPathComponent("session.json")),
            grace: server.backend.configuration.sessions.refreshReuseGrace, maximumLifetime: Int64(maximumLifetime))
        var generator = SeededGenerator(seed: seed)
        let started = ContinuousClock.now
        let cli = CLI(directory: directory, emulator: emulator, backend: proxy.baseURL)

        // Log in first.
        var first = await processes[0].send("login", manager: 0)
        while !first.ok {
            first = await processes[0].send("login", manager: 0)
        }
        try await oracle.loggedIn()

        // Every rare action happens at least once, at fixed steps; the rest is drawn.
        let forced: [Action] =
            [
                .batch([.cliLogout]), .login(viaCLI: true, failing: false), .batch([.cliRefresh, .refresh]),
                .batch([.cliWhoami, .whoami]), .replay, .deauthorize, .pause, .login(viaCLI: false, failing: true),
            ] + (lifetimeIsShort ? [.outliveLifetime] : [])
        let forcedSteps = Dictionary(
            uniqueKeysWithValues: forced.enumerated().map { (($0.offset + 1) * steps / (forced.count + 1), $0.element) }
        )

        // The slowest steps, for the summary: a step that waits on a timeout shows here (a CI run once took 397 s
        // for what usually takes 70).
        var slowest: [(step: Int, action: String, duration: Duration)] = []
        for step in 1...steps {
            let stepStarted = ContinuousClock.now
            var stepAction = "?"
            defer {
                slowest.append((step, stepAction, ContinuousClock.now - stepStarted))
                slowest = Array(slowest.sorted { $0.duration > $1.duration }.prefix(3))
            }
            let before = try await oracle.snapshot()
            let forcedAction = forcedSteps[step]
            var action = forcedAction ?? draw(&generator, loggedIn: before.stored != nil)
            // Logged out, a drawn batch is mostly a login instead; a forced step stays what it is (a forced
            // `mend logout` replaced by a login left a 2,000-step run without one: seed 20261128).
            if forcedAction == nil, before.stored == nil, case .batch = action,
                Double.random(in: 0..<1, using: &generator) < 0.7
            {
                action = .login(viaCLI: false, failing: false)
            }
            stepAction = "\(action)".replacingOccurrences(
                of: "MendLoginIntegrationTests.TortureRun.Operation.", with: "")
            switch action {
            case .login(let viaCLI, let failing):
                // A login, alone: by a client process, or by `mend login`; sometimes the provider fails it.
                if failing {
                    try await emulator.inject(error: "graph/2", path: "/oauth/access_token", times: 1)
                    oracle.count("emulator fault on login")
                }
                let ok: Bool
                if viaCLI {
                    oracle.count(Operation.cliLogin.rawValue)
                    ok = try await cli.run(["login", "--headless"]) == 0
                } else {
                    oracle.count(Operation.login.rawValue)
                    let process = processes.randomElement(using: &generator)!
                    let answer = await process.send(
                        "login", manager: Int.random(in: 0..<Self.managersPerProcess, using: &generator))
                    ok = answer.ok
                    if !ok, answer.category != "transient" {
                        oracle.violation(step, "login failed with \(answer.error ?? "?") \(answer.errorName ?? "")")
                    }
                }
                if failing && ok { oracle.violation(step, "a login succeeded although the provider failed it") }
                if ok { try await oracle.loggedIn() }
            case .replay:
                // A replay of a spent refresh token of the current session: a stolen token used after its successor.
                if try await oracle.injectReplay(step: step, family: before.stored?.familyID) {
                    oracle.count("replay injected")
                }
            case .deauthorize:
                // The provider says the user removed the app (the deauthorize callback).
                try await oracle.deauthorize(step: step, appSecret: emulator.emulator.configuration.defaultApp.secret)
                oracle.count("provider revoked")
            case .outliveLifetime:
                // Nobody touches the session until it is past its maximum lifetime: the next operation ends it. (Logged
                // out at this step, a process logs in first, so that there is a session to outlive.)
                if before.stored == nil {
                    var answer = await processes[0].send("login", manager: 0)
                    while !answer.ok { answer = await processes[0].send("login", manager: 0) }
                    try await oracle.loggedIn()
                }
                if let family = try await oracle.snapshot().stored?.familyID,
                    let remaining = try await oracle.remainingLifetime(family)
                {
                    try await Task.sleep(for: .seconds(max(0, remaining) + 1))
                    oracle.count("session outlived its maximum lifetime")
                }
            case .pause:
                // A client process sleeps past a token lifetime while idle.
                let process = processes.randomElement(using: &generator)!
                kill(process.process.processIdentifier, SIGSTOP)
                try await Task.sleep(for: .milliseconds(2200))
                kill(process.process.processIdentifier, SIGCONT)
                oracle.count("process paused past a token lifetime")
            case .batch(let operations):
                // Operations at once, across processes and managers.
                let planned = operations.map { operation in
                    (
                        operation, processes.randomElement(using: &generator)!,
                        Int.random(in: 0..<Self.managersPerProcess, using: &generator),
                        Double([0, 1, 60].randomElement(using: &generator)!)
                    )
                }
                for operation in operations { oracle.count(operation.rawValue) }
                let hasLogout = operations.contains { $0 == .logout || $0 == .cliLogout }
                let results = await withTaskGroup(of: (Operation, TortureAnswer).self) { group in
                    for (operation, process, manager, minTTL) in planned {
                        group.addTask {
                            switch operation {
                            case .cliWhoami, .cliRefresh, .cliLogout, .cliLogin:
                                let arguments =
                                    operation == .cliWhoami
                                    ? ["whoami"] : operation == .cliRefresh ? ["token", "refresh"] : ["logout"]
                                let status = (try? await cli.run(arguments)) ?? -1
                                let answer = TortureAnswer(
                                    id: 0, ok: status == 0, loggedIn: status == 0,
                                    error: status == 0 ? nil : "exit \(status)")
                                return (operation, answer)
                            default:
                                return (
                                    operation, await process.send(operation.rawValue, manager: manager, minTTL: minTTL)
                                )
                            }
                        }
                    }
                    var results: [(Operation, TortureAnswer)] = []
                    for await result in group { results.append(result) }
                    return results
                }
                try await oracle.check(step: step, before: before, results: results, hasLogout: hasLogout)
            }
            try await oracle.checkStore(step: step)
            if step.isMultiple(of: 1000) {
                print(
                    "session torture: step \(step) of \(steps), \(ContinuousClock.now - started), "
                        + "\(oracle.violations.count) violations, faults \(proxy.statistics.faults.values.reduce(0, +))"
                )
            }
        }

        // Convergence: log in if needed, then every manager of every process checks its session with the server.
        // With a short maximum lifetime the session may reach it during the check (a held answer alone takes 3 s):
        // then every manager must be signed out, and the convergence runs again on a new login (three rounds at most).
        for round in 1...3 {
            var remaining: Int64?
            if let family = try await oracle.snapshot().stored?.familyID {
                remaining = try await oracle.remainingLifetime(family)
            }
            if try await oracle.snapshot().stored == nil || remaining.map({ $0 < maximumLifetime / 2 }) == true {
                var answer = await processes[0].send("login", manager: 0)
                while !answer.ok { answer = await processes[0].send("login", manager: 0) }
                try await oracle.loggedIn()
            }
            let stored = try await oracle.snapshot().stored
            var failures: [String] = []
            for process in processes {
                for manager in 0..<Self.managersPerProcess {
                    var answer = await process.send("checkValidity", manager: manager)
                    var tries = 1
                    while !answer.ok, answer.category == "transient", tries < 10 {
                        answer = await process.send("checkValidity", manager: manager)
                        tries += 1
                    }
                    if !answer.ok || answer.family != stored?.familyID {
                        failures.append(
                            "process \(process.index) manager \(manager) ended on \(answer.family ?? "nothing") "
                                + "(\(answer.error ?? "ok")), the store on \(stored?.familyID ?? "nothing")")
                    }
                }
            }
            let final = try await oracle.snapshot().stored
            if final?.familyID != stored?.familyID {
                failures.append("the store changed during the final check")
            }
            if round < 3, !failures.isEmpty, try await oracle.lifetimeReached(stored?.familyID) { continue }
            for failure in failures { oracle.violation(steps, failure) }
            break
        }

        let elapsed = ContinuousClock.now - started
        let statistics = proxy.statistics
        var coverage = Operation.allCases.map { ($0.rawValue, oracle.counts[$0.rawValue, default: 0]) }
        coverage += FaultProxy.Fault.allCases.map { ("proxy fault \($0)", statistics.faults[$0, default: 0]) }
        coverage +=
            ([
                "emulator fault on login", "replay injected", "provider revoked",
                "process paused past a token lifetime",
            ] + (lifetimeIsShort ? ["session outlived its maximum lifetime", "maximum lifetime reached"] : []))
            .map { ($0, oracle.counts[$0, default: 0]) }
        let rotations = try await server.rotations()
        let summary = """
            session torture: seed \(seed), \(steps) steps in \(elapsed), \(Self.processes) processes × \
            \(Self.managersPerProcess) managers + the mend binary, access tokens of \(Self.accessTokenLifetime) s, \
            sessions of at most \(lifetimeIsShort ? "\(maximumLifetime) s" : "90 days")
              operations: \(coverage.prefix(Operation.allCases.count).map { "\($0.0) \($0.1)" }.joined(separator: ", "))
              faults: \(coverage.dropFirst(Operation.allCases.count).map { "\($0.0) \($0.1)" }.joined(separator: ", "))
              proxy forwarded \(statistics.forwarded) requests; refresh tokens rotated \(rotations); \
            violations \(oracle.violations.count)
              slowest steps: \(slowest.map { "\($0.step) \($0.action) \($0.duration)" }.joined(separator: "; "))
            """
        return Report(summary: summary, violations: oracle.violations, coverage: coverage)
    }
}

/// Picks proxy faults with a seeded generator.
final class FaultDice: @unchecked Sendable {
    // Safe: `generator` is only touched under `lock`.
    private let lock = NSLock()
    private var generator: SeededGenerator
    let probability: Double

    init(seed: UInt64, probability: Double) {
        generator = SeededGenerator(seed: seed)
        self.probability = probability
    }

    func roll() -> FaultProxy.Fault? {
        lock.withLock {
            guard Double.random(in: 0..<1, using: &generator) < probability else { return nil }
            return FaultProxy.Fault.allCases.randomElement(using: &generator)
        }
    }
}

/// Runs the real `mend` binary against the shared state folder.
struct CLI: Sendable {
    let directory: URL
    let emulator: RunningEmulator
    let backend: URL

    func run(_ arguments: [String]) async throws -> Int32 {
        var arguments = arguments + ["--state-directory", directory.path]
        if arguments.first == "login" {
            arguments += [
                "--base-url", emulator.baseURL.absoluteString, "--app-id",
                emulator.emulator.configuration.defaultApp.id,
                "--backend", backend.absoluteString,
            ]
        }
        return try await MendExecutable.run(arguments).status
    }
}

/// What the invariants are checked against: the server's database, the store, and what was done on purpose.
struct Oracle {
    let server: RunningMendServer
    let store: FileTokenStore
    let grace: Duration
    /// The sessions' maximum lifetime, in seconds.
    let maximumLifetime: Int64
    private(set) var violations: [String] = []
    private(set) var counts: [String: Int] = [:]
    /// Families (session ids) that a logout, a replay or the provider ended on purpose.
    private var endedOnPurpose: Set<String> = []
    /// Why the store may be empty: a logout or a revocation since the last login.
    private var signOutCause: String?
    /// Every refresh token the store held, in order (for replays).
    private var history: [String] = []

    /// The family the store held last (to tell, once the store is empty, whether its lifetime was over).
    private var lastFamily: String?

    init(server: RunningMendServer, store: FileTokenStore, grace: Duration, maximumLifetime: Int64) {
        self.server = server
        self.store = store
        self.grace = grace
        self.maximumLifetime = maximumLifetime
    }

    /// The seconds until the session `family` reaches its maximum lifetime (negative past it), from its stored
    /// creation time and the server's clock (``TortureRun/serverNow``); `nil` for an unknown session.
    func remainingLifetime(_ family: String) async throws -> Int64? {
        try await sql.raw("SELECT created_at FROM mend_sessions WHERE id = \(bind: family)").first()
            .map {
                try $0.decode(column: "created_at", as: Int64.self) + maximumLifetime - TortureRun.serverNow
            }
    }

    /// Marks `family` as ended on purpose if it is past its maximum lifetime (the server decided it at a time no
    /// later than now); whether it is.
    mutating func lifetimeReached(_ family: String?) async throws -> Bool {
        guard let family, let remaining = try await remainingLifetime(family), remaining <= 0 else { return false }
        if !endedOnPurpose.contains(family) {
            endedOnPurpose.insert(family)
            count("maximum lifetime reached")
        }
        signOutCause = signOutCause ?? "maximum lifetime"
        return true
    }

    struct Snapshot {
        var stored: Session?
    }

    mutating func count(_ name: String) { counts[name, default: 0] += 1 }

    mutating func violation(_ step: Int, _ text: String) { violations.append("step \(step): \(text)") }

    func snapshot() async throws -> Snapshot { Snapshot(stored: try await store.read()) }

    var sql: any SQLDatabase { server.sql }

    mutating func loggedIn() async throws {
        signOutCause = nil
        let stored = try await store.read()
        if let token = stored?.refreshToken { history.append(token) }
        lastFamily = stored?.familyID
    }

    func revokedSessions() async throws -> [(id: String, reason: String)] { try await server.revokedSessions() }

    func tokenRow(_ token: String) async throws -> (rotatedAt: Int64?, successor: String?, session: String)? {
        try await sql.raw(
            "SELECT rotated_at, replaced_by, session_id FROM mend_refresh_tokens WHERE token_hash = \(bind: OpaqueToken.hash(token))"
        ).first().map {
            (
                try $0.decode(column: "rotated_at", as: Int64?.self),
                try $0.decode(column: "replaced_by", as: String?.self),
                try $0.decode(column: "session_id", as: String.self)
            )
        }
    }

    func successorUsed(_ successorHash: String) async throws -> Bool {
        try await sql.raw(
            "SELECT rotated_at FROM mend_refresh_tokens WHERE token_hash = \(bind: successorHash)"
        ).first()?.decode(column: "rotated_at", as: Int64?.self) != nil
    }

    /// Checks a batch of operations.
    mutating func check(
        step: Int, before: Snapshot, results: [(TortureRun.Operation, TortureAnswer)], hasLogout: Bool
    ) async throws {
        let family = before.stored?.familyID
        // A session past its maximum lifetime ends on purpose: session/15 to whoever asks first, "not logged in"
        // to the rest.
        _ = try await lifetimeReached(family)
        if hasLogout, let family {
            endedOnPurpose.insert(family)
            signOutCause = "logout"
        }
        let logouts = results.filter { $0.0 == .logout || $0.0 == .cliLogout }.count
        for (operation, answer) in results {
            if operation == .logout, logouts == 1, before.stored != nil, answer.revoked != true {
                violation(step, "logout did not revoke at the server: \(answer.revocationError ?? answer.error ?? "?")")
            }
            guard !answer.ok else { continue }
            let allowed: Bool
            switch (answer.category, answer.error) {
            case ("transient", _): allowed = true
            case (_, "login/310"?): allowed = signOutCause != nil || before.stored == nil
            case (_, let code?) where code.hasPrefix("session/1") && code.count == 10:
                allowed = family.map(endedOnPurpose.contains) ?? true
            case (_, let code?) where code.hasPrefix("exit "):
                // The `mend` binary exits 1 on a transient error too: fine while the session is kept, or after a
                // purposeful sign-out (an unexplained empty store is caught by checkStore).
                let stillStored = try await store.read() != nil
                allowed = signOutCause != nil || before.stored == nil || stillStored
            case (nil, nil) where operation == .checkValidity || operation == .whoami:
                // `false`: not logged in any more.
                allowed = signOutCause != nil || before.stored == nil
            default: allowed = false
            }
            if !allowed {
                violation(
                    step,
                    "\(operation.rawValue) failed with \(answer.error ?? "false") \(answer.errorName ?? "") "
                        + "(\(answer.category ?? "?")) on family \(family ?? "none")")
            }
        }
        if hasLogout {
            // A logout revokes what the store held or, with the store already empty, what its manager still
            // remembered (an older login's session): every session it ended is ended on purpose.
            for (id, reason) in try await revokedSessions() where reason == "logged_out" {
                endedOnPurpose.insert(id)
            }
        }
        if hasLogout, let refreshToken = before.stored?.refreshToken {
            // After a logout the refresh token is refused.
            let status = try await refreshDirectly(refreshToken)
            if status == 200 { violation(step, "a refresh token still rotates after logout") }
        }
    }

    /// Checks the store and the database after every step.
    mutating func checkStore(step: Int) async throws {
        for (id, reason) in try await revokedSessions() where !endedOnPurpose.contains(id) {
            violation(step, "session \(id) was revoked (\(reason)) though nobody logged out or replayed")
            endedOnPurpose.insert(id)
        }
        guard let stored = try await store.read() else {
            if signOutCause == nil, try await !lifetimeReached(lastFamily) {
                violation(step, "the store is empty though nobody logged out and nothing was revoked")
                signOutCause = "(reported)"
            }
            return
        }
        guard let refreshToken = stored.refreshToken else {
            violation(step, "the stored session has no refresh token")
            return
        }
        if history.last != refreshToken { history.append(refreshToken) }
        lastFamily = stored.familyID
        guard let row = try await tokenRow(refreshToken) else {
            violation(step, "the stored refresh token is unknown to the server")
            return
        }
        if let family = stored.familyID, row.session != family {
            violation(step, "the stored session's family \(family) differs from its refresh token's \(row.session)")
        }
        if let rotatedAt = row.rotatedAt, !endedOnPurpose.contains(row.session) {
            // A refresh whose answer was lost: recoverable only while its successor is unused, inside the grace.
            let age = TortureRun.serverNow - rotatedAt
            var used = true
            if let successor = row.successor { used = try await successorUsed(successor) }
            if used || age > grace.components.seconds {
                violation(step, "the store holds a spent refresh token (successor used: \(used), \(age) s old)")
            }
        }
    }

    /// Presents a refresh token of the current session whose successor was used, directly to the server: a real
    /// replay.
    mutating func injectReplay(step: Int, family: String?) async throws -> Bool {
        for token in history.dropLast().reversed() {
            guard let row = try await tokenRow(token), row.session == family, let successor = row.successor,
                try await successorUsed(successor), !endedOnPurpose.contains(row.session)
            else { continue }
            endedOnPurpose.insert(row.session)
            signOutCause = "replay"
            let status = try await refreshDirectly(token)
            if status != 401 { violation(step, "a replayed refresh token answered \(status), not 401") }
            return true
        }
        return false
    }

    /// The provider says the user removed the app.
    mutating func deauthorize(step: Int, appSecret: String) async throws {
        let payload = JSONValue.object([
            "algorithm": .string("HMAC-SHA256"), "issued_at": .int(Int(TortureRun.serverNow)),
            "user_id": .string("100000000000001"),
            // Two callbacks within one second differ, as the provider's do: the server refuses a signed_request it
            // has seen (seed 20261127 sent two identical ones at step 598, and the second was refused as a replay).
            "mend_torture_step": .int(step),
        ])
        let signed = SignedRequest.make(payload: payload, secret: appSecret)
        for row in try await sql.raw("SELECT id FROM mend_sessions WHERE revoked_at IS NULL").all() {
            endedOnPurpose.insert(try row.decode(column: "id", as: String.self))
        }
        signOutCause = "provider"
        var request = URLRequest(url: server.url("/v1/provider/deauthorize"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            ("signed_request=" + signed.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).utf8)
        let status = try await Self.send(request)
        if status != 200 { violation(step, "deauthorize answered \(status)") }
    }

    /// `POST /v1/session/refresh` straight to the server (not through the proxy); the status.
    func refreshDirectly(_ token: String) async throws -> Int { try await server.refreshDirectly(token).status }

    static func send(_ request: URLRequest) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
