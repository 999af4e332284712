import Foundation
import MendCore

/// Redacts what a recording holds — URLs, headers, bodies — into placeholders, by ``RedactionRules``.
struct ExchangeRedactor: Sendable {
    let rules: RedactionRules
    let placeholders: PlaceholderTable
    /// `name=value` pairs of the rules' credential names, in text.
    private let keyValue: TokenShape
    /// Whether values are made canonical for matching rather than redacted for keeping: a credential parameter's
    /// value, a placeholder or not, becomes `<fresh:NAME>` — the same secret may have been recorded under the
    /// placeholder of another name (the token a `/me` call presented, then exchanged as `fb_exchange_token`).
    let canonical: Bool

    init(rules: RedactionRules, placeholders: PlaceholderTable, canonical: Bool = false) {
        self.rules = rules
        self.placeholders = placeholders
        self.keyValue = TokenShape.keyValue(rules.parameters)
        self.canonical = canonical
    }

    // MARK: URLs and queries

    /// A URL with its credential query values (and token-shaped ones) replaced; `nil` when `text` is not an
    /// absolute URL with a query or fragment to redact (it is then redacted as text).
    func redact(url text: String) -> String? {
        guard text.contains("?") || text.contains("#"), var components = URLComponents(string: text),
            components.scheme != nil
        else { return nil }
        if let query = components.percentEncodedQuery, !query.isEmpty {
            components.percentEncodedQuery = redact(form: query)
        }
        if let fragment = components.fragment, fragment.contains("=") {
            // An implicit grant's or an OpenID Connect fragment response: `#access_token=…&state=…`.
            components.percentEncodedFragment = redact(form: fragment)
        }
        return components.string ?? text
    }

    /// An `application/x-www-form-urlencoded` text (or a query) with its values redacted; names and order kept.
    func redact(form text: String) -> String {
        let pairs = Self.decodeForm(text).map { pair in
            (pair.name, pair.value.map { redact(value: $0, name: pair.name, inQuery: true) })
        }
        return Self.encodeQuery(pairs)
    }

    // MARK: Headers

