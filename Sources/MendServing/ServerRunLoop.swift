public import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import ServiceLifecycle
public import UnixSignals

/// The one run loop of Mend's in-process servers (the emulator, `mend-server`, the demo, tests and benchmarks):
/// start a Hummingbird application where its configuration says (port 0: any free port), report where it listens
/// once it accepts connections, and stop it gracefully — after a block, or on a signal.
///
/// ```swift
/// let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
/// try await ServerRunLoop.withRunning(app) { server in
///     // call server.baseURL …
/// }
/// ```
///
/// Hummingbird's `Application` needs macOS 14, iOS 17 or tvOS 17; below those, callers throw
/// ``ServerRequiresNewerSystem`` (the emulator and `mend-server` do) instead of starting a server.
@available(macOS 14, iOS 17, tvOS 17, *)
public enum ServerRunLoop {
    /// Starts `application`, runs `body` once it accepts connections, and always shuts it down gracefully
    /// afterwards (requests in flight finish), whether `body` returns or throws.
    ///
    /// - Parameters:
    ///   - application: The application; it listens where its configuration says.
    ///   - logger: The logger of the service group (the application's own by default).
    ///   - body: What to do while the server runs; ``RunningServer/beginGracefulShutdown()`` stops it early.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, the application's error when it fails to start, or ``ServerStartFailure``
    ///   when it stops before it accepted connections.
    public static func withRunning<Application: ApplicationProtocol, Value>(
        _ application: Application, logger: Logger? = nil, _ body: (RunningServer) async throws -> Value
    ) async throws -> Value {
        try await run(application, signals: [], logger: logger, stopsAfterBody: true, body)
    }

    /// Runs `application` until one of `signals` arrives (then shuts it down gracefully: requests in flight
    /// finish), calling `onReady` once it accepts connections.
    ///
    /// With a `drain`, the first signal begins it instead (``ServerDrain/isDraining``: a readiness route answers
    /// 503) while the server keeps serving for ``ServerDrain/delay``; then the listener closes, the requests in flight
    /// finish and the application's services stop, in reverse order. A second signal, during the delay or after it,
    /// cancels everything at once (requests in flight are cut off) and this returns.
    ///
    /// - Parameters:
    ///   - application: The application; it listens where its configuration says.
    ///   - signals: The signals that begin a graceful shutdown (or the drain).
    ///   - drain: The drain before the listener closes; `nil` (the default) closes it at the first signal.
    ///   - logger: The logger of the service group (the application's own by default).
    ///   - onReady: Called once with where the server listens.
    /// - Throws: The application's error, or ``ServerStartFailure`` when it stops before it accepted connections.
    public static func runUntilSignalled<Application: ApplicationProtocol>(
        _ application: Application, signals: [UnixSignal] = [.sigterm, .sigint], drain: ServerDrain? = nil,
        logger: Logger? = nil, onReady: (RunningServer) async throws -> Void
    ) async throws {
        guard let drain, !signals.isEmpty else {
            try await run(application, signals: signals, logger: logger, stopsAfterBody: false, onReady)
            return
        }
        do {
            try await run(
                application, signals: [], drain: (drain, signals), logger: logger, stopsAfterBody: false, onReady)
        } catch is StoppedAtOnce {
            // The second signal: everything was cancelled, as asked.
        }
    }

    private static func run<Application: ApplicationProtocol, Value>(
        _ application: Application, signals: [UnixSignal], drain: (ServerDrain, signals: [UnixSignal])? = nil,
        logger: Logger?, stopsAfterBody: Bool, _ body: (RunningServer) async throws -> Value
    ) async throws -> Value {
        let logger = logger ?? application.logger
        let (addresses, continuation) = AsyncStream<BoundAddress>.makeStream()
        let reporting = ReportingApplication(base: application) { address in
            continuation.yield(address)
            continuation.finish()
        }
        let group = ServiceGroup(
            configuration: .init(services: [reporting], gracefulShutdownSignals: signals, logger: logger))
        // A drain's signals are trapped before the server starts: none arrives untrapped once it is ready.
        var watched: UnixSignalsSequence?
        if let drain { watched = await UnixSignalsSequence(trapping: drain.signals) }
        // Each task answers whether it was the service group's (the server has stopped when that one ends).
        return try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
                return true
            }
            if let drain, let watched {
                watchSignals(watched, drain: drain.0, group: group, logger: logger, tasks: &tasks)
            }
            var iterator = addresses.makeAsyncIterator()
            guard let address = await iterator.next() else {
                do {
                    try await untilStopped(&tasks)
                } catch let error as IOError {
                    // SwiftNIO's words (`bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`) name
                    // neither the host nor the port: say which, and what to do.
                    throw ServerStartFailure(
                        serverName: application.configuration.serverName,
                        address: application.configuration.address, errno: error.errnoCode)
                }
                throw ServerStartFailure(serverName: application.configuration.serverName)
            }
            let server = RunningServer(host: address.host, port: address.port) {
                await group.triggerGracefulShutdown()
            }
            do {
                let value = try await body(server)
                if stopsAfterBody { await group.triggerGracefulShutdown() }
                try await untilStopped(&tasks)
                return value
            } catch {
                await group.triggerGracefulShutdown()
                try? await untilStopped(&tasks)
                throw error
            }
        }
    }

    /// Adds the drain's two tasks: one that reads the signals (the first begins the drain, a second throws
    /// ``StoppedAtOnce``, which cancels everything), one that waits the delay once the drain has begun, then begins
    /// the group's graceful shutdown. Both end when they are cancelled (the server stopped).
    private static func watchSignals(
        _ signals: UnixSignalsSequence, drain: ServerDrain, group: ServiceGroup, logger: Logger,
        tasks: inout ThrowingTaskGroup<Bool, any Error>
    ) {
        let (begun, begin) = AsyncStream<Void>.makeStream()
        tasks.addTask {
            var first = true
            for await signal in signals {
                guard first else {
                    logger.warning(
                        "second signal: stopping at once; requests in flight are cut off",
                        metadata: ["signal": "\(signal)"])
                    throw StoppedAtOnce()
                }
                first = false
                drain.begin()
                logger.notice(
                    "draining: /health/ready answers 503, everything else is still served until the listener closes",
                    metadata: ["signal": "\(signal)", "delay": "\(drain.delay)"])
                begin.yield()
            }
            return false
        }
        tasks.addTask {
            for await _ in begun {
                do {
                    try await Task.sleep(for: drain.delay)
                } catch {
                    return false
                }
                logger.notice("drain delay over: closing the listener; requests in flight finish")
                await group.triggerGracefulShutdown()
                return false
            }
            return false
        }
    }

    /// Waits until the service group's task ends (rethrowing its error, or a drain's ``StoppedAtOnce``), then
    /// cancels the others.
    private static func untilStopped(_ tasks: inout ThrowingTaskGroup<Bool, any Error>) async throws {
        defer { tasks.cancelAll() }
        while let stopped = try await tasks.next() {
            if stopped { return }
        }
    }
}

