import Foundation
import MendCore
import MendEmulator
import MendFacebook
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import SQLKit
import Testing

@testable import MendServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long access tokens live in a scenario: the server's default (900 s; time passes by moving the server's clock,
/// so that the server sees the token expired before the client does) or a short lifetime that really passes.
enum Lifetime: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case serverDefault = "default 900 s"
    case short = "1 s"

    var testDescription: String { rawValue }
}

/// The emulator, mend-server in front of it (SQLite, a clock of its own), and a state folder for the `mend` binary.
struct LifecycleStack: Sendable {
    let emulator: RunningEmulator
    let server: RunningMendServer
    let clock: OffsetClock
    let lifetime: Lifetime
    let directory: URL

    static func run(lifetime: Lifetime, _ body: (LifecycleStack) async throws -> Void) async throws {
        let clock = OffsetClock()
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.clock = clock.pipeline()
            if lifetime == .short { configuration.sessions.accessTokenLifetime = .seconds(1) }
            try await withMendServer(configuration: configuration) { server in
                try await body(
                    LifecycleStack(
                        emulator: emulator, server: server, clock: clock, lifetime: lifetime,
                        directory: temporaryDirectory()))
            }
        }
    }

    var store: FileTokenStore { FileTokenStore(url: directory.appendingPathComponent("session.json")) }

    /// `mend <arguments> --state-directory …`.
    func mend(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await MendExecutable.run(arguments + ["--state-directory", directory.path])
    }

    /// `mend login --backend …` through the emulator's consent page, answered headlessly.
    func login() async throws {
        let result = try await mend([
            "login", "--base-url", emulator.baseURL.absoluteString, "--app-id",
            emulator.emulator.configuration.defaultApp.id, "--headless", "--backend", server.baseURL.absoluteString,
        ])
        #expect(result.status == 0, "\(result.output)")
    }

    /// Lets the access token expire: the server's clock moves past 900 s, or 1.5 s really pass.
    func expireAccessToken() async throws {
        switch lifetime {
        case .serverDefault: clock.advance(by: 901)
        case .short: try await Task.sleep(for: .milliseconds(1500))
        }
    }

    func revokedSessions() async throws -> [String] { try await server.revokedSessions().map(\.reason) }
    func isCurrent(refreshToken: String) async throws -> Bool { try await server.isCurrent(refreshToken: refreshToken) }
    func rotations() async throws -> Int { try await server.rotations() }
    func refreshDirectly(_ token: String) async throws -> (status: Int, code: String?) {
        try await server.refreshDirectly(token)
    }
}

/// What the session tests read straight from a live server's database and its refresh endpoint.
extension RunningMendServer {
    var sql: any SQLDatabase { backend.store.sql }

    /// The revoked sessions, with their stored reasons.
    func revokedSessions() async throws -> [(id: String, reason: String)] {
        try await sql.raw("SELECT id, revoked_reason FROM mend_sessions WHERE revoked_at IS NOT NULL").all().map {
            (
                try $0.decode(column: "id", as: String.self),
                try $0.decode(column: "revoked_reason", as: String?.self) ?? ""
            )
        }
    }

    /// Whether the refresh token is the current one of its family (stored and never rotated).
    func isCurrent(refreshToken: String) async throws -> Bool {
        guard
            let row = try await sql.raw(
                "SELECT rotated_at FROM mend_refresh_tokens WHERE token_hash = \(bind: OpaqueToken.hash(refreshToken))"
            ).first()
        else { return false }
        return try row.decode(column: "rotated_at", as: Int64?.self) == nil
    }

    /// How many refresh tokens were rotated.
    func rotations() async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM mend_refresh_tokens WHERE rotated_at IS NOT NULL").first()?
            .decode(column: "n", as: Int.self) ?? 0
    }

    /// `POST /v1/session/refresh` straight to the server (no proxy): the status and the error's `domain/code`.
    func refreshDirectly(_ refreshToken: String) async throws -> (status: Int, code: String?) {
        var request = URLRequest(url: url("/v1/session/refresh"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["refresh_token": refreshToken])
        let (data, response) = try await URLSession.shared.data(for: request)
        let error = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["error"] as? [String: Any]
        let code = error.flatMap { error in
            (error["domain"] as? String).map { "\($0)/\(error["code"] as? Int ?? 0)" }
        }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, code)
    }
}

