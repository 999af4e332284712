public import Foundation
public import Logging
import MendServing

/// Runs the emulator on a real socket: for a block (tests, `withEmulator`, `mend demo`) or until a signal
/// (`mend emulate`), with the run loop every Mend server shares. Below macOS 14, iOS 17 and tvOS 17 (what Hummingbird's
/// `Application` needs) each throws `ServerRequiresNewerSystem` (MendServing).
public enum EmulatorServer {
    /// Starts the emulator where its configuration says (port 0: any free port), runs `body` with the base URL,
    /// and always shuts the server down afterwards, whether `body` returns or throws.
    public static func withRunning<T>(
        _ emulator: Emulator, logger: Logger? = nil, _ body: (URL) async throws -> T
    ) async throws -> T {
        guard #available(macOS 14, iOS 17, tvOS 17, *) else {
            throw ServerRequiresNewerSystem(serverName: "the emulator")
        }
        let host = emulator.configuration.host
        return try await ServerRunLoop.withRunning(buildApplication(emulator: emulator, logger: logger)) { server in
            try await body(baseURL(host: host, port: server.port))
        }
    }

    /// Runs the emulator until SIGINT or SIGTERM, calling `onReady` with the base URL once it accepts connections.
    public static func runUntilSignalled(
        _ emulator: Emulator, logger: Logger? = nil, onReady: (URL) async -> Void
    ) async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, *) else {
            throw ServerRequiresNewerSystem(serverName: "the emulator")
        }
        let host = emulator.configuration.host
        try await ServerRunLoop.runUntilSignalled(buildApplication(emulator: emulator, logger: logger)) { server in
            await onReady(baseURL(host: host, port: server.port))
        }
    }

    /// `http://host:port`, with brackets around an IPv6 host.
    public static func baseURL(host: String, port: Int) -> URL {
        RunningServer.baseURL(host: host, port: port)
    }
}
