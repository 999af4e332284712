import ArgumentParser
import Foundation
import MendCore
import MendGraphQL

/// `mend explain`: what an error response means and what to do about it.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain an error response: its domain, code, category, recovery and user message.",
        discussion: """
            Give a Graph error body, a GraphQL response, or an HTTP status plus body (the REST status error space, \
            or any HTTP response) as an argument, with --file, or on standard input.

            Examples:
              mend explain '{"error":{"message":"Session has expired","type":"OAuthException","code":190,"error_subcode":463,"fbtrace_id":"AbC"}}'
              mend explain --status 503 --file page.html
              curl -s … | mend explain --json --locale de
            """
    )

    @Argument(help: "The response body. Omit it to read --file or standard input.")
    var body: String?

    @Option(name: [.short, .long], help: "Read the body from a file ('-' for standard input).")
    var file: String?

    @Option(name: .long, help: "The response's HTTP status.")
    var status: Int?

    @Option(name: [.customShort("H"), .long], help: "A response header, 'Name: value' (repeatable).")
    var header: [String] = []

    @Option(name: .long, help: "The response's API: auto, graph, graphql, rest, oauth or http.")
    var kind: String = "auto"

    @Flag(name: .long, help: "Print JSON with stable field names.")
    var json = false

    @OptionGroup var language: LanguageOptions

    @Option(name: .long, help: "The largest input to read, in bytes.")
    var maxBytes = 1 << 20

    func validate() throws {
        guard Explainer.Kind(rawValue: kind) != nil else {
            throw ValidationError(
                "--kind must be one of: \(Explainer.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard body == nil || file == nil else {
            throw ValidationError("Give the body as an argument or with --file, not both.")
        }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive.") }
        for line in header where !line.contains(":") {
            throw ValidationError("--header must look like 'Name: value', not '\(line)'.")
        }
    }

    func run() throws {
        let resolved = try language.resolve()
        let input: Data
        do {
            input = try InputReading.read(argument: body, file: file, limit: maxBytes)
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(ExitCodes.badInput)
        }
        let headers = header.map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (
                String(parts[0]).trimmingCharacters(in: .whitespaces),
                parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
            )
        }
        let explainer = Explainer(maximumInputSize: maxBytes)
        let explanation: Explanation
        do {
            explanation = try explainer.explain(
                .init(body: input, status: status, headers: headers, kind: Explainer.Kind(rawValue: kind) ?? .auto))
        } catch .notAnError {
            StandardError.write("error: \(ExplainFailure.notAnError)")
            throw ExitCode(ExitCodes.notAnError)
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(ExitCodes.badInput)
        }
        var report = ErrorReport(explanation.error, locale: resolved)
        // The decoders need a status; the report shows one only when it was given (the body alone says nothing of it).
        report.httpStatus = status
        if !explanation.graphQLErrors.isEmpty, explanation.error.code == .GraphQL.responseHasErrors {
            report.errors = explanation.graphQLErrors.map {
                ErrorReport($0.mendError, locale: resolved, path: $0.error.pathText)
            }
        } else if let only = explanation.graphQLErrors.first {
            report.path = only.error.pathText
        }
        print(json ? ErrorReport.json(report) : report.text())
    }
}

/// The CLI's exit codes.
enum ExitCodes {
    /// The input could not be read or understood (sysexits' EX_DATAERR).
    static let badInput: Int32 = 65
    /// The input was a success: nothing to explain.
    static let notAnError: Int32 = 1
}
