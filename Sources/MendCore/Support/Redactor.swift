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

    /// Exact secret values to remove wherever they appear (a request's token, an app secret).
    package private(set) var secrets: [String]

    /// Creates a redactor with Mend's defaults, plus `secrets`.
    public init(secrets: [String] = []) {
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

    /// `text` through every pattern, with no shortcut: what ``redact(text:)`` must give for a text without registered
    /// secrets (the test of ``SecretText/mayMatch(_:)``).
    package static func redactWithEveryPattern(_ text: String) -> String {
        SecretText.standard.redactWithEveryPattern(text) { _, _ in placeholder }
    }

    /// Returns `text` with registered secrets, secret `name=value` pairs and JSON members, and token shapes
    /// removed (MendCore's `SecretVocabulary`); a scheme (`Bearer`), a name and an app token's app id stay.
    public func redact(text: String) -> String {
        guard !text.isEmpty else { return text }
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return SecretText.standard.redact(result) { _, _ in Self.placeholder }
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

    /// Returns the header's value, or the placeholder when the header is a credential (`Authorization` and
    /// `DPoP` keep their scheme: `Bearer <redacted>`).
    package func redact(headerName: String, value: String) -> String {
        let lowered = headerName.lowercased()
        guard SecretVocabulary.headers.contains(lowered) else { return redact(text: value) }
        if lowered == "authorization" || lowered == "proxy-authorization",
            let space = value.firstIndex(of: " "),
            SecretVocabulary.schemes.contains(where: {
                $0.caseInsensitiveCompare(value[..<space]) == .orderedSame
            })
        {
            return "\(value[..<space]) \(Self.placeholder)"
        }
        return Self.placeholder
    }

    /// Whether the value under `key` is a credential: a secret name's, when long enough (an error `code` stays).
    package func isSensitive(key: String, value: JSONValue) -> Bool {
        switch value {
        case .string(let text): SecretVocabulary.isSecret(name: key, value: text, in: .text)
        case .int(let number): SecretVocabulary.isSecret(name: key, value: String(number), in: .text)
        case .double(let number): SecretVocabulary.isSecret(name: key, value: String(number), in: .text)
        case .null, .bool: false
        // A secret name's object or array goes whole, but for the names that are also ordinary words.
        case .object, .array:
            SecretVocabulary.names.contains(key.lowercased())
                && SecretVocabulary.minimumLengths[key.lowercased()] == nil
        }
    }
}