/// The three ways users lost sessions in the first wave, run as a user runs them — the `mend` binary against
/// `mend-server` and the emulator — with the server's default lifetime and with a short one.
@Suite("Sessions are never lost: the scenarios users hit", .enabled(if: MendExecutable.url != nil))
struct SessionScenarioTests {
    @Test("mend whoami after the access token expired refreshes and stays logged in", arguments: Lifetime.allCases)
    func whoamiAfterExpiry(lifetime: Lifetime) async throws {
        try await LifecycleStack.run(lifetime: lifetime) { stack in
            try await stack.login()
            let before = try #require(try await stack.store.read())
            try await stack.expireAccessToken()
            let whoami = try await stack.mend(["whoami"])
            #expect(whoami.status == 0, "\(whoami.output)")
            #expect(whoami.output.contains("Alice Example"))
            let after = try #require(try await stack.store.read(), "the session was deleted")
            #expect(after.refreshToken != before.refreshToken)
            #expect(after.familyID == before.familyID)
            #expect(try await stack.isCurrent(refreshToken: try #require(after.refreshToken)))
            #expect(try await stack.revokedSessions().isEmpty)
            #expect(try await stack.mend(["whoami"]).status == 0)
        }
    }

    @Test("Three mend token refresh at once: nobody is logged out, the family lives on", arguments: Lifetime.allCases)
    func threeRefreshesAtOnce(lifetime: Lifetime) async throws {
        try await LifecycleStack.run(lifetime: lifetime) { stack in
            try await stack.login()
            let before = try #require(try await stack.store.read())
            try await stack.expireAccessToken()
            async let first = stack.mend(["token", "refresh"])
            async let second = stack.mend(["token", "refresh"])
            async let third = stack.mend(["token", "refresh", "--json"])
            let results = try await [first, second, third]
            for result in results {
                #expect(result.status == 0, "\(result.output)")
            }
            #expect(results[0].output.hasPrefix("Refreshed; the access token expires at "))
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(results[2].output.utf8)) as? [String: Any],
                "\(results[2].output)")
            #expect(json["refreshed"] as? Bool == true)
            #expect(json["expiresAt"] is String)
            #expect(json["refreshable"] as? Bool == true)
            let after = try #require(try await stack.store.read(), "the session was deleted")
            #expect(after.familyID == before.familyID)
            #expect(try await stack.isCurrent(refreshToken: try #require(after.refreshToken)))
            #expect((1...3).contains(try await stack.rotations()))
            #expect(try await stack.revokedSessions().isEmpty)
            #expect(try await stack.mend(["whoami"]).status == 0)
        }
    }

    @Test("mend logout after the access token expired ends the session on the server", arguments: Lifetime.allCases)
    func logoutAfterExpiry(lifetime: Lifetime) async throws {
        try await LifecycleStack.run(lifetime: lifetime) { stack in
            try await stack.login()
            let before = try #require(try await stack.store.read())
            try await stack.expireAccessToken()
            let logout = try await stack.mend(["logout"])
            #expect(logout.output.contains("Logged out and revoked."), "\(logout.output)")
            #expect(try await stack.store.read() == nil)
            let replay = try await stack.refreshDirectly(try #require(before.refreshToken))
            #expect(replay.status == 401)
            #expect(replay.code == "session/11")
            #expect(try await stack.revokedSessions().count == 1)
        }
    }
}

