public import Hummingbird
public import Logging
import NIOCore

/// Builds the emulator as a Hummingbird 2 application with a fresh ``Emulator`` for `configuration`.
///
/// Run it with `try await app.runService()`, or test it with HummingbirdTesting's `app.test(.router)` and
/// `app.test(.live)`.
///
/// Needs macOS 14, iOS 17 or tvOS 17 (Hummingbird's `Application`).
@available(macOS 14, iOS 17, tvOS 17, *)
public func buildApplication(configuration: EmulatorConfiguration) -> some ApplicationProtocol {
    buildApplication(emulator: Emulator(configuration: configuration))
}

/// Builds the emulator as a Hummingbird 2 application around an existing ``Emulator`` (so that the caller can
/// control it in-process), listening where the emulator's configuration says.
///
/// - Parameters:
///   - emulator: The emulator that answers the requests.
///   - logger: The server's logger; by default warnings and errors go to standard error.
///   - onServerRunning: Called with the bound port once the server accepts connections.
@available(macOS 14, iOS 17, tvOS 17, *)
public func buildApplication(
    emulator: Emulator, logger: Logger? = nil, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let configuration = emulator.configuration
    return Application(
        responder: EmulatorResponder(emulator: emulator),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Mend emulator"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger ?? EmulatorLogging.defaultLogger)
}

/// The emulator's default logger: warnings and errors to standard error, so that standard output stays for the
/// base URL and the ready line.
enum EmulatorLogging {
    static var defaultLogger: Logger {
        var logger = Logger(label: "mend.emulator") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }
}
