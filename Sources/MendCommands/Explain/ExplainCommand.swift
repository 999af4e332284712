import ArgumentParser
import Foundation
import MendCore
import MendGraphQL
import MendRecording

/// `mend explain`: what an error response means and what to do about it.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain an error response: its domain, code, category, recovery and user message.",
        discussion: """
            Give a Graph error body, a GraphQL response, or an HTTP status plus body (the REST status error space, \
            or any HTTP response) as an argument, with --file, or on standard input ('-'). With --har FILE, every \
            failed exchange of a HAR (a browser's, a proxy's, a Mend recording's) is explained in order.

            Examples:
              mend explain '{"error":{"code":190,"error_subcode":463,"fbtrace_id":"AbC"}}'
              mend explain --status 503 --file page.html
              curl -s … | mend explain --json --locale de
              mend explain --har session.har
            """
    )

    @Argument(help: "The response body ('-' or none: standard input, unless --file is given).")
    var body: String?

    @Option(name: .long, help: "Explain every failed exchange of this HAR file, in order ('-' for standard input).")
    var har: String?

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
        guard har == nil || (body == nil && file == nil && status == nil && header.isEmpty) else {
            throw ValidationError(
                "--har explains a whole HAR file: give no body, --file, --status or --header with it.")
        }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive.") }
        for line in header where !line.contains(":") {
            throw ValidationError("--header must look like 'Name: value', not '\(line)'.")
        }
    }

    func run() throws {
        let resolved = try language.resolve()
        if let har { return try explainHAR(har, locale: resolved) }
        let input: Data
        do {
            // `-` is standard input, as for --file.
            input = try InputReading.read(
                argument: body == "-" ? nil : body, file: body == "-" ? "-" : file, limit: maxBytes)
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

extension ExplainCommand {
    /// `--har`: each failed exchange's request line and the error it is, in order; `--json`: an array of them.
    func explainHAR(_ path: String, locale: Locale) throws {
        let document = try RecordingInput.read(path, limit: 256 << 20)
        let failures = HARExplainer(explainer: Explainer(maximumInputSize: maxBytes)).failures(in: document)
        guard !failures.isEmpty else {
            StandardError.write("no failed exchange among the \(document.entries.count) entries: nothing to explain")
            throw ExitCode(ExitCodes.notAnError)
        }
        let reports = failures.map { failure in
            var report = ErrorReport(failure.error, locale: locale)
            report.httpStatus = failure.status == 0 ? nil : failure.status
            return HARFailureReport(
                entry: failure.index, method: failure.method, url: failure.url, status: failure.status, error: report,
                recordedError: failure.disagreement.map { "\($0.recorded.codePath) \($0.recorded.name)" },
                readError: failure.disagreement.map { "\($0.read.codePath) \($0.read.name)" })
        }
        if json {
            print(ErrorReport.json(reports))
            return
        }
        for report in reports {
            print(
                "#\(report.entry) \(report.method) \(report.url) → \(report.status == 0 ? "no response" : String(report.status))"
            )
            print(report.error.text().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            if let recorded = report.recordedError, let read = report.readError {
                print("  note: the recording's _mend says \(recorded); its answer reads as \(read)")
            }
            print("")
        }
        print("\(reports.count) failed of \(document.entries.count) exchanges")
    }
}

/// One failed exchange of `mend explain --har --json`.
struct HARFailureReport: Encodable {
    /// Its position among the HAR's entries (0-based).
    var entry: Int
    var method: String
    /// The URL, redacted.
    var url: String
    /// 0 when there was no response.
    var status: Int
    var error: ErrorReport
    /// When the recording's `_mend` and the reading of the answer differ: what `_mend` names (`http/400`)…
    var recordedError: String?
    /// …and what the answer reads as (`graph/190/463`), as `mend explain` says of its body.
    var readError: String?
}

/// The CLI's exit codes.
enum ExitCodes {
    /// The input could not be read or understood (sysexits' EX_DATAERR).
    static let badInput: Int32 = 65
    /// The input was a success: nothing to explain.
    static let notAnError: Int32 = 1
    /// Nobody is logged in (no session, or it ended) and no token was given: `graph`, `graphql`, `whoami`, `token`
    /// and `sessions` sent nothing. 4, as `gh` says "authentication required".
    static let notLoggedIn: Int32 = 4
}
