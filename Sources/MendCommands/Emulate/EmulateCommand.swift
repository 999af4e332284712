import ArgumentParser
import Foundation
import MendCore
import MendEmulator
import MendRecording

/// `mend emulate`: runs the Facebook-compatible provider emulator until interrupted.
struct EmulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Run the provider emulator: login dialog, tokens, Graph, GraphQL, REST, fault injection.",
        discussion: """
            Prints the base URL, then a line that says "ready". Stops cleanly on SIGINT or SIGTERM. The control API \
            (/_emulator/…, see docs/emulator.md) is on unless --no-test-mode is given.
            """)

    @Option(help: "The address to bind (loopback unless you say otherwise).")
    var host: String?

    @Option(help: "The port (0: any free port).")
    var port: Int?

    @Option(help: "The seed of generated ids and tokens.")
    var seed: UInt64?

    @Option(help: "A JSON configuration file (apps, users, limits, …; every key optional).")
    var config: String?

    @Flag(inversion: .prefixedNo, help: "Enable the control API under /_emulator/.")
    var testMode: Bool = true

    @Option(help: "Answer the login dialog without a person: grantAll or deny.")
    var autoConsent: String?

    @Option(
        help: """
            Serve this HAR recording as the provider: each request is answered from it (the control API and its \
            faults still apply on top); one it has no answer for is 404 naming the closest recorded request.
            """)
    var replay: String?

    /// A `--config` that cannot be read is a usage error of this command, said in words (no Foundation error dump).
    func validate() throws {
        if let config {
            do {
                _ = try EmulatorConfiguration.load(from: URL(fileURLWithPath: config))
            } catch {
                throw ValidationError("--config \(config): \(Self.describe(error))")
            }
        }
    }

    /// What went wrong reading a file, as a developer would say it.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile:
            return "no such file"
        case let error as CocoaError where error.code == .fileReadNoPermission:
            return "permission denied"
        case let error as CocoaError where error.code == .fileReadCorruptFile:
            return "not a JSON configuration"
        case DecodingError.dataCorrupted(let context):
            return "not valid JSON (\(context.debugDescription))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\(path.isEmpty ? "the configuration" : path): \(context.debugDescription)"
        default:
            return (error as NSError).localizedFailureReason ?? error.localizedDescription
        }
    }

    func run() async throws {
        var configuration: EmulatorConfiguration
        if let config {
            do {
                configuration = try EmulatorConfiguration.load(from: URL(fileURLWithPath: config))
            } catch {
                throw ValidationError("--config \(config): \(Self.describe(error))")
            }
        } else {
            configuration = EmulatorConfiguration()
        }
        if let host { configuration.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
            configuration.port = port
        }
        if let seed { configuration.seed = seed }
        configuration.testMode = testMode
        switch autoConsent {
        case nil: break
        case "grantAll": configuration.autoConsent = .grantAll
        case "deny": configuration.autoConsent = .deny
        case let other?: throw ValidationError("--auto-consent must be grantAll or deny, not \(other)")
        }
        var replaying: ReplayTransport?
        if let replay {
            do {
                replaying = try ReplayTransport(recording: URL(fileURLWithPath: replay))
            } catch {
                throw ValidationError("cannot replay \(replay): \(error.developerMessage)")
            }
        }
        let emulator = Emulator(configuration: configuration, replay: replaying)
        let summary = configuration
        try await EmulatorServer.runUntilSignalled(emulator) { url in
            let app = summary.defaultApp
            Self.say(
                """
                Mend provider emulator (Graph \(summary.graphVersion), seed \(summary.seed), test mode \
                \(summary.testMode ? "on" : "off"))
                app \(app.id) (secret \(app.secret)), \(summary.users.count) test users\
                \(replay.map { "\nreplaying \($0)" } ?? "")
                base URL: \(url.absoluteString)
                ready
                """)
        }
    }

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
