import Foundation
import Logging
import MendEmulator

/// The provider emulator as the demo drives it: live on loopback, with the few in-process controls the walkthrough
/// uses (faults, the clock, a user's account state).
struct DemoEmulator: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    /// The emulator itself.
    let emulator: Emulator

    /// Runs an emulator for `configuration` on 127.0.0.1 at a free port for the duration of `body`.
    static func withRunning<T>(
        configuration: EmulatorConfiguration, _ body: (DemoEmulator) async throws -> T
    ) async throws -> T {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let emulator = Emulator(configuration: configuration)
        // Its server's own log lines are not the demo's output (an interrupt made Hummingbird print two).
        let quiet = Logger(label: "mend.demo.emulator", factory: { _ in SwiftLogNoOpLogHandler() })
        return try await EmulatorServer.withRunning(emulator, logger: quiet) { url in
            try await body(DemoEmulator(baseURL: url, emulator: emulator))
        }
    }

    /// The URL of a path on the emulator.
    func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery)!
    }

    /// Injects a fault.
    func inject(_ fault: FaultRule) async throws {
        _ = try await emulator.injectFault(fault)
    }

    /// Moves the emulator's clock forward.
    func advanceClock(by seconds: TimeInterval) async {
        _ = await emulator.advanceClock(by: seconds)
    }

    /// Changes the default user's account state.
    func setUserState(_ change: UserStateChange) async throws {
        try await emulator.setUserState(change, userID: emulator.configuration.users[0].id)
    }
}
