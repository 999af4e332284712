import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text laid out for a terminal: lines wrapped at spaces, tables that fit a width.
///
/// `mend` fits what it prints to ``terminalWidth`` columns (the terminal's width when standard output is one, else
/// 80), so that nothing wraps in the middle of a cell; `--wide` asks for the whole table, however wide. Widths count characters (grapheme
/// clusters), which is the terminal's count for the text Mend prints.
package enum TextLayout {
    /// The width of text that goes to a file or a pipe: an 80-column terminal's.
    package static let defaultWidth = 80

    /// The width `mend` fits its text to unless asked for the whole width: the terminal's columns when standard
    /// output is a terminal, else ``defaultWidth``.
    package static var terminalWidth: Int { columns(of: STDOUT_FILENO) ?? defaultWidth }

    /// The columns of the terminal `descriptor` writes to; `nil` when it is not a terminal (or says 0).
    package static func columns(of descriptor: Int32) -> Int? {
        guard isatty(descriptor) == 1 else { return nil }
        var size = winsize()
        #if canImport(Darwin)
            let request = TIOCGWINSZ
        #else
            let request = UInt(TIOCGWINSZ)
        #endif
        let result = withUnsafeMutablePointer(to: &size) { ioctl(descriptor, request, $0) }
        guard result == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// `text` wrapped at spaces into lines of at most `width` characters. A line keeps the spaces it starts with;
    /// the lines it wraps to start with `indent` instead. A word longer than a line is cut where the line ends. Line
    /// breaks in `text` are kept.
    package static func wrap(_ text: String, width: Int, indent: String = "") -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { paragraph in
            wrapLine(String(paragraph), width: width, indent: indent)
        }
    }

    private static func wrapLine(_ text: String, width: Int, indent: String) -> [String] {
        let lead = String(text.prefix { $0 == " " })
        var lines: [String] = []
        var line = ""
        for word in text.dropFirst(lead.count).split(separator: " ").map(String.init) {
            let start = lines.isEmpty ? lead : indent
            let candidate = line.isEmpty ? start + word : line + " " + word
            if candidate.count <= width {
                line = candidate
                continue
            }
            if !line.isEmpty {
                lines.append(line)
                line = ""
            }
            var rest = Substring(word)
            while true {
                let start = lines.isEmpty ? lead : indent
                let room = max(1, width - start.count)
                if rest.count <= room {
                    line = start + rest
                    break
                }
                lines.append(start + rest.prefix(room))
                rest = rest.dropFirst(room)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// A table: the header, a rule, then one line per row, columns separated by ` │ `.
    ///
    /// - Parameters:
    ///   - header: The column names.
    ///   - rows: The cells, as many per row as `header` has names.
    ///   - width: The most characters a line may have: the widest column gives up a character until the lines fit
    ///     (no column below `minimumColumn`), and cells too long for their column end with `…`. `nil`: every cell
    ///     whole.
    ///   - minimumColumn: The narrowest a column may become.
    package static func table(
        header: [String], rows: [[String]], width: Int?, minimumColumn: Int = 6
    ) -> [String] {
        var widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        if let width {
            let separators = 3 * max(0, widths.count - 1)
            while widths.reduce(separators, +) > width {
                guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > minimumColumn
                else { break }
                widths[widest] -= 1
            }
        }
        func line(_ values: [String]) -> String {
            zip(values, widths).map { value, width in
                let clipped = value.count > width ? String(value.prefix(max(0, width - 1))) + "…" : value
                return clipped.padding(toLength: width, withPad: " ", startingAt: 0)
            }.joined(separator: " │ ").trailingSpacesRemoved
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─")
        return [line(header), rule] + rows.map(line)
    }
}

extension String {
    /// The string without the spaces at its end (a padded last column).
    fileprivate var trailingSpacesRemoved: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
