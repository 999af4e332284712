import ArgumentParser
import Foundation
import MendCore

/// `mend demo`: what Mend makes of the failures real APIs send.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show how Mend classifies the failures that real APIs send, and what it tells the user."
    )

    @Option(name: .long, help: "The language of user messages: en, de, es, fr or ja.")
    var locale: String?

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        let resolved = LocaleOption.resolve(locale)
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
