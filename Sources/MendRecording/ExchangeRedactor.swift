import Foundation
import MendCore

/// Redacts what a recording holds — URLs, headers, bodies — into placeholders, by ``RedactionRules``.
struct ExchangeRedactor: Sendable {
    let rules: RedactionRules
    let placeholders: PlaceholderTable
    /// The redaction engine over free text for the rules' credential names (MendCore's, shared with ``Redactor``).
    private let text: SecretText
    /// Whether values are made canonical for matching rather than redacted for keeping: a credential parameter's
    /// value, a placeholder or not, becomes `<fresh:NAME>` — the same secret may have been recorded under the
    /// placeholder of another name (the token a `/me` call presented, then exchanged as `fb_exchange_token`).
    let canonical: Bool

    init(rules: RedactionRules, placeholders: PlaceholderTable, canonical: Bool = false) {
        self.rules = rules
        self.placeholders = placeholders
        self.text = rules.parameters == SecretVocabulary.names ? .standard : SecretText(names: rules.parameters)
        self.canonical = canonical
    }

    // MARK: URLs and queries

    /// A URL with its credential query and fragment values, its password and the token-shaped parts of its path
    /// replaced; `nil` when `text` is not an absolute URL (it is then redacted as text).
    func redact(url text: String) -> String? {
        guard text.contains(":"), var components = URLComponents(string: text), components.scheme != nil,
            components.host != nil || text.contains("?") || text.contains("#")
        else { return nil }
        var changed = false
        if let query = components.percentEncodedQuery, !query.isEmpty {
            components.percentEncodedQuery = redact(form: query)
            changed = true
        }
        if let fragment = components.percentEncodedFragment, fragment.contains("=") {
            // An implicit grant's or an OpenID Connect fragment response: `#access_token=…&state=…` (decoded once).
            components.percentEncodedFragment = redact(form: fragment)
            changed = true
        } else if let fragment = components.fragment, !fragment.isEmpty {
            let redacted = redact(text: fragment)
            if redacted != fragment {
                components.fragment = redacted
                changed = true
            }
        }
        if let password = components.password, !password.isEmpty {
            components.password = placeholders.placeholder(for: password, kind: "password")
            changed = true
        }
        let path = components.path
        let redactedPath = redact(text: path)
        if redactedPath != path {
            components.path = redactedPath
            changed = true
        }
        return changed ? components.string ?? text : text
    }

    /// An `application/x-www-form-urlencoded` text (or a query) with its values redacted; names and order kept.
    func redact(form text: String) -> String {
        let fields = FormEncoding.decodeFields(text).map { field in
            (name: field.name, value: field.value.map { redact(value: $0, name: field.name, inQuery: true) })
        }
        return FormEncoding.encode(fields: fields)
    }

    // MARK: Headers