/// A second signal during a drain: the run loop cancels everything.
struct StoppedAtOnce: Error {}

/// A server started by ``ServerRunLoop``: where it listens, and a way to stop it.
public struct RunningServer: Sendable {
    /// The address the server is bound to (`127.0.0.1`, `::1`, `0.0.0.0`, …).
    public let host: String
    /// The port the server is bound to (the one the system chose when the configuration said 0).
    public let port: Int
    private let shutdown: @Sendable () async -> Void

    /// Describes a running server; `shutdown` begins its graceful shutdown.
    public init(host: String, port: Int, shutdown: @escaping @Sendable () async -> Void) {
        self.host = host
        self.port = port
        self.shutdown = shutdown
    }

    /// `http://host:port` (brackets around an IPv6 address).
    public var baseURL: URL { Self.baseURL(host: host, port: port) }

    /// Begins a graceful shutdown: the server stops accepting connections and finishes the requests in flight.
    public func beginGracefulShutdown() async { await shutdown() }

    /// `http://host:port`, with brackets around an IPv6 host.
    public static func baseURL(host: String, port: Int) -> URL {
        let printable = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return URL(string: "http://\(printable):\(port)")!
    }
}

/// The server stopped before it accepted connections.
public struct ServerStartFailure: Error, CustomStringConvertible {
    /// The server's name (its configuration's `serverName`), if it has one.
    public var serverName: String?
    /// Why it could not listen, in a developer's words with the host and port, when the system said
    /// (`127.0.0.1:8080 is already in use …`).
    public var reason: String?

    /// Describes the failure of the server named `serverName`.
    public init(serverName: String? = nil) {
        self.serverName = serverName
    }

    /// The server named `serverName` could not listen at `address`: the system's `errno` in words.
    public init(serverName: String?, address: BindAddress, errno: CInt) {
        self.serverName = serverName
        let place = Self.text(address)
        reason =
            switch errno {
            case EADDRINUSE:
                "\(place) is already in use (another server listens there): choose another port, or 0 for any free one"
            case EADDRNOTAVAIL:
                "\(place) is not an address of this machine: listen on 127.0.0.1, ::1 or one of its own"
            case EACCES:
                "\(place) needs privileges this process lacks (a port below 1024): choose a port of 1024 or more"
            default:
                "\(place) cannot be listened on: \(String(cString: strerror(errno))) (errno \(errno))"
            }
    }

    static func text(_ address: BindAddress) -> String {
        let description = "\(address)"
        // `BindAddress`'s description is `hostname(host, port)` or `unixDomainSocket(path)`; say it as people do.
        if let match = description.firstMatch(of: /hostname\("?([^",]*)"?, port: (\d+)\)/) {
            let host = String(match.output.1)
            return host.contains(":") ? "[\(host)]:\(match.output.2)" : "\(host):\(match.output.2)"
        }
        return description
    }

    /// What went wrong.
    public var description: String {
        let name = serverName ?? "the server"
        guard let reason else { return "\(name) stopped before it was ready" }
        return "\(name) could not start: \(reason)"
    }
}

/// The system is older than what Mend's in-process servers need: Hummingbird's `Application` needs macOS 14, iOS 17
/// or tvOS 17. The client modules need less (iOS 16, macOS 13, tvOS 16, watchOS 9); only the emulator and
/// `mend-server` (and so `mend demo`, `mend emulate` and MendTesting's harnesses) need these.
public struct ServerRequiresNewerSystem: Error, CustomStringConvertible {
    /// The server that could not start.
    public var serverName: String

    /// The failure to start the server named `serverName`.
    public init(serverName: String) {
        self.serverName = serverName
    }

    /// What went wrong, and what the server needs.
    public var description: String {
        "\(serverName) needs macOS 14, iOS 17 or tvOS 17 or later (Hummingbird's Application); this system is older"
    }
}

/// Where the listening socket is bound.
struct BoundAddress: Sendable {
    var host: String
    var port: Int
}

/// An application that reports where it listens once it accepts connections, after its own `onServerRunning`.
@available(macOS 14, iOS 17, tvOS 17, *)
struct ReportingApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = Base.Responder

    let base: Base
    let report: @Sendable (BoundAddress) -> Void

    var responder: Base.Responder {
        get async throws { try await base.responder }
    }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        let address = channel.localAddress
        report(BoundAddress(host: address?.ipAddress ?? "127.0.0.1", port: address?.port ?? 0))
    }
}
