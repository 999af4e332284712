import ArgumentParser
import Foundation
import MendCore
import MendServer

/// `mend-server`: runs the MendServer application, configured from the environment and/or a JSON file
/// (`MEND_CONFIG_FILE`), until SIGTERM or SIGINT (graceful: requests in flight finish, then the database closes).
///
/// Exit codes: 0 success, 1 the server failed, 64 a usage error, 78 a configuration error (EX_CONFIG).
struct MendServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mend-server",
        abstract: "The login backend: code exchange, sessions, provider callbacks.",
        discussion: """
            Configured by MEND_* variables and DATABASE_URL, or a JSON file named by MEND_CONFIG_FILE \
            (`mend-server env` lists them). Without a subcommand it serves. Exit codes: 0 success, 1 the server \
            failed, 64 a usage error, 78 a configuration error.
            """,
        version: MendVersion.current,
        subcommands: [
            ServeCommand.self, GenerateKeyCommand.self, CheckConfigCommand.self, EnvironmentCommand.self,
            AdminCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}

/// `mend-server`'s entry point: the executable (MendServerMain) is this one call.
public enum MendServerTool {
    /// Parses the process's arguments, runs the command, and exits.
    public static func runFromCommandLine() async {
        await MendServerCommand.main()
    }
}

/// What the subcommands share.
enum ServerCommandSupport {
    /// EX_CONFIG: the configuration is missing or invalid.
    static let configurationError = ExitCode(78)
    /// The server failed while starting or running.
    static let serverFailure = ExitCode(1)

    /// Reads and validates the configuration; on failure, says why on standard error and exits with 78.
    static func loadConfiguration() throws -> ServerConfiguration {
        do {
            return try ServerConfiguration.load()
        } catch {
            complain("configuration: \(error)")
            throw configurationError
        }
    }

    /// Writes `mend-server: message` to standard error.
    static func complain(_ message: String) {
        FileHandle.standardError.write(Data("mend-server: \(message)\n".utf8))
    }
}