    /// A header's value: a credential header keeps its scheme (`Bearer <mend:access_token:1>`), a cookie its names.
    func redact(header name: String, value: String) -> String {
        let lowered = name.lowercased()
        switch lowered {
        case "cookie":
            return value.split(separator: ";", omittingEmptySubsequences: false).map { part in
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else {
                    // A value without a name: a secret all the same.
                    let value = part.trimmingCharacters(in: .whitespaces)
                    return value.isEmpty ? String(part) : placeholders.placeholder(for: value, kind: "cookie")
                }
                return "\(pair[0])=\(placeholders.placeholder(for: String(pair[1]), kind: "cookie"))"
            }.joined(separator: ";")
        case "set-cookie":
            var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            if let first = parts.first, let equals = first.firstIndex(of: "=") {
                let cookieValue = String(first[first.index(after: equals)...])
                parts[0] = first[..<equals] + "=" + placeholders.placeholder(for: cookieValue, kind: "cookie")
            } else if let first = parts.first, !first.isEmpty {
                parts[0] = placeholders.placeholder(for: first, kind: "cookie")
            }
            return parts.joined(separator: ";")
        case "authorization", "proxy-authorization":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return placeholders.placeholder(for: value, kind: "authorization") }
            let scheme = String(parts[0])
            return
                "\(scheme) \(placeholders.placeholder(for: String(parts[1]), kind: SecretVocabulary.kind(ofScheme: scheme)))"
        default:
            if rules.isCredential(header: lowered) { return placeholders.placeholder(for: value, kind: lowered) }
            if let url = redact(url: value) { return url }
            return redact(text: value)
        }
    }

    // MARK: Values

    /// One named value: a credential's whole value becomes its placeholder; any other value is redacted as text
    /// (its token-shaped parts), or as JSON when it is JSON (a Graph batch's `batch` parameter), or as a URL.
    func redact(value: String, name: String, inQuery: Bool) -> String {
        let lowered = name.lowercased()
        if canonical, rules.isPerRun(lowered), !value.isEmpty { return "<fresh:\(lowered)>" }
        let isCredential = rules.isCredential(parameter: lowered, value: value, inQuery: inQuery)
        if canonical, isCredential || PlaceholderTable.isPlaceholder(value) && rules.isCredential(parameter: lowered) {
            return "<fresh:\(lowered)>"
        }
        if PlaceholderTable.isPlaceholder(value) || value.isEmpty { return value }
        if isCredential { return placeholders.placeholder(for: value, kind: lowered) }
        if let first = value.first, first == "{" || first == "[",
            case .success(let json) = JSONValue.parse(Data(value.utf8), duplicateMembers: .lastWins)
        {
            return redact(json: json).jsonText()
        }
        if let url = redact(url: value) { return url }
        return redact(text: value)
    }

    /// A JSON value with every credential member and every token-shaped string replaced.
    func redact(json: JSONValue) -> JSONValue {
        switch json {
        case .object(let members):
            var redacted: [String: JSONValue] = [:]
            // A `{"name": …, "value": …}` pair (a Graph batch part's headers) is named by its name.
            let pairName = members.count == 2 ? members["name"]?.stringValue : nil
            for (key, value) in members {
                if case .string(let text) = value {
                    if key == "value", let pairName {
                        redacted[key] = .string(
                            rules.isCredential(header: pairName)
                                ? redact(header: pairName, value: text)
                                : redact(value: text, name: pairName, inQuery: false))
                        continue
                    }
                    redacted[key] = .string(redact(value: text, name: key, inQuery: false))
                } else if case .int(let number) = value,
                    rules.isCredential(parameter: key, value: String(number), inQuery: false)
                {
                    // A number under a credential name (a numeric user code, a PIN): a secret, as text.
                    redacted[key] = .string(placeholders.placeholder(for: String(number), kind: key.lowercased()))
                } else {
                    redacted[key] = redact(json: value)
                }
            }
            return .object(redacted)
        case .array(let elements):
            return .array(elements.map { redact(json: $0) })
        case .string(let text):
            return .string(redact(value: text, name: "", inQuery: false))
        case .null, .bool, .int, .double:
            return json
        }
    }

    /// Fields of a HAR object that the format does not define: JSON, by name and shape.
    func redact(fields: HARFields) -> HARFields {
        fields.isEmpty ? fields : redact(json: .object(fields)).objectValue ?? fields
    }

    /// Free text: token shapes, and `name=value` pairs and `"name": "value"` members of credential names, replaced
    /// (MendCore's engine, with this recording's placeholders).
    func redact(text: String) -> String {
        self.text.redact(text) { secret, kind in placeholders.placeholder(for: secret, kind: kind) }
    }

    /// A body, by its media type: JSON, a form, or text.
    func redact(body: Data, mediaType: String?) -> Data {
        guard !body.isEmpty else { return body }
        let type = mediaType?.lowercased() ?? ""
        if type.contains("json") || type.isEmpty || type.contains("javascript"),
            case .success(let json) = JSONValue.parse(body, duplicateMembers: .lastWins)
        {
            return Data(redact(json: json).jsonText().utf8)
        }
        guard let text = String(data: body, encoding: .utf8) else { return body }
        if type.contains("x-www-form-urlencoded") { return Data(redact(form: text).utf8) }
        return Data(redact(text: text).utf8)
    }
}
