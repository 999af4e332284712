import ArgumentParser
import Foundation
import InMemoryTracing
import MendCore
import Tracing

/// `mend demo`: the whole system in one command — a login without a vendor SDK, real calls, and every kind of
/// failure handled — against the emulator and `mend-server`, in-process on loopback.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Log in, call the APIs and live through every kind of failure, against a local emulator and mend-server."
    )

    @OptionGroup var language: LanguageOptions

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    @Flag(name: .long, help: "Only classify recorded failure responses (no servers, no network).")
    var offline = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Print the whole summary table (user messages, reference ids, what Mend did), however wide; by default "
                + "the text fits 80 columns."))
    var wide = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "After the summary, print each request's trace as a waterfall: the app's attempts, waits and refreshes, "
                + "mend-server's spans and its calls to the provider."))
    var trace = false

    func run() async throws {
        if offline {
            try runOffline()
            return
        }
        let resolved = try language.resolve()
        let printsJSON = json
        let width = wide ? Int.max : TextLayout.terminalWidth
        let say: @Sendable (String) -> Void = { line in
            // Two spaces in, four for the lines a long one wraps to.
            let text = TextLayout.wrap(line, width: width - 2, indent: "  ").map { "  " + $0 }.joined(separator: "\n")
            // Unbuffered: progress shows as it happens, also through a pipe.
            if printsJSON {
                StandardError.write(text)
            } else {
                FileHandle.standardOutput.write(Data("\(text)\n".utf8))
            }
        }
        if !json {
            FileHandle.standardOutput.write(
                Data("Mend demo: a login without a vendor SDK, real calls, and every kind of failure.\n\n".utf8))
        }
        let tracer = InMemoryTracer()
        let traces = trace
        // The handler first, so that no interrupt finds the run without one (on a loaded machine the run may print
        // its first lines before this thread gets to the next statement).
        let interrupted = Locked(false)
        let running = Locked<Task<[LiveDemo.Row], any Error>?>(nil)
        let interrupt = await InterruptHandler {
            interrupted.withLock { $0 = true }
            running.withLock { $0?.cancel() }
        }
        defer { interrupt.stop() }
        let task = Task {
            guard traces else { return try await LiveDemo(locale: resolved, say: say).run() }
            // The emulator and mend-server run in this task: their spans land in the same tracer.
            return try await withTracer(tracer) { try await LiveDemo(locale: resolved, say: say).run() }
        }
        running.withLock { $0 = task }
        if interrupted.withLock({ $0 }) { task.cancel() }
        let rows: [LiveDemo.Row]
        do {
            rows = try await task.value
        } catch let error as MendError where !interrupted.withLock({ $0 }) {
            StandardError.write("demo failed: \(error.description)")
            throw ExitCode(1)
        } catch  where error is CancellationError || interrupted.withLock({ $0 }) {
            // Cancelled — or failed because of the interrupt: a request in flight when the servers shut down fails
            // as a transport error, not as cancellation.
            StandardError.write("interrupted: the emulator and mend-server were shut down.")
            throw ExitCode(130)
        }
        // Interrupted, but the run had reached its end before the cancellation took (its servers are down): still an
        // interruption, said as one.
        if interrupted.withLock({ $0 }) {
            StandardError.write("interrupted: the emulator and mend-server were shut down.")
            throw ExitCode(130)
        }
        if json {
            print(ErrorReport.json(rows))
        } else {
            print("\n" + LiveDemo.table(rows, wide: wide))
        }
        if trace {
            let waterfall = TraceWaterfall.render(tracer.finishedSpans, width: width)
            if json { StandardError.write(waterfall) } else { print("\n" + waterfall) }
        }
        guard rows.allSatisfy(\.passed) else { throw ExitCode(1) }
    }

    func runOffline() throws {
        let resolved = try language.resolve()
        let explainer = Explainer()
        var rows: [DemoRow] = []
        for scenario in DemoScenario.all {
            let input = Explainer.Input(
                body: Data(scenario.body.utf8), status: scenario.status, headers: scenario.headers, kind: scenario.kind)
            let explanation = try explainer.explain(input)
            rows.append(DemoRow(scenario: scenario.title, report: ErrorReport(explanation.error, locale: resolved)))
        }
        if json {
            print(ErrorReport.json(rows))
            return
        }
        let width = wide ? Int.max : TextLayout.terminalWidth
        /// Prints `text` wrapped to the width, its later lines indented by `indent` more than its first.
        func say(_ text: String, indent: String = "    ") {
            print(TextLayout.wrap(text, width: width, indent: indent).joined(separator: "\n"))
        }
        say(
            "Mend demo: \(rows.count) failures that real APIs send, classified offline by Mend's error catalog.\n",
            indent: "")
        for row in rows {
            let report = row.report
            let identity = "\(report.domain)/\(report.code)" + (report.subcode.map { "/\($0)" } ?? "")
            let wait = report.notBefore.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? ""
            say("• \(row.scenario)", indent: "  ")
            say(
                "    \(identity) \(report.name): \(report.category) → \(report.recovery)\(wait)"
                    + (report.permissions.isEmpty ? "" : " (\(report.permissions.joined(separator: ", ")))"),
                indent: "      ")
            say("    user sees: \(report.userTitle) — \(report.userMessage)", indent: "      ")
            say("    reference: \(report.referenceID ?? "— (never reached the API)")", indent: "      ")
        }
        let counts = Dictionary(grouping: rows, by: \.report.category).mapValues(\.count)
        say(
            "\nSummary: "
                + MendError.Category.allCases.map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(
                    separator: ", ")
                + ". Try `mend explain --help` with your own responses, and `mend errors list` for the whole catalog.",
            indent: "")
    }
}

/// One row of the demo's summary.
struct DemoRow: Encodable {
    var scenario: String
    var report: ErrorReport
}
