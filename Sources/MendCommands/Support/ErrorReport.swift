public import Foundation
public import MendCore

/// The stable, machine-readable shape of an error that `mend explain --json` (and every `--json` failure of the
/// CLI) prints. Field names never change; fields without a value are `null`, never missing.
public struct ErrorReport: Encodable, Sendable {
    /// The Mend domain (`graph`).
    public var domain: String
    /// The code within the domain.
    public var code: Int
    /// The subcode, or `null`.
    public var subcode: Int?
    /// The catalog name.
    public var name: String
    /// `transient`, `recoverable` or `other`.
    public var category: String
    /// The recovery action.
    public var recovery: String
    /// The permissions the recovery requests.
    public var permissions: [String]
    /// The earliest time to retry, if known.
    public var notBefore: Date?
    /// The localized user title.
    public var userTitle: String
    /// The localized user message.
    public var userMessage: String
    /// The localized recovery suggestion.
    public var recoverySuggestion: String?
    /// The localized recovery option labels.
    public var recoveryOptions: [String]
    /// The redacted developer message.
    public var developerMessage: String
    /// The reference id, or `null` for an error that never reached the API.
    public var referenceID: String?
    /// The HTTP status, if any.
    public var httpStatus: Int?
    /// Field-level details.
    public var additionalMessages: [String]
    /// How many tries were made.
    public var attempts: Int
    /// For a GraphQL error: its path (`hero.friends[1].name`).
    public var path: String?
    /// For a GraphQL response: each of its errors.
    public var errors: [ErrorReport]?

    /// Creates the report of `error`, with user text in `locale`.
    public init(_ error: MendError, locale: Locale, path: String? = nil) {
        domain = error.domain.rawValue
        code = error.code.rawValue
        subcode = error.subcode?.rawValue
        name = error.name
        category = error.category.rawValue
        recovery = error.recovery.action.rawValue
        permissions = error.recovery.permissions
        notBefore = error.recovery.notBefore
        userTitle = error.userTitle(locale: locale)
        userMessage = error.userMessage(locale: locale)
        recoverySuggestion = error.recoverySuggestion(locale: locale)
        recoveryOptions = error.recoveryOptions(locale: locale)
        developerMessage = error.developerMessage
        referenceID = error.referenceID
        httpStatus = error.httpStatus
        additionalMessages = error.additionalMessages
        attempts = error.attempts
        self.path = path
        errors = nil
    }

    enum CodingKeys: String, CodingKey {
        case domain, code, subcode, name, category, recovery, permissions, notBefore, userTitle, userMessage
        case recoverySuggestion, recoveryOptions, developerMessage, referenceID, httpStatus, additionalMessages
        case attempts, path, errors
    }

    /// Encodes the value (its stable form).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(code, forKey: .code)
        try container.encode(subcode, forKey: .subcode)
        try container.encode(name, forKey: .name)
        try container.encode(category, forKey: .category)
        try container.encode(recovery, forKey: .recovery)
        try container.encode(permissions, forKey: .permissions)
        try container.encode(notBefore, forKey: .notBefore)
        try container.encode(userTitle, forKey: .userTitle)
        try container.encode(userMessage, forKey: .userMessage)
        try container.encode(recoverySuggestion, forKey: .recoverySuggestion)
        try container.encode(recoveryOptions, forKey: .recoveryOptions)
        try container.encode(developerMessage, forKey: .developerMessage)
        try container.encode(referenceID, forKey: .referenceID)
        try container.encode(httpStatus, forKey: .httpStatus)
        try container.encode(additionalMessages, forKey: .additionalMessages)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(path, forKey: .path)
        if let errors { try container.encode(errors, forKey: .errors) }
    }

    /// Pretty, sorted JSON with ISO 8601 dates.
    public static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension ErrorReport {
    /// Aligned `label: value` lines for people.
    public func text() -> String {
        var rows: [(String, String)] = [
            ("domain", domain),
            ("code", String(code)),
            ("subcode", subcode.map(String.init) ?? "—"),
            ("name", name),
            ("category", category),
            ("recovery", permissions.isEmpty ? recovery : "\(recovery) (\(permissions.joined(separator: ", ")))"),
        ]
        if let notBefore { rows.append(("retry not before", ISO8601DateFormatter().string(from: notBefore))) }
        rows += [
            ("user title", userTitle),
            ("user message", userMessage),
            ("suggestion", recoverySuggestion ?? "—"),
            ("options", recoveryOptions.joined(separator: " | ")),
            ("developer message", developerMessage),
            ("reference id", referenceID ?? "— (never reached the API)"),
        ]
        if let httpStatus { rows.append(("http status", String(httpStatus))) }
        if let path { rows.append(("path", path)) }
        for message in additionalMessages { rows.append(("detail", message)) }
        let width = rows.map(\.0.count).max() ?? 0
        var lines = rows.map { label, value in
            label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value
        }
        for (position, error) in (errors ?? []).enumerated() {
            lines.append("")
            lines.append("GraphQL error \(position + 1) of \(errors?.count ?? 0):")
            lines.append(contentsOf: error.text().split(separator: "\n").map { "  " + $0 })
        }
        return lines.joined(separator: "\n")
    }
}
