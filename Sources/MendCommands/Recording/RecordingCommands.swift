import ArgumentParser
import Foundation
import MendCore
import MendRecording

/// `mend redact FILE [-o OUT]`: redacts an existing HAR so that it can be shared.
struct RedactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Redact a HAR file (a browser's, a proxy's, a recording's) so that it can be shared.",
        discussion: """
            Replaces every credential — OAuth and Graph parameters in URLs, forms and JSON, credential headers, \
            cookies, token-shaped strings — with a stable placeholder (<mend:access_token:1>), then scans the \
            result: a token-shaped or high-entropy string that survived stops it (exit 65) with where it sits. Add \
            a name to redact with --redact, or keep a name's values with --allow. Writes to --output, or to \
            standard output. The input is never changed.
            """)

    @Argument(help: "The HAR file ('-' for standard input).")
    var file: String

    @Option(name: [.short, .long], help: "Where to write the redacted HAR (default: standard output).")
    var output: String?

    @Option(name: .long, help: "Also redact the values of this parameter, JSON member or header (repeatable).")
    var redact: [String] = []

    @Option(name: .long, help: "Keep this name's values although they look random: a cursor, a trace id (repeatable).")
    var allow: [String] = []

    @Option(name: .long, help: "The largest input to read, in bytes.")
    var maxBytes = 256 << 20

    func run() throws {
        let document = try RecordingInput.read(file, limit: maxBytes)
        var rules = RedactionRules()
        for name in redact { rules.redact(name) }
        for name in allow { rules.allow(name) }
        let redacted: HARDocument
        do {
            redacted = try HARRedaction.redact(document, rules: rules)
        } catch {
            StandardError.write("error: \(error.developerMessage)")
            throw ExitCode(ExitCodes.badInput)
        }
        if let output {
            do {
                try redacted.data().write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                StandardError.write("error: cannot write \(output): \(error.localizedDescription)")
                throw ExitCode(ExitCodes.badInput)
            }
            StandardError.write("\(redacted.entries.count) entries redacted into \(output)")
        } else {
            FileHandle.standardOutput.write(redacted.data())
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}

/// Reading a HAR for a command.
enum RecordingInput {
    static func read(_ file: String, limit: Int) throws -> HARDocument {
        let data: Data
        do {
            data = try InputReading.read(argument: nil, file: file, limit: limit)
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(ExitCodes.badInput)
        }
        do {
            return try HARDocument(data: data)
        } catch {
            StandardError.write("error: \(file): \(error.developerMessage)")
            throw ExitCode(ExitCodes.badInput)
        }
    }
}
