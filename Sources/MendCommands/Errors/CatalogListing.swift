public import Foundation
public import MendCore
import MendEmulator

/// The catalog rendered for people (text), documentation (Markdown) and programs (JSON).
public struct CatalogListing: Sendable {
    /// One row.
    public struct Row: Encodable, Sendable {
        /// The Mend domain (`graph`).
        public var domain: String
        /// The code, a range (`200–299`) or `*`.
        public var code: String
        /// The subcode or `*`.
        public var subcode: String
        /// The catalog name.
        public var name: String
        /// `transient`, `recoverable` or `other`.
        public var category: String
        /// The recovery action.
        public var recovery: String
        /// Whether the pipeline retries it automatically.
        public var autoRetry: Bool
        /// The localized user title.
        public var userTitle: String
        /// The localized user message.
        public var userMessage: String
        /// The catalog's one-line meaning.
        public var summary: String
        /// The codes the row covers (`nil`: any code).
        public var codes: ClosedRange<Int>? = nil
        /// The subcode as a number (`nil`: any subcode).
        public var subcodeNumber: Int? = nil
        /// The phrase the provider's message contains for this row to match (`nil`: the code alone decides).
        public var messagePhrase: String? = nil

        private enum Keys: String, CodingKey {
            case domain, code, codes, codeText, subcode, subcodeText, messagePhrase, name, category, recovery
            case autoRetry, userTitle, userMessage, summary
        }

