import ArgumentParser
import Foundation
import MendCore
import MendServer

/// `mend-server`: runs the MendServer application, configured from the environment and/or a JSON file
/// (`MEND_CONFIG_FILE`), until SIGTERM or SIGINT (graceful: it drains for `MEND_DRAIN_DELAY` with `/health/ready` at
/// 503, then the listener closes, requests in flight finish, then the database closes).
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
            KeysCommand.self, AdminCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}

/// `mend-server`'s entry point: the executable (MendServerMain) is this one call.
public enum MendServerTool {
    /// Parses the process's arguments, runs the command, and exits.
    public static func runFromCommandLine() async {
        // A misspelt command (`mend-server serv`) is said as one, with the nearest command, before `serve` (the
        // default) could take it as its argument.
        let words = Array(CommandLine.arguments.dropFirst())
        if let misspelling = NameSuggestion.misspeltCommand(
            in: words, tree: .init(commandsOf: MendServerCommand.self))
        {
            FileHandle.standardError.write(Data((misspelling.message + "\n").utf8))
            MendServerCommand.exit(withError: ExitCode.validationFailure)
        }
        await MendServerCommand.main()
    }
}

extension NameSuggestion.CommandTree {
    /// The names of `command` and of its subcommands, as argument-parser's configurations give them.
    init(commandsOf command: any ParsableCommand.Type) {
        let configuration = command.configuration
        self.init(
            names: [configuration.commandName ?? command._commandName] + configuration.aliases,
            subcommands: configuration.subcommands.map { Self(commandsOf: $0) },
            hasDefaultSubcommand: configuration.defaultSubcommand != nil, isHidden: !configuration.shouldDisplay)
    }
}

/// What the subcommands share.
enum ServerCommandSupport {
    /// EX_CONFIG: the configuration is missing or invalid.
    static let configurationError = ExitCode(78)
    /// The server failed while starting or running.
    static let serverFailure = ExitCode(1)

    /// Reads and validates the configuration (the command line's `--host` and `--port` over the environment), after
    /// warning about each `MEND_*` name it does not read; on failure, says why on standard error and exits with 78.
    static func loadConfiguration(_ listening: ListeningOptions = ListeningOptions()) throws -> ServerConfiguration {
        for warning in ServerConfiguration.unknownVariableWarnings() {
            complain("warning: \(warning)")
        }
        do {
            return try ServerConfiguration.load(overrides: listening.overrides)
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

/// `--host` and `--port`: where to listen, over `MEND_HOST` and `MEND_PORT`.
struct ListeningOptions: ParsableArguments {
    @Option(name: .long, help: "The listen address (over MEND_HOST; default 127.0.0.1, 0.0.0.0 in a container).")
    var host: String?

    @Option(name: .long, help: "The listen port (over MEND_PORT; 0: a free one).")
    var port: String?

    /// The options as the variables they override.
    var overrides: [String: String] {
        var values: [String: String] = [:]
        values["MEND_HOST"] = host
        values["MEND_PORT"] = port
        return values
    }
}
