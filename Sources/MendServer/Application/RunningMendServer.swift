public import Foundation
import MendServing

/// A running `mend-server`: its base URL, its backend (validity check, metrics), and a way to begin a graceful
/// shutdown while it still runs.
public struct RunningMendServer: Sendable {
    /// `http://<host>:<port>`, where the server is bound.
    public let baseURL: URL
    /// The server's state.
    public let backend: LoginBackend
    private let shutdown: @Sendable () async -> Void

    init(server: RunningServer, backend: LoginBackend) {
        self.baseURL = server.baseURL
        self.backend = backend
        self.shutdown = { await server.beginGracefulShutdown() }
    }

    /// The URL of a path on the server (`url("/v1/session")`).
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery)!
    }

    /// Begins a graceful shutdown: the server stops accepting connections and finishes the requests in flight.
    public func beginGracefulShutdown() async { await shutdown() }
}

extension LoginBackend {
    /// Serves this backend where its configuration says (port 0: any free port) for the duration of `body`, and
    /// always shuts the server down gracefully afterwards (requests in flight finish, then the database closes),
    /// whether `body` returns or throws.
    ///
    /// ```swift
    /// let backend = try await LoginBackend.open(configuration: configuration)
    /// try await backend.withRunningServer { server in
    ///     // POST server.url("/v1/login/code") …
    /// }
    /// ```
    ///
    /// - Throws: What `body` throws, or why the server did not start (`ServerRequiresNewerSystem` (MendServing) below macOS 14,
    ///   iOS 17 and tvOS 17).
    public func withRunningServer<T>(_ body: (RunningMendServer) async throws -> T) async throws -> T {
        guard #available(macOS 14, iOS 17, tvOS 17, *) else {
            throw ServerRequiresNewerSystem(serverName: "mend-server")
        }
        return try await ServerRunLoop.withRunning(buildApplication(backend: self)) { server in
            try await body(RunningMendServer(server: server, backend: self))
        }
    }

    /// Serves this backend until SIGTERM or SIGINT, calling `onReady` once the server accepts connections; then
    /// drains and shuts down gracefully: `/health/ready` answers 503 at once while everything else is still served
    /// for the configuration's drain delay (``ServerConfiguration/Listening/drainDelay``), then the listener
    /// closes, the requests in flight finish, background work stops and the database closes. A second signal stops
    /// it at once.
    ///
    /// - Throws: Why the server did not start, or stopped.
    public func runUntilSignalled(onReady: (RunningMendServer) async throws -> Void) async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, *) else {
            throw ServerRequiresNewerSystem(serverName: "mend-server")
        }
        try await ServerRunLoop.runUntilSignalled(buildApplication(backend: self), drain: drain) { server in
            try await onReady(RunningMendServer(server: server, backend: self))
        }
    }
}
