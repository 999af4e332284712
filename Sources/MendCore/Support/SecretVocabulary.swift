package import Foundation

/// Mend's one secret vocabulary: every name, header, token shape and allowed name that Mend's redaction knows.
///
/// Every place that keeps a secret out of a sink draws from here: ``Redactor`` (errors, logs, telemetry, the server's
/// failures, audit details and admin reasons, with the fixed placeholder `<redacted>`) and MendRecording's recorder
/// and `mend redact` (a stable `<mend:KIND:N>` per secret). The two differ only in their placeholder policy, so a
/// secret Mend learns to recognise is recognised everywhere at once.
///
/// It names every secret Mend itself mints, relays or sends — mend-server's access tokens (JWTs), `mrt_` refresh
/// tokens and `mend_admin_` tokens, device and user codes, provider tokens (`EAA…`), app tokens (`id|secret`), Apple's
/// client secret and id_tokens (JWTs), authorization codes, PKCE verifiers, each login's `state` and `nonce`, the REST
/// API key headers, the `DPoP` header — and the secrets the server holds: the app secret, `MEND_SIGNING_KEYS`
/// (`kid:ALG:key`), Apple's `.p8` key (a PEM private key), a database URL's password, the token encryption key.
package enum SecretVocabulary {
    // MARK: Names

    /// Parameter, form, query and JSON member names (lowercased) whose values are secrets.
    package static let names: Set<String> = [
        // OAuth 2.0, OpenID Connect, token exchange (RFC 8693), device login (RFC 8628), PKCE (RFC 7636)
        "access_token", "refresh_token", "id_token", "token", "code", "authorization_code", "code_verifier",
        "client_secret", "client_assertion", "assertion", "subject_token", "actor_token", "device_code", "user_code",
        "state", "nonce",
        // The Graph API and Facebook Login
        "input_token", "fb_exchange_token", "provider_token", "appsecret_proof", "signed_request", "app_secret",
        "appsecret",
        // Usual secret names
        "secret", "password", "passwd", "private_key", "api_key", "apikey", "x-api-key", "session_token",
        "sessiontoken", "session_key", "authorization", "cookie", "accesstoken", "refreshtoken", "idtoken",
        "clientsecret", "admin_token", "client_token", "signing_key", "signing_keys", "encryption_key",
        // mend-server's and mend's own settings that hold a secret (printed as NAME=value)
        "mend_app_secret", "mend_client_secret", "mend_client_token", "mend_access_token", "mend_admin_token",
        "mend_admin_tokens", "mend_signing_keys", "mend_token_encryption_key", "mend_google_server_client_secret",
        // OpenTelemetry's exporter headers (a collector's credentials)
        "otel_exporter_otlp_headers", "otel_exporter_otlp_traces_headers", "otel_exporter_otlp_metrics_headers",
        "otel_exporter_otlp_logs_headers",
    ]

    /// Where a named value sits: some names are also ordinary words or error codes outside a query.
    package enum Context: Sendable {
        /// A URL's query, a form body or a fragment: every value of a secret name is a secret.
        case query
        /// A JSON member, or a `name=value` pair in free text.
        case text
    }

    /// The names whose values are secrets only when this long, outside a query: an error's `code` is a number or a
    /// short name (`"UNAUTHENTICATED"`), a device login's `state` a word (`"pending"`); an authorization code, a
    /// login's `state` and `nonce` are long random strings.
    package static let minimumLengths: [String: Int] = ["code": 20, "state": 16, "nonce": 16, "token": 8]

    /// Whether the value under `name` is a secret.
    package static func isSecret(name: String, value: some StringProtocol, in context: Context) -> Bool {
        let lowered = name.lowercased()
        guard names.contains(lowered) else { return false }
        return isLongEnough(value, for: lowered, in: context)
    }

    /// Whether `value` is long enough to be a secret under the (lowercased) name `name`.
    package static func isLongEnough(_ value: some StringProtocol, for name: String, in context: Context) -> Bool {
        guard !value.isEmpty else { return false }
        guard context == .text, let minimum = minimumLengths[name] else { return true }
        return value.count >= minimum
    }

    // MARK: Headers

    /// Header names (lowercased) whose values are credentials. `Authorization`, `Proxy-Authorization` and `DPoP`
    /// keep their scheme (`Bearer`, `DPoP`, `Basic`) before the placeholder; cookies keep their names.
    package static let headers: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "dpop", "x-api-key", "api-key", "apikey",
        "x-auth-token", "x-access-token", "x-refresh-token", "x-session-token", "x-amz-security-token",
        "x-goog-api-key", "x-csrf-token", "x-xsrf-token", "x-admin-token",
        // The REST object API's key and session (the emulator, `mend demo`), with and without `X-`
        "appacitive-apikey", "appacitive-session", "x-appacitive-apikey", "x-appacitive-session",
    ]

    /// The authentication schemes whose credential follows them in a header or in text.
    package static let schemes = ["Bearer", "DPoP", "OAuth", "Basic"]

    /// The placeholder kind of a credential after `scheme` (`Bearer` → `access_token`).
    package static func kind(ofScheme scheme: some StringProtocol) -> String {
        switch scheme.lowercased() {
        case "bearer", "oauth", "dpop": "access_token"
        case "basic": "basic"
        default: "authorization"
        }
    }

    // MARK: Allowed names

    /// Names (of parameters, JSON members and headers) whose values are high-entropy but no secret: paging cursors,
    /// trace and request ids, entity tags, content digests, PKCE's challenge, a public JWK's members. A name here
    /// never keeps a secret name's value, nor a token-shaped one; it only stops the recorder's fail-closed scan
    /// from taking randomness for a secret.
    package static let allowedNames: Set<String> = [
        "after", "before", "cursor", "cursors", "next", "previous", "fbtrace_id", "x-fb-trace-id", "x-fb-rev",
        "x-fb-request-id", "x-fb-debug", "trace_id", "span_id", "traceparent", "tracestate", "x-request-id",
        "request_id", "requestid", "x-amzn-requestid", "x-amzn-trace-id", "x-cloud-trace-context", "referenceid",
        "reference_id", "etag", "if-none-match", "if-match", "x-content-digest", "digest", "content-digest", "cf-ray",
        "x-github-request-id", "sec-websocket-accept", "sec-websocket-key", "x-mend-request-id",
        // PKCE's challenge is the verifier's SHA-256: public by design (RFC 7636).
        "code_challenge",
        // A JWT's identifiers (an id_token template's claims): ids and URLs, not secrets.
        "sub", "aud", "azp", "iss",
        // The members of a public JWK (a JWKS answer): public keys.
        "n", "e", "x", "y", "x5c", "x5t", "x5t#s256", "kid",
    ]

    // MARK: Shapes

    /// The shapes only secrets have, wherever they appear.
    package static let shapes: [SecretPattern] = [
        // JSON Web Tokens: mend-server's access tokens, id_tokens, Apple's client secret, DPoP proofs
        SecretPattern(#"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"#, kind: "jwt", trigger: "eyJ"),
        // Graph access tokens (user, page and app tokens start with EAA)
        SecretPattern(#"\bEAA[A-Za-z0-9]{16,}"#, kind: "access_token", trigger: "EAA"),
        // App access tokens, <app id>|<app secret>: the app id stays
        SecretPattern(#"\b\d{6,}\|([A-Za-z0-9_\-]{16,})"#, kind: "access_token", group: 1, trigger: "|"),
        // mend-server's refresh tokens
        SecretPattern(#"\bmrt_[A-Za-z0-9_\-]{16,}"#, kind: "refresh_token", trigger: "mrt_"),
        // mend-server's admin tokens (`mend-server admin new-token`)
        SecretPattern(#"\bmend_admin_[A-Za-z0-9_\-]{20,}"#, kind: "admin_token", trigger: "mend_admin_"),
        // mend-server's signing keys as MEND_SIGNING_KEYS writes them: kid:ALG:base64url-key
        SecretPattern(
            #"(?:EdDSA|ES256|eddsa|es256):([A-Za-z0-9_\-]{43})(?![A-Za-z0-9_\-])"#, kind: "signing_key", group: 1,
            trigger: ":"),
        // A PEM private key (Apple's .p8 key), also inside JSON text (its newlines escaped)
        SecretPattern(
            #"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"#, kind: "private_key",
            trigger: "PRIVATE KEY"),
        // A URL's password: postgres://user:password@host
        SecretPattern(
            #"\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@"'<>]*:([^@\s/"'<>]+)@"#, kind: "password", group: 1,
            trigger: "://"),
        // Bearer, DPoP, OAuth and Basic credentials: at least 8 characters, not ending in a full stop, and not a
        // word (``isCredential(_:after:)``), so that "Basic information." or "OAuth provider" stay. A token68 (RFC
        // 7235) ends with its padding: one that another token character or `=` follows is the name of a
        // `name=value` pair ("bearer clientSecret=…"), which the named patterns redact by its name.
        SecretPattern(
            #"\b(Bearer|DPoP|OAuth|Basic)[ \t\u00A0]+([A-Za-z0-9\-._~+/]{7,}[A-Za-z0-9\-_~+/]=*)(?![A-Za-z0-9\-_~+/=])"#,
            kindFromScheme: 1, group: 2, caseSensitive: false, trigger: nil),
    ]

    /// Whether `value`, found after `scheme` in text, is a credential rather than a word of a sentence: it has a
    /// digit, or 24 characters or more, or an uppercase letter after its first in 12 or more; a `Basic` one may also
    /// be base64 of `user:password` (RFC 7617).
    package static func isCredential(_ value: some StringProtocol, after scheme: some StringProtocol) -> Bool {
        let count = value.count
        if count >= 24 || value.contains(where: \.isNumber) { return true }
        if count >= 12, value.dropFirst().contains(where: \.isUppercase) { return true }
        if scheme.lowercased() == "basic", let decoded = Data(base64Encoded: paddedBase64(value)),
            decoded.contains(UInt8(ascii: ":"))
        {
            return true
        }
        return false
    }

    /// `value` padded with `=` to a multiple of 4 characters.
    static func paddedBase64(_ value: some StringProtocol) -> String {
        let text = String(value)
        let remainder = text.utf8.count % 4
        return remainder == 0 ? text : text + String(repeating: "=", count: 4 - remainder)
    }

    /// Whether `text` holds a token shape.
    package static func hasShape(_ text: String) -> Bool {
        shapes.contains { $0.matches(text) }
    }

    // MARK: Placeholders

    /// Whether `value` holds a placeholder of either policy anywhere (also percent-encoded).
    package static func containsPlaceholder(_ value: some StringProtocol) -> Bool {
        func holds(_ text: some StringProtocol) -> Bool {
            text.contains("<redacted>") || text.contains("<mend:") || text.contains("<fresh:")
        }
        if holds(value) { return true }
        guard value.contains("%3C") || value.contains("%3c") else { return false }
        return String(value).removingPercentEncoding.map(holds) ?? false
    }

    /// Whether `text` starts with a placeholder of either policy (also percent-encoded).
    package static func startsWithPlaceholder(_ text: some StringProtocol) -> Bool {
        text.hasPrefix("<redacted>") || text.hasPrefix("<mend:") || text.hasPrefix("<fresh:")
            || text.hasPrefix("%3Cmend%3A") || text.hasPrefix("%3Credacted%3E") || text.hasPrefix("%3Cfresh%3A")
    }

    /// Whether `value` is already a placeholder of either policy (`<redacted>`, `<mend:KIND:N>`, `<fresh:KIND>`).
    package static func isPlaceholder(_ value: some StringProtocol) -> Bool {
        guard value.first == "<", value.last == ">" else { return false }
        return value == "<redacted>" || value.hasPrefix("<mend:") || value.hasPrefix("<fresh:")
    }
}

/// One regular expression of the vocabulary: where its match holds a secret, and the secret's kind.
package struct SecretPattern: @unchecked Sendable {
    // NSRegularExpression is immutable after creation and documented as safe to use from several threads.
    let expression: NSRegularExpression
    /// The kind of the placeholder, when fixed.
    let kind: String?
    /// The group whose text names the kind (a scheme, a parameter name), when ``kind`` is `nil`.
    let kindGroup: Int
    /// Whether the kind group is a scheme (`Bearer` → `access_token`) rather than a name.
    let kindIsScheme: Bool
    /// The group holding the secret (0: the whole match).
    let group: Int
    /// A text every match contains (`nil`: whitespace), for ``SecretText``'s shortcut.
    package let trigger: String?

    /// A shape of fixed kind.
    init(_ pattern: String, kind: String, group: Int = 0, caseSensitive: Bool = true, trigger: String?) {
        self.init(pattern, kind: kind, kindGroup: 0, kindIsScheme: false, group: group, caseSensitive, trigger)
    }

    /// A shape whose kind is its scheme's (group `kindFromScheme`).
    init(_ pattern: String, kindFromScheme: Int, group: Int, caseSensitive: Bool, trigger: String?) {
        self.init(
            pattern, kind: nil, kindGroup: kindFromScheme, kindIsScheme: true, group: group, caseSensitive, trigger)
    }

    /// A `name`–value pattern: the kind is the name in group `nameGroup`.
    init(namePattern pattern: String, nameGroup: Int, group: Int, trigger: String?) {
        self.init(pattern, kind: nil, kindGroup: nameGroup, kindIsScheme: false, group: group, false, trigger)
    }

    private init(
        _ pattern: String, kind: String?, kindGroup: Int, kindIsScheme: Bool, group: Int, _ caseSensitive: Bool,
        _ trigger: String?
    ) {
        // The patterns are constants of Mend's sources; a failure here is a programming error every test catches.
        expression = try! NSRegularExpression(pattern: pattern, options: caseSensitive ? [] : [.caseInsensitive])
        self.kind = kind
        self.kindGroup = kindGroup
        self.kindIsScheme = kindIsScheme
        self.group = group
        self.trigger = trigger
    }

    /// Whether `text` holds a secret of this pattern (as ``replace(in:accept:_:)`` would find it).
    package func matches(_ text: String) -> Bool {
        var found = false
        _ = replace(in: text) { secret, _ in
            found = true
            return secret
        }
        return found
    }

    /// `text` with each secret this pattern finds replaced by `replacement(secret, kind, name)`, where `name` is the
    /// parameter's name for a named pattern (`nil` for a shape). A secret that is already a placeholder is kept, and
    /// so is one `accept` refuses.
    func replace(
        in text: String, accept: (Substring, String?) -> Bool = { _, _ in true },
        _ replacement: (String, String) -> String
    ) -> String {
        let matches = expression.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else { return text }
        var result = ""
        var cursor = text.startIndex
        for match in matches {
            guard let range = Range(match.range(at: group), in: text), range.lowerBound >= cursor,
                !range.isEmpty
            else { continue }
            let secret = text[range]
            // A value that is, holds or runs into a placeholder was redacted already: the part left before a
            // placeholder (an app token's `id|`, a signing key's `kid:ALG:`, a scheme's) is no secret of its own.
            if SecretVocabulary.containsPlaceholder(secret) { continue }
            let rest = text[range.upperBound...]
            if SecretVocabulary.startsWithPlaceholder(rest)
                || rest.first == "|"
                    && SecretVocabulary.startsWithPlaceholder(rest.dropFirst())
            {
                continue
            }
            let label = kind == nil ? Range(match.range(at: kindGroup), in: text).map { text[$0] } : nil
            let name = kindIsScheme ? nil : label.map { $0.lowercased() }
            if kindIsScheme, !SecretVocabulary.isCredential(secret, after: label ?? "") { continue }
            guard accept(secret, name) else { continue }
            let kind = self.kind ?? (kindIsScheme ? SecretVocabulary.kind(ofScheme: label ?? "") : name ?? "secret")
            result += text[cursor..<range.lowerBound]
            result += replacement(String(secret), kind)
            cursor = range.upperBound
        }
        result += text[cursor...]
        return result
    }
}

/// The redaction engine over free text, for one set of secret names: token shapes, then `"name": "value"` JSON
/// members (also escaped inside a JSON string) and `name=value` pairs. What replaces each secret is the caller's
/// placeholder policy.
package struct SecretText: Sendable {
    /// The secret names (lowercased) this engine redacts the values of.
    package let names: Set<String>
    private let named: [SecretPattern]

    /// The engine for the vocabulary's own names.
    package static let standard = SecretText(names: SecretVocabulary.names)

    /// An engine for `names` (the vocabulary's, plus a caller's own).
    package init(names: Set<String>) {
        self.names = Set(names.map { $0.lowercased() })
        let alternation = self.names.sorted { $0.count > $1.count }.map(NSRegularExpression.escapedPattern(for:))
            .joined(separator: "|")
        named = [
            // "access_token": "…" (JSON text, also inside quoted error messages)
            SecretPattern(
                namePattern: #""(\#(alternation))"\s*:\s*"((?:[^"\\]|\\.)*)""#, nameGroup: 1, group: 2, trigger: "\""),
            // \"access_token\": \"…\" (JSON inside a JSON string)
            SecretPattern(
                namePattern: #"\\"(\#(alternation))\\"\s*:\s*\\"([^"\\]*)\\""#, nameGroup: 1, group: 2, trigger: "\\"),
            // access_token=… in query strings, forms, fragments and settings (NAME=value)
            SecretPattern(
                namePattern: #"(?:^|[?&#;,(\[{\s"'])(\#(alternation))=([^&\s"'<>\])}]+)"#, nameGroup: 1, group: 2,
                trigger: "="),
        ]
    }

    /// Whether any pattern could match `text`: the named patterns each need a quote, a backslash or `=`; the shapes
    /// their trigger (`eyJ`, `EAA`, `|`, `mrt_`, …) or, for a scheme's credential, whitespace (any non-ASCII
    /// character counts, as it may be Unicode whitespace). Most texts (a query value, a name, a number) have none,
    /// and skip every regular expression.
    package static func mayMatch(_ text: String) -> Bool {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "="), UInt8(ascii: "|"), UInt8(ascii: ":"),
                0x09...0x0D, 0x20, 0x80...:
                return true
            default: continue
            }
        }
        for trigger in triggers where text.utf8.count >= trigger.count && contains(text.utf8, trigger) {
            return true
        }
        return false
    }

    private static let triggers: [[UInt8]] = SecretVocabulary.shapes.compactMap { $0.trigger.map { Array($0.utf8) } }

    private static func contains(_ text: String.UTF8View, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        var index = text.startIndex
        while let found = text[index...].firstIndex(of: first) {
            if text[found...].starts(with: needle) { return true }
            index = text.index(after: found)
        }
        return false
    }

    /// `text` with every secret replaced by `replacement(secret, kind)`: shapes first (their kind is theirs), then
    /// the named values (their kind is their name).
    package func redact(_ text: String, _ replacement: (String, String) -> String) -> String {
        guard !text.isEmpty, Self.mayMatch(text) else { return text }
        return redactWithEveryPattern(text, replacement)
    }

    /// `text` through every pattern, with no shortcut: what ``redact(_:_:)`` must give (the test of ``mayMatch(_:)``).
    package func redactWithEveryPattern(_ text: String, _ replacement: (String, String) -> String) -> String {
        var result = text
        for pattern in SecretVocabulary.shapes + named {
            result = pattern.replace(
                in: result,
                accept: { value, name in
                    name.map { SecretVocabulary.isLongEnough(value, for: $0, in: .text) } ?? true
                }, replacement)
        }
        return result
    }
}
