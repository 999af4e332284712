import ArgumentParser
import Foundation
import MendCore

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

    func run() async throws {
        if offline {
            try runOffline()
            return
        }
        let resolved = try language.resolve()
        let printsJSON = json
        let say: @Sendable (String) -> Void = { line in
            // Unbuffered: progress shows as it happens, also through a pipe.
            if printsJSON {
                StandardError.write("  \(line)")
            } else {
                FileHandle.standardOutput.write(Data("  \(line)\n".utf8))
            }
        }
        if !json {
            FileHandle.standardOutput.write(
                Data("Mend demo: a login without a vendor SDK, real calls, and every kind of failure.\n\n".utf8))
        }
        let task = Task { try await LiveDemo(locale: resolved, say: say).run() }
        let interrupt = InterruptHandler { task.cancel() }
        defer { interrupt.stop() }
        let rows: [LiveDemo.Row]
        do {
            rows = try await task.value
        } catch is CancellationError {
            StandardError.write("interrupted: the emulator and mend-server were shut down.")
            throw ExitCode(130)
        } catch let error as MendError {
            StandardError.write("demo failed: \(error.description)")
            throw ExitCode(1)
        }
        if json {
            print(ErrorReport.json(rows))
        } else {
            print("\n" + LiveDemo.table(rows))
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
        print("Mend demo: \(rows.count) failures that real APIs send, classified offline by Mend's error catalog.\n")
        for row in rows {
            let report = row.report
            let identity = "\(report.domain)/\(report.code)" + (report.subcode.map { "/\($0)" } ?? "")
            let wait = report.notBefore.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? ""
            print("• \(row.scenario)")
            print(
                "    \(identity) \(report.name): \(report.category) → \(report.recovery)\(wait)"
                    + (report.permissions.isEmpty ? "" : " (\(report.permissions.joined(separator: ", ")))"))
            print("    user sees: \(report.userTitle) — \(report.userMessage)")
            print("    reference: \(report.referenceID ?? "-1")")
        }
        let counts = Dictionary(grouping: rows, by: \.report.category).mapValues(\.count)
        print(
            "\nSummary: "
                + MendError.Category.allCases.map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(
                    separator: ", ")
                + ". Try `mend explain --help` with your own responses, and `mend errors list` for the whole catalog.")
    }
}

/// One row of the demo's summary.
struct DemoRow: Encodable {
    var scenario: String
    var report: ErrorReport
}
