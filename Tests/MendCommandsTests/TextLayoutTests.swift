import MendCommands
import Testing

@Suite("Text that fits the terminal: wrapped lines and narrowed tables")
struct TextLayoutTests {
    @Test("Wrapping keeps words whole, keeps a line's leading spaces, indents the lines it wraps to")
    func wraps() {
        let text = "  ✓ throttled (app usage 100 %): graph.4.appRateLimit → held the app's requests 2.0 s (Retry-After)"
        let lines = TextLayout.wrap(text, width: 40, indent: "    ")
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(lines)")
        #expect(lines.first?.hasPrefix("  ✓ throttled") == true)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    ") && !$0.hasPrefix("     ") })
        #expect(lines.joined(separator: " ").split(separator: " ") == text.split(separator: " "))
    }

    @Test("A word longer than a line is cut; line breaks are kept; short text is one line")
    func longWordsAndBreaks() {
        let long = String(repeating: "x", count: 25)
        #expect(TextLayout.wrap(long, width: 10) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
        #expect(TextLayout.wrap("a\n\nb", width: 10) == ["a", "", "b"])
        #expect(TextLayout.wrap("short", width: 80) == ["short"])
        #expect(TextLayout.wrap("", width: 80) == [""])
    }

    @Test("A table narrows its widest columns to fit, clips with …, and without a width shows every cell whole")
    func tables() {
        let header = ["scenario", "error", "recovery"]
        let rows = [
            ["missing permission", "graph/200", "requestPermissions(publish_actions)"],
            ["transient 5xx", "graph/2", "retry"],
        ]
        let narrow = TextLayout.table(header: header, rows: rows, width: 56)
        #expect(narrow.allSatisfy { $0.count <= 56 }, "\(narrow)")
        #expect(narrow[2].hasSuffix("requestPermissions(pub…"))
        #expect(narrow[2].hasPrefix("missing permission │ graph/200 │ "))
        #expect(narrow.allSatisfy { !$0.hasSuffix(" ") })
        let whole = TextLayout.table(header: header, rows: rows, width: nil)
        #expect(whole[2].hasSuffix("requestPermissions(publish_actions)"))
        #expect(!whole.joined().contains("…"))
        #expect(whole[1].hasPrefix(String(repeating: "─", count: 19) + "┼"))
    }
}