/// The credentials manager against the live `mend-server`, with the clocks of the server and of the clients moved
/// together, a fault proxy in front of the server, and several managers sharing a store.
@Suite("Sessions are never lost: managers, faults and time")
struct SessionManagerTests {
    /// A manager of a store, talking to the server through `proxy`, on `clock`.
    static func manager(
        _ store: any TokenStore, proxy: FaultProxy, clock: OffsetClock,
        policy: BackendSessionClient.RefreshPolicy = .init()
    ) -> CredentialsManager {
        CredentialsManager(
            store: store,
            authority: BackendSessionClient(
                baseURL: proxy.baseURL, transport: AsyncHTTPClientTransport(), refreshPolicy: policy,
                clock: clock.pipeline()),
            clock: clock.pipeline())
    }

    /// Logs in through the emulator's consent page and the backend (behind the proxy), storing the session.
    static func login(_ stack: LifecycleStack, proxy: FaultProxy, into manager: CredentialsManager) async throws {
        let provider = LoginProvider.emulator(
            baseURL: stack.emulator.baseURL, appID: stack.emulator.emulator.configuration.defaultApp.id,
            version: stack.emulator.emulator.configuration.graphVersion)
        let exchanger = BackendSessionClient(
            baseURL: proxy.baseURL, transport: AsyncHTTPClientTransport(),
            clock: stack.clock.pipeline())
        let result = try await LoginManager(provider: provider, exchanger: exchanger, credentials: manager)
            .logIn(presenter: presenter(.grantAll))
        #expect(result.session?.familyID?.isEmpty == false)
    }