        /// As `mend errors list --json` writes it: `code` and `subcode` are numbers (`null` for a row that covers
        /// any, or a range of codes), `codes` the range as `{"lowest", "highest"}` (`null`: any), and `codeText`
        /// and `subcodeText` as the text table shows them (`200–299`, `*`); `messagePhrase` the words the provider's
        /// message contains for the row to match (`null` for most rows).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(domain, forKey: .domain)
            let single = codes.flatMap { $0.count == 1 ? $0.lowerBound : nil }
            try container.encode(single, forKey: .code)
            try container.encode(codes.map { ["lowest": $0.lowerBound, "highest": $0.upperBound] }, forKey: .codes)
            try container.encode(code, forKey: .codeText)
            try container.encode(subcodeNumber, forKey: .subcode)
            try container.encode(subcode, forKey: .subcodeText)
            try container.encode(messagePhrase, forKey: .messagePhrase)
            try container.encode(name, forKey: .name)
            try container.encode(category, forKey: .category)
            try container.encode(recovery, forKey: .recovery)
            try container.encode(autoRetry, forKey: .autoRetry)
            try container.encode(userTitle, forKey: .userTitle)
            try container.encode(userMessage, forKey: .userMessage)
            try container.encode(summary, forKey: .summary)
        }
    }

    /// The rows, in catalog order.
    public let rows: [Row]

    /// Lists `catalog` with user text in `locale`, optionally one domain only.
    public init(catalog: ErrorCatalog, locale: Locale, domain: MendError.Domain? = nil) {
        let language = MendLocalization.language(for: locale)
        rows = catalog.entries.filter { domain == nil || $0.domain == domain }.map { entry in
            var error = MendError(
                entry: entry, code: MendError.Code(entry.domain, entry.codes?.lowerBound ?? 0),
                subcode: entry.subcode.map(MendError.Subcode.init(rawValue:)), developerMessage: entry.summary)
            error.requestedPermissions = []
            let locale = Locale(identifier: language)
            return Row(
                domain: entry.domain.rawValue, code: entry.codeText, subcode: entry.subcodeText, name: entry.name,
                category: entry.category.rawValue, recovery: entry.recovery.rawValue,
                autoRetry: entry.isAutomaticallyRetryable, userTitle: error.userTitle(locale: locale),
                userMessage: error.userMessage(locale: locale), summary: entry.summary, codes: entry.codes,
                subcodeNumber: entry.subcode, messagePhrase: entry.messagePhrase)
        }
    }

    /// A plain-text table, each line at most `width` characters; `nil`: whole lines.
    ///
    /// Within a width, the user message comes last and is cut with `…`; when fewer than 16 characters of it would
    /// fit, it is left out (`--wide`, `--json` and `--markdown` have it), and the widest other columns give up
    /// characters, their cells cut with `…`, down to their header's width.
    public func text(width: Int? = nil) -> String {
        let header = Row(
            domain: "DOMAIN", code: "CODE", subcode: "SUB", name: "NAME", category: "CATEGORY", recovery: "RECOVERY",
            autoRetry: false, userTitle: "", userMessage: "USER MESSAGE", summary: "")
        let all = [header] + rows
        let columns: [(Row) -> String] = [\.domain, \.code, \.subcode, \.name, \.category, \.recovery]
        var widths = columns.map { column in all.map { column($0).count }.max() ?? 0 }
        let minimums = columns.map { column in column(header).count }
        let lead = widths.reduce(2 * columns.count, +)
        var showsMessage = true
        if let width, width - lead < 16 {
            showsMessage = false
            let budget = width - 2 * (columns.count - 1)
            while widths.reduce(0, +) > budget,
                let widest = widths.indices.filter({ widths[$0] > minimums[$0] }).max(by: { widths[$0] < widths[$1] })
            {
                widths[widest] -= 1
            }
        }
        func clipped(_ text: String, _ width: Int) -> String {
            text.count > width ? String(text.prefix(max(0, width - 1))) + "…" : text
        }
        return all.map { row in
            let cells = zip(columns, widths).map { column, width in
                clipped(column(row), width).padding(toLength: width, withPad: " ", startingAt: 0)
            }
            guard showsMessage else {
                var line = Substring(cells.joined(separator: "  "))
                while line.last == " " { line = line.dropLast() }
                return String(line)
            }
            let room = width.map { $0 - lead } ?? Int.max
            return cells.joined(separator: "  ") + "  " + clipped(row.userMessage, room)
        }.joined(separator: "\n")
    }

    /// The documentation page: one section per domain, with counts.
    public func markdown() -> String {
        var lines = [
            "# Mend error catalog",
            "",
            "<!-- Generated by `mend errors list --markdown`; a test checks that it is current. Do not edit. -->",
            "",
            "Every error Mend produces is one of these rows. Lookup within a domain goes (code, subcode) → "
                + "(code, any) → (any, subcode) → (any, any); `*` means any. An HTTP status without a row of its own "
                + "is classified by its class (4xx as 400, 5xx as 500). A row whose meaning begins “Message contains …” "
                + "matches when the provider's message (or, for Graph, its `error_user_title` or `error_user_msg`) "
                + "contains that phrase (in any case), before the rows of its code without one: the provider tells those "
                + "cases apart only in words. A provider's `is_transient: true` makes any Graph error transient, except "
                + "one that asks for a smaller request (`reduceRequestSize`). User messages are shown in English here; Mend ships "
                + MendLocalization.supportedLanguages.joined(separator: ", ") + ".",
            "",
            "| domain | rows |",
            "|---|---|",
        ]
        let domains = ErrorCatalog.everySpace.domains.map(\.rawValue).filter { domain in
            rows.contains { $0.domain == domain }
        }
        for domain in domains { lines.append("| \(domain) | \(rows.filter { $0.domain == domain }.count) |") }
        lines.append("| **total** | \(rows.count) |")
        for domain in domains {
            lines += [
                "", "## \(domain)", "",
                "| code | subcode | name | category | recovery | auto-retry | user message | meaning |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for row in rows where row.domain == domain {
                let meaning = row.messagePhrase.map { "Message contains “\($0)”: \(row.summary)" } ?? row.summary
                let cells = [
                    row.code, row.subcode, "`\(row.name)`", row.category, row.recovery, row.autoRetry ? "yes" : "no",
                    row.userMessage, meaning,
                ]
                lines.append(
                    "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
