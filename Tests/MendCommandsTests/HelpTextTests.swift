import Foundation
import Testing

/// Every command's `--help`, through the built `mend` and `mend-server`, read whole at 80 columns and wider: no
/// example split over two lines, no line of prose broken before the width (a hard break in a paragraph, which
/// argument-parser then wraps again), nothing but the usage line wider than the terminal.
@Suite("Help texts read whole at 80 columns and wider", .enabled(if: MendBinary.url != nil))
struct HelpTextTests {
    /// `tool`'s `--help` for `path` at `columns`.
    static func help(_ tool: String, _ path: [String], columns: Int) async throws -> String {
        let run = try await MendBinary.run(
            path + ["--help"], environment: ["COLUMNS": String(columns)], executable: tool)
        return run.stdout + run.stderr
    }

    /// The subcommands a help text lists (its SUBCOMMANDS section), `help` left out.
    static func subcommands(in help: String) -> [String] {
        guard let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [] }
        return section.components(separatedBy: "\n\n")[0].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            let name = line.split(separator: " ").first.map(String.init)
            return name == "help" ? nil : name
        }
    }

    /// What is wrong with a help text at `columns`, line by line.
    static func problems(in help: String, columns: Int) -> [String] {
        var found: [String] = []
        let lines = help.components(separatedBy: "\n")
        // The prose before USAGE: the abstract and the discussion.
        let prose = help.components(separatedBy: "USAGE:")[0].components(separatedBy: "\n")
        for (line, next) in zip(prose, prose.dropFirst()) where !next.trimmingCharacters(in: .whitespaces).isEmpty {
            if line.hasPrefix("  "), !next.hasPrefix(" "), !line.trimmingCharacters(in: .whitespaces).hasPrefix("-") {
                found.append("an example split: '\(line)' / '\(next)'")
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("  "), !next.hasPrefix("  "),
                let word = next.split(separator: " ").first, line.count + 1 + word.count < columns - 1
            {
                found.append("a paragraph broken early: '\(line)' / '\(next)'")
            }
        }
        for line in lines where line.count > columns && !line.hasPrefix("USAGE:") {
            found.append("\(line.count) columns: '\(line)'")
        }
        return found
    }

    @Test("every command of mend and mend-server", arguments: ["mend", "mend-server"])
    func everyCommand(tool: String) async throws {
        var pending: [[String]] = [[]]
        var seen = 0
        while let path = pending.popLast() {
            seen += 1
            for columns in [80, 120] {
                let text = try await Self.help(tool, path, columns: columns)
                #expect(text.contains("USAGE:"), "\(tool) \(path): \(text)")
                // Failed before: `mend login --help` split three examples mid-flag at 80 columns and broke its
                // paragraphs at about 100 columns and again at the width.
                for problem in Self.problems(in: text, columns: columns) {
                    Issue.record("\(tool) \(path.joined(separator: " ")) at \(columns) columns: \(problem)")
                }
                if columns == 80 { pending += Self.subcommands(in: text).map { path + [$0] } }
            }
        }
        #expect(seen > (tool == "mend" ? 15 : 8), "walked \(seen) commands")
    }

    @Test("the check finds a split example and a hard break (positive control)")
    func positiveControl() {
        let broken = """
            OVERVIEW: Log in.

            Examples:
              mend login --base-url http://127.0.0.1:8080 --app-id 111111111111111
            --headless   (against mend emulate)

            Device login shows a code and an address to open on a phone or a computer, and waits for
            the answer there.

            USAGE: mend login
            """
        let found = Self.problems(in: broken, columns: 120)
        #expect(found.count == 2, "\(found)")
    }
}
