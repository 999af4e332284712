public import ArgumentParser
import MendCore
import MendTelemetryExport
import UnixSignals

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    @preconcurrency import Darwin
#endif

/// `mend`: Mend's command-line tool.
public struct MendCommand: AsyncParsableCommand {
    /// The command's name, help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "mend",
        abstract: "Typed, classified, recoverable errors for remote APIs, and login without a vendor SDK.",
        version: MendVersion.current,
        subcommands: [
            DemoCommand.self, ExplainCommand.self, ErrorsCommand.self, EmulateCommand.self, GraphCommand.self,
            GraphQLCommand.self, LoginCommand.self, WhoAmICommand.self, TokenCommand.self, LogoutCommand.self,
            SessionsCommand.self, PasskeysCommand.self, RedactCommand.self, ProxyCommand.self,
            StoreWriterCommand.self, RefreshOnceCommand.self,
        ]
    )

    /// The init.
    public init() {}
}

extension MendCommand {
    /// Parses the process's arguments, runs the command, and exits (the executable's entry point).
    public static func runFromCommandLine() async {
        // Line by line, also into a pipe or a file: what `mend` prints and what it writes to standard error (which
        // is unbuffered) then arrive in the order they were written, also when both go to one log (2>&1).
        setvbuf(stdout, nil, _IOLBF, 0)
        // Every client `mend` makes is observed (what `--trace` draws); traces and metrics go out over OTLP only when
        // the OTEL_* variables ask.
        let export = CommandTelemetry.bootstrap()
        // Parsed and run here (not by `main()`, which exits without returning on a failure), while the exporters
        // run, so that the last spans and metrics go out before the process ends.
        let outcome: (any Error)?
        if let export {
            outcome =
                (try? await export.run(unexported: { StandardError.write("warning: \($0)") }) { await runParsed() })
                ?? nil
        } else {
            outcome = await runParsed()
        }
        if let outcome { exit(withError: outcome) }
    }

    /// Whether Ctrl-C ends `command` at once, saying so, with exit status 130: every client command. The servers
    /// (`emulate`, `proxy`) stop gracefully on SIGINT and exit 0; `demo` shuts its servers down first, then says so.
    static func endsAtInterrupt(_ command: any ParsableCommand) -> Bool {
        !(command is EmulateCommand || command is ProxyCommand || command is DemoCommand)
    }

    /// Parses the arguments and runs the command; returns its error instead of exiting.
    private static func runParsed() async -> (any Error)? {
        do {
            // A misspelt command is said as one, with the nearest command (argument-parser's words would be "3
            // unexpected arguments").
            let words = Array(CommandLine.arguments.dropFirst())
            if let misspelling = NameSuggestion.misspeltCommand(in: words, tree: .init(commandsOf: MendCommand.self)) {
                StandardError.write(misspelling.message)
                return ExitCode.validationFailure
            }
            var command = try parseAsRoot()
            // Ctrl-C is an interruption, said as one (exit 130): never a timeout, a "code expired" or a framework's
            // log line on the way out.
            var interruption: InterruptHandler?
            if endsAtInterrupt(command) {
                interruption = await InterruptHandler(signals: [.sigint]) {
                    fputs("\ninterrupted\n", stderr)
                    endProcess(130)
                }
            }
            defer { interruption?.stop() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return nil
        } catch {
            return error
        }
    }
}

/// Ends the process with `status` (the C library's `exit`, which `ParsableCommand.exit(withError:)` shadows inside
/// the command's own type).
private func endProcess(_ status: Int32) -> Never {
    exit(status)
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
