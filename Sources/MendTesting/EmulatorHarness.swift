public import Foundation
public import MendEmulator
public import MendHTTP

/// A running provider emulator: its base URL and its in-process control API.
///
/// Get one with ``withEmulator(configuration:clock:_:)``; everything the control API under `/_emulator/` does is also a
/// method here (faults, the clock, user state, signing keys, the request log, reset).
public struct RunningEmulator: Sendable {
    /// `http://127.0.0.1:<port>`: the emulator's base URL (Graph, login dialog, GraphQL and REST).
    public let baseURL: URL
    /// The emulator itself, for in-process control.
    public let emulator: Emulator

    /// The URL of a path on the emulator (`url("/v25.0/me")`).
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery)!
    }

    /// The versioned Graph URL (`http://127.0.0.1:<port>/v25.0`), for raw HTTP calls. `GraphClient` takes
    /// ``baseURL`` instead: it adds the version itself.
    public var graphURL: URL { url("/" + emulator.configuration.graphVersion) }

    /// Injects a fault and returns it with its id.
    @discardableResult
    public func inject(_ fault: FaultRule) async throws -> FaultRule {
        try await emulator.injectFault(fault)
    }

    /// Injects a catalog error (`"graph/190/460"`) for matching requests.
    @discardableResult
    public func inject(
        error: String, method: String? = nil, path: String? = nil, userID: String? = nil, times: Int? = nil
    ) async throws -> FaultRule {
        try await emulator.injectFault(.error(error, method: method, path: path, userID: userID, times: times))
    }

    /// Issues a user token as if the user had logged in (the default user and app unless given).
    public func token(
        userID: String? = nil, scopes: [String] = ["public_profile", "email"], lifetime: Int? = nil
    ) async throws -> String {
        let user = userID ?? emulator.configuration.users[0].id
        return try await emulator.issueToken(userID: user, scopes: scopes, lifetime: lifetime)
    }

    /// Moves the emulator's clock forward.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval) async -> Date {
        await emulator.advanceClock(by: seconds)
    }

    /// Changes a user's account state (the default user unless given).
    public func setUserState(_ change: UserStateChange, userID: String? = nil) async throws {
        try await emulator.setUserState(change, userID: userID ?? emulator.configuration.users[0].id)
    }

    /// The request log, oldest first.
    public func requestLog() async -> [RequestLogEntry] {
        await emulator.requestLog()
    }

    /// Returns the emulator to its starting state.
    public func reset() async {
        await emulator.reset()
    }
}

/// Runs the provider emulator live on 127.0.0.1 at a free port for the duration of `body`, and always shuts it
/// down, whether `body` returns or throws.
///
/// ```swift
/// try await withEmulator { emulator in
///     try await emulator.inject(error: "graph/190/460", path: "/me")
///     let token = try await emulator.token()
///     // … give GraphClient `graphURL: emulator.baseURL` (it adds the version), expect MendError graph/190/460 …
/// }
/// ```
public func withEmulator<T>(
    configuration: EmulatorConfiguration = EmulatorConfiguration(), clock: PipelineClock = .system,
    _ body: (RunningEmulator) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.port = 0
    if configuration.host.isEmpty { configuration.host = "127.0.0.1" }
    let emulator = Emulator(configuration: configuration, clock: clock)
    return try await EmulatorServer.withRunning(emulator) { url in
        try await body(RunningEmulator(baseURL: url, emulator: emulator))
    }
}
