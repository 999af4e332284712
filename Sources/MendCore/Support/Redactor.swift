import Foundation

/// Removes tokens, secrets, codes and credentials from text, JSON and headers before they are stored or shown.
///
/// Redaction works on what a value *is*, not on a global string replace: values under sensitive keys
/// (`access_token`, `client_secret`, …), sensitive headers (`Authorization`, `Cookie`, …), the known secret values
/// the caller registers (the request's own token), and token shapes that only credentials have (bearer
/// credentials, JWTs, Graph access tokens). Everything else is kept.
public struct Redactor: Sendable {
    /// What replaces a redacted value.
    package static let placeholder = "<redacted>"

    /// The redactor with Mend's sensitive keys and headers and no registered secret values.
    public static let standard = Redactor()

    /// Keys (compared case-insensitively) whose values are always redacted in JSON, forms and query strings.
    package var sensitiveKeys: Set<String>
    /// Header names (compared case-insensitively) whose values are always redacted.
    package var sensitiveHeaders: Set<String>
    /// Exact secret values to remove wherever they appear (a request's token, an app secret).
    package private(set) var secrets: [String]

    /// Creates a redactor with Mend's defaults, plus `secrets`.
    public init(secrets: [String] = []) {
        self.sensitiveKeys = Self.defaultSensitiveKeys
        self.sensitiveHeaders = Self.defaultSensitiveHeaders
        self.secrets = []
        for secret in secrets { register(secret: secret) }
    }

    /// Returns a copy that also removes `secrets` wherever they appear.
    package func adding(secrets: [String]) -> Redactor {
        var copy = self
        for secret in secrets { copy.register(secret: secret) }
        return copy
    }

    private mutating func register(secret: String) {
        // Very short values would redact ordinary words; credentials are never this short.
        guard secret.count >= 6, !secrets.contains(secret) else { return }
        secrets.append(secret)
        secrets.sort { $0.count > $1.count }
    }

    static let defaultSensitiveKeys: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "input_token", "fb_exchange_token", "client_secret",
        "app_secret", "appsecret", "secret", "code_verifier", "password", "passwd", "appsecret_proof",
        "signed_request", "authorization", "cookie", "session_token", "sessiontoken", "session_key", "api_key",
        "apikey", "x-api-key", "assertion", "client_assertion", "private_key", "accesstoken", "refreshtoken",
        "idtoken", "clientsecret",
    ]

    static let defaultSensitiveHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
        "x-access-token", "x-refresh-token", "x-session-token", "x-appacitive-session", "x-appacitive-apikey",
    ]

    /// Authorization codes are long strings under the key `code`; error codes under the same key are numbers or
    /// short names (`"UNAUTHENTICATED"`), which stay.
    static let minimumRedactedCodeLength = 20

    /// `text` through every pattern, with no shortcut: what ``redact(text:)`` must give for a text without registered
    /// secrets (the test of ``mayMatchAPattern(_:)``).
    package static func redactWithEveryPattern(_ text: String) -> String {
        patterns.reduce(text) { $1.replace(in: $0) }
    }

    /// Returns `text` with registered secrets, sensitive `key=value` pairs, JSON members and token shapes removed.
    public func redact(text: String) -> String {
        guard !text.isEmpty else { return text }
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        guard Self.mayMatchAPattern(result) else { return result }
        for pattern in Self.patterns {
            result = pattern.replace(in: result)
        }
        return result
    }

    /// Returns `json` with the values of sensitive keys replaced and every string redacted as text.
    package func redact(json: JSONValue) -> JSONValue {
        switch json {
        case .string(let text):
            return .string(redact(text: text))
        case .array(let elements):
            return .array(elements.map { redact(json: $0) })
        case .object(let members):
            var redacted: [String: JSONValue] = [:]
            for (key, value) in members {
                redacted[key] = isSensitive(key: key, value: value) ? .string(Self.placeholder) : redact(json: value)
            }
            return .object(redacted)
        case .null, .bool, .int, .double:
            return json
        }
    }

    /// Returns the header's value, or the placeholder when the header is sensitive.
    package func redact(headerName: String, value: String) -> String {
        sensitiveHeaders.contains(headerName.lowercased()) ? Self.placeholder : redact(text: value)
    }

    /// Whether the value under `key` is a credential.
    package func isSensitive(key: String, value: JSONValue) -> Bool {
        let lowered = key.lowercased()
        if lowered == "code" {
            if case .string(let text) = value { return text.count >= Self.minimumRedactedCodeLength }
            return false
        }
        return sensitiveKeys.contains(lowered)
    }
}