    @Test("Two managers sharing a store, 40 requests at token expiry: one refresh, one session")
    func twoManagersConverge() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            try await FaultProxy.withProxy(upstream: stack.server.baseURL, decide: { _ in nil }) { proxy in
                let store = InMemoryTokenStore()
                let first = Self.manager(store, proxy: proxy, clock: stack.clock)
                let second = Self.manager(store, proxy: proxy, clock: stack.clock)
                try await Self.login(stack, proxy: proxy, into: first)
                _ = try await second.currentSession()
                stack.clock.advance(by: 901)
                let before = proxy.statistics.forwarded
                let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                    for index in 0..<40 {
                        group.addTask { try await (index.isMultiple(of: 2) ? first : second).validToken().tokenString }
                    }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
                #expect(proxy.statistics.forwarded - before == 1)
                #expect(tokens.count == 1)
                let stored = try #require(try await store.read())
                #expect(tokens.first == stored.accessToken.tokenString)
                #expect(try await stack.isCurrent(refreshToken: try #require(stored.refreshToken)))
            }
        }
    }

    @Test("A manager that slept through three refreshes by another adopts the stored session, never its own stale one")
    func sleeperConverges() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            try await FaultProxy.withProxy(upstream: stack.server.baseURL, decide: { _ in nil }) { proxy in
                let file = stack.directory.appendingPathComponent("session.json")
                let awake = Self.manager(FileTokenStore(url: file), proxy: proxy, clock: stack.clock)
                let sleeper = Self.manager(FileTokenStore(url: file), proxy: proxy, clock: stack.clock)
                try await Self.login(stack, proxy: proxy, into: awake)
                let stale = try #require(try await sleeper.currentSession())
                for _ in 0..<3 {
                    stack.clock.advance(by: 901)
                    _ = try await awake.validToken()
                }
                stack.clock.advance(by: 3600)
                let token = try await sleeper.validToken()
                let stored = try #require(try await FileTokenStore(url: file).read())
                #expect(token.tokenString == stored.accessToken.tokenString)
                #expect(stored.refreshToken != stale.refreshToken)
                #expect(stored.familyID == stale.familyID)
                #expect(try await stack.rotations() == 4)
                #expect(try await stack.revokedSessions().isEmpty)
                #expect(try await awake.validToken().tokenString == token.tokenString)
            }
        }
    }

    @Test(
        "A refresh that fails on the way (503, dropped, answer lost, timed out) is retried with the same token",
        arguments: FaultProxy.Fault.allCases)
    func refreshSurvivesAFault(fault: FaultProxy.Fault) async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            let faulted = LockedFlag()
            // Only the held answer may reach the attempt's bound: a loaded CI machine answers a plain refresh in well
            // under 8 s, and the proxy holds for longer than that. 3 × 8 s and the pauses stay inside the server's
            // 60 s grace window.
            try await FaultProxy.withProxy(
                upstream: stack.server.baseURL, holdTime: .seconds(20),
                decide: { request in
                    request.path.hasPrefix("/v1/session/refresh") && faulted.setOnce() ? fault : nil
                }
            ) { proxy in
                let store = InMemoryTokenStore()
                let manager = Self.manager(
                    store, proxy: proxy, clock: stack.clock,
                    policy: .init(maximumAttempts: 3, attemptTimeout: .seconds(8), retryDelay: .milliseconds(50)))
                try await Self.login(stack, proxy: proxy, into: manager)
                let before = try #require(try await store.read())
                let refreshed = try await manager.refresh()
                #expect(proxy.statistics.faults[fault] == 1)
                #expect(refreshed.familyID == before.familyID)
                #expect(try await store.read()?.refreshToken == refreshed.refreshToken)
                #expect(try await stack.isCurrent(refreshToken: try #require(refreshed.refreshToken)))
                // The server rotated once: a repeat after a lost answer got the same successor.
                #expect(try await stack.rotations() == 1)
                #expect(try await stack.revokedSessions().isEmpty)
            }
        }
    }

    @Test("A validity check refreshes an expired token first; a transient failure keeps the session")
    func validityCheck() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            let failing = LockedFlag()
            try await FaultProxy.withProxy(
                upstream: stack.server.baseURL,
                decide: { request in
                    request.method == "GET" && request.path == "/v1/session" && failing.isSet
                        ? .serviceUnavailable : nil
                }
            ) { proxy in
                let store = InMemoryTokenStore()
                let manager = Self.manager(store, proxy: proxy, clock: stack.clock)
                try await Self.login(stack, proxy: proxy, into: manager)
                stack.clock.advance(by: 901)
                #expect(try await manager.checkValidity(force: true))
                #expect(try await stack.rotations() == 1)
                failing.set()
                let error = try await #require(throws: MendError.self) { try await manager.checkValidity(force: true) }
                #expect(error.category == .transient)
                #expect(try await store.read() != nil)
                #expect(await manager.lastSignOut == nil)
            }
        }
    }

    @Test("A session ended elsewhere signs out with the reason, on the next check or request")
    func endedElsewhere() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            try await FaultProxy.withProxy(upstream: stack.server.baseURL, decide: { _ in nil }) { proxy in
                let store = InMemoryTokenStore()
                let manager = Self.manager(store, proxy: proxy, clock: stack.clock)
                try await Self.login(stack, proxy: proxy, into: manager)
                let session = try #require(try await store.read())
                // Revoked with the refresh token and a proof of the session's key: a bound session's token alone
                // ends nothing.
                try await BackendSessionClient(baseURL: stack.server.baseURL, transport: AsyncHTTPClientTransport())
                    .revoke(session)
                #expect(try await manager.checkValidity(force: true) == false)
                #expect(await manager.lastSignOut?.error?.code == .Session.loggedOut)
                #expect(try await store.read() == nil)
            }
        }
    }

    @Test("Logout with an expired access token revokes with the refresh token")
    func logoutAfterExpiry() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            try await FaultProxy.withProxy(upstream: stack.server.baseURL, decide: { _ in nil }) { proxy in
                let store = InMemoryTokenStore()
                let manager = Self.manager(store, proxy: proxy, clock: stack.clock)
                try await Self.login(stack, proxy: proxy, into: manager)
                let session = try #require(try await store.read())
                stack.clock.advance(by: 901)
                let outcome = try await manager.logout()
                #expect(outcome.revoked, "\(String(describing: outcome.revocationError))")
                let replay = try await stack.refreshDirectly(try #require(session.refreshToken))
                #expect(replay.code == "session/11")
            }
        }
    }
}

/// A flag for fault decisions.
final class LockedFlag: @unchecked Sendable {
    // Safe: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
    /// Sets the flag; `true` only for the call that set it.
    func setOnce() -> Bool {
        lock.withLock {
            defer { value = true }
            return !value
        }
    }
}
