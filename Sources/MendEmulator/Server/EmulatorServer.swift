public import Foundation
import Hummingbird
public import Logging
import ServiceLifecycle
import UnixSignals

/// Runs the emulator on a real socket: for a block (tests, `withEmulator`) or until a signal (`mend emulate`).
public enum EmulatorServer {
    /// Why the server did not start.
    public struct StartFailure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Starts the emulator where its configuration says (port 0: any free port), runs `body` with the base URL,
    /// and always shuts the server down afterwards, whether `body` returns or throws.
    public static func withRunning<T>(
        _ emulator: Emulator, logger: Logger? = nil, _ body: (URL) async throws -> T
    ) async throws -> T {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = buildApplication(emulator: emulator, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let group = ServiceGroup(
            configuration: .init(services: [app], logger: logger ?? EmulatorLogging.defaultLogger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.next()
                throw StartFailure(description: "the emulator stopped before it was ready")
            }
            let url = baseURL(host: emulator.configuration.host, port: port)
            do {
                let value = try await body(url)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    /// Runs the emulator until SIGINT or SIGTERM, calling `onReady` with the base URL once it accepts connections.
    public static func runUntilSignalled(
        _ emulator: Emulator, logger: Logger? = nil, onReady: @escaping @Sendable (URL) async -> Void
    ) async throws {
        let host = emulator.configuration.host
        let app = buildApplication(emulator: emulator, logger: logger) { port in
            await onReady(baseURL(host: host, port: port))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger ?? EmulatorLogging.defaultLogger))
        try await group.run()
    }

    /// `http://host:port`, with brackets around an IPv6 host.
    public static func baseURL(host: String, port: Int) -> URL {
        let printable = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(printable):\(port)")!
    }
}