extension Redactor {
    struct Pattern: @unchecked Sendable {
        // NSRegularExpression is immutable after creation and documented as safe to use from several threads.
        let expression: NSRegularExpression
        let template: String

        /// A pattern; `caseSensitive` for token shapes whose prefix is exact (`EAA`, `eyJ`), so that a random id that
        /// happens to start with `eaa` is not taken for a token.
        init(_ pattern: String, template: String, caseSensitive: Bool = false) {
            // The patterns are constants of this file; a failure here is a programming error caught by every test.
            self.expression = try! NSRegularExpression(
                pattern: pattern, options: caseSensitive ? [] : [.caseInsensitive])
            self.template = template
        }

        func replace(in text: String) -> String {
            let range = NSRange(text.startIndex..<text.endIndex, in: text)
            return expression.stringByReplacingMatches(in: text, options: [], range: range, withTemplate: template)
        }
    }

    /// Whether any of ``patterns`` could match `text`: each needs a quote, `=`, `|` or whitespace (any non-ASCII
    /// character counts, as it may be Unicode whitespace), or starts with `eyJ` or `EAA`. Most texts (a query value,
    /// a name, a number) have none, and skip the eight regular expressions (about 75,000 instructions a text).
    package static func mayMatchAPattern(_ text: String) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "="), UInt8(ascii: "|"), 0x09...0x0D, 0x20, 0x80...: return true
            case UInt8(ascii: "J") where previous == (UInt8(ascii: "e"), UInt8(ascii: "y")): return true
            case UInt8(ascii: "A") where previous == (UInt8(ascii: "E"), UInt8(ascii: "A")): return true
            default: previous = (previous.1, byte)
            }
        }
        return false
    }

    static let keyAlternation: String = {
        defaultSensitiveKeys.sorted { $0.count > $1.count }.map(NSRegularExpression.escapedPattern(for:))
            .joined(separator: "|")
    }()

    // swift-format-ignore
    static let patterns: [Pattern] = [
        // "access_token": "…" (JSON text, also inside quoted error messages)
        Pattern(#"("(?:\#(keyAlternation))"\s*:\s*")((?:[^"\\]|\\.)*)(")"#, template: "$1\(placeholder)$3"),
        // access_token=… in query strings and forms
        Pattern(#"((?:^|[?&;,(\[{\s"'])(?:\#(keyAlternation))=)([^&\s"'<>\])}]+)"#, template: "$1\(placeholder)"),
        // code=… (authorization codes in redirect URLs), when long enough to be a credential
        Pattern(#"((?:^|[?&#;,(\[{\s"'])code=)([^&\s"'<>\])}]{\#(minimumRedactedCodeLength),})"#, template: "$1\(placeholder)"),
        // "code": "<long opaque value>"
        Pattern(#"("code"\s*:\s*")([^"\\]{\#(minimumRedactedCodeLength),})(")"#, template: "$1\(placeholder)$3"),
        // Authorization: Bearer … / OAuth … / Basic …
        Pattern(#"\b(Bearer|OAuth|Basic)\s+[A-Za-z0-9\-._~+/]{8,}=*"#, template: "$1 \(placeholder)"),
        // JSON Web Tokens
        Pattern(#"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"#, template: placeholder, caseSensitive: true),
        // Graph access tokens (user, page and app tokens start with EAA)
        Pattern(#"\bEAA[A-Za-z0-9]{16,}"#, template: placeholder, caseSensitive: true),
        // App access tokens: <app id>|<secret>
        Pattern(#"\b(\d{6,})\|[A-Za-z0-9_\-]{16,}"#, template: "$1|\(placeholder)"),
    ]
}