    /// A header's value: a credential header keeps its scheme (`Bearer <mend:access_token:1>`), a cookie its names.
    func redact(header name: String, value: String) -> String {
        let lowered = name.lowercased()
        switch lowered {
        case "cookie":
            return value.split(separator: ";", omittingEmptySubsequences: false).map { part in
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else { return String(part) }
                return "\(pair[0])=\(placeholders.placeholder(for: String(pair[1]), kind: "cookie"))"
            }.joined(separator: ";")
        case "set-cookie":
            var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            if let first = parts.first, let equals = first.firstIndex(of: "=") {
                let cookieValue = String(first[first.index(after: equals)...])
                parts[0] = first[..<equals] + "=" + placeholders.placeholder(for: cookieValue, kind: "cookie")
            }
            return parts.joined(separator: ";")
        case "authorization", "proxy-authorization":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return placeholders.placeholder(for: value, kind: "authorization") }
            let scheme = String(parts[0])
            let kind =
                switch scheme.lowercased() {
                case "bearer", "oauth": "access_token"
                case "dpop": "access_token"
                case "basic": "basic"
                default: "authorization"
                }
            return "\(scheme) \(placeholders.placeholder(for: String(parts[1]), kind: kind))"
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
        if canonical, rules.isCredential(parameter: lowered), !value.isEmpty,
            !(lowered == "code" && !inQuery && value.utf8.count < 20 && !PlaceholderTable.isPlaceholder(value))
        {
            return "<fresh:\(lowered)>"
        }
        if PlaceholderTable.isPlaceholder(value) || value.isEmpty { return value }
        if rules.isCredential(parameter: lowered) {
            // A JSON `code` is a credential only when it is long (error codes are numbers or short names).
            if lowered == "code", !inQuery, value.utf8.count < 20 { return redact(text: value) }
            return placeholders.placeholder(for: value, kind: lowered)
        }
        if let first = value.first, first == "{" || first == "[",
            case .success(let json) = JSONValue.parse(Data(value.utf8))
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

    /// Free text: `key=value` and `"key": "value"` pairs of credential names, and token shapes, replaced.
    func redact(text: String) -> String {
        guard !text.isEmpty else { return text }
        var result = text
        for shape in TokenShape.all {
            result = shape.replace(in: result) { match, kind in placeholders.placeholder(for: match, kind: kind) }
        }
        result = keyValue.replace(in: result) { match, kind in
            placeholders.placeholder(for: match, kind: kind)
        }
        return result
    }

    /// A body, by its media type: JSON, a form, or text.
    func redact(body: Data, mediaType: String?) -> Data {
        guard !body.isEmpty else { return body }
        let type = mediaType?.lowercased() ?? ""
        if type.contains("json") || type.isEmpty || type.contains("javascript"),
            case .success(let json) = JSONValue.parse(body)
        {
            return Data(redact(json: json).jsonText().utf8)
        }
        guard let text = String(data: body, encoding: .utf8) else { return body }
        if type.contains("x-www-form-urlencoded") { return Data(redact(form: text).utf8) }
        return Data(redact(text: text).utf8)
    }

    // MARK: Forms

    /// The pairs of a form or query, decoded (`+` is a space); a pair without `=` has no value.
    static func decodeForm(_ text: String) -> [(name: String, value: String?)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : nil)
        }
    }

    /// Encodes pairs as a form or query (RFC 3986 unreserved characters kept).
    static func encodeQuery(_ pairs: [(String, String?)]) -> String {
        pairs.map { name, value in
            encode(name) + (value.map { "=" + encode($0) } ?? "")
        }.joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// A token shape: a regular expression whose match (or first group) is a credential, and the kind it is.
struct TokenShape: @unchecked Sendable {
    // NSRegularExpression is immutable and documented as safe to use from several threads.
    let expression: NSRegularExpression
    /// The kind of the placeholder; `nil`: the name the pattern's first group captured.
    let kind: String?
    /// The group holding the credential (0: the whole match).
    let group: Int

    init(_ pattern: String, kind: String?, group: Int = 0, caseSensitive: Bool = true) {
        // The patterns are constants of this file; a failure is a programming error every test catches.
        expression = try! NSRegularExpression(pattern: pattern, options: caseSensitive ? [] : [.caseInsensitive])
        self.kind = kind
        self.group = group
    }

    /// Whether `text` holds this shape.
    func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// `text` with each credential replaced by `replacement(credential, kind)`.
    func replace(in text: String, _ replacement: (String, String) -> String) -> String {
        let whole = NSRange(text.startIndex..., in: text)
        var result = ""
        var cursor = text.startIndex
        for match in expression.matches(in: text, range: whole) {
            guard let range = Range(match.range(at: group), in: text), range.lowerBound >= cursor else { continue }
            let kind = self.kind ?? Range(match.range(at: 1), in: text).map { String(text[$0]) } ?? "secret"
            let credential = String(text[range])
            if PlaceholderTable.isPlaceholder(credential) || credential.hasPrefix("<mend:") { continue }
            result += text[cursor..<range.lowerBound]
            result += replacement(credential, kind.lowercased())
            cursor = range.upperBound
        }
        result += text[cursor...]
        return result
    }

    /// The shapes only credentials have.
    static let all: [TokenShape] = [
        // JSON Web Tokens (an id_token, a DPoP proof, a JWT access token)
        TokenShape(#"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"#, kind: "jwt"),
        // Graph access tokens (user, page and app tokens start with EAA)
        TokenShape(#"\bEAA[A-Za-z0-9]{16,}"#, kind: "access_token"),
        // App access tokens: <app id>|<secret>
        TokenShape(#"\b\d{6,}\|[A-Za-z0-9_\-]{16,}"#, kind: "access_token"),
        // mend-server's refresh tokens
        TokenShape(#"\bmrt_[A-Za-z0-9_\-]{16,}"#, kind: "refresh_token"),
        // Bearer, DPoP, OAuth and Basic credentials in text
        TokenShape(
            #"\b(?:Bearer|DPoP|OAuth|Basic)\s+([A-Za-z0-9\-._~+/]{8,}=*)"#, kind: "access_token", group: 1,
            caseSensitive: false),
    ]

    /// `name=value` and `"name": "value"` pairs of the credential names, in text (`code` only with a value of 20
    /// characters or more: error codes under the same name are numbers or short names).
    static func keyValue(_ names: Set<String>) -> TokenShape {
        let alternation = names.subtracting(["code"]).sorted { $0.count > $1.count }
            .map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        return TokenShape(
            #"(?:^|[?&;,(\[{\s"'])"?(\#(alternation)|code(?="?\s*[=:]\s*"?[^&\s"'<>\])},]{20}))"?\s*[=:]\s*"?([^&\s"'<>\])},]{6,})"#,
            kind: nil, group: 2, caseSensitive: false)
    }
}
