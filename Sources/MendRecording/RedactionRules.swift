public import Foundation
import MendCore

/// What a recording redacts, and what it keeps although it looks random.
///
/// The defaults redact, wherever they occur — the URL's query, a form or JSON body (at any depth, and inside a JSON
/// string that is itself JSON, as a Graph batch's), a header — the values of OAuth's and the Graph API's credential
/// parameters, the credential headers, cookies, and anything token-shaped (a JWT, a Graph access token, an app
/// token, a bearer credential). They cannot be turned off wholesale: add a name with ``redact(_:)``, or keep a
/// name's values with ``allow(_:)`` (a high-entropy value that is no secret: a paging cursor, a trace id).
public struct RedactionRules: Sendable {
    /// Parameter and JSON member names (compared case-insensitively) whose values are always redacted.
    public private(set) var parameters: Set<String>
    /// Header names (compared case-insensitively) whose values are always redacted.
    public private(set) var headers: Set<String>
    /// Names (of parameters, JSON members and headers, compared case-insensitively) whose values the scan accepts
    /// although they are high-entropy. A name here never keeps a credential parameter's or header's value, and never
    /// a token-shaped one.
    public private(set) var allowedNames: Set<String>
    /// Parameters whose values a client makes afresh for every login — `state`, `nonce`, PKCE's `code_challenge`, a
    /// loopback `redirect_uri`'s port: a replay matches them by name only, and answers with the values the client
    /// sent (the recorded ones are replaced by them in a replayed answer: a redirect's `state`, an id_token's
    /// `nonce`).
    public private(set) var perRunParameters: Set<String>

    /// The defaults.
    public static let standard = RedactionRules()

    /// The default rules.
    public init() {
        parameters = Self.defaultParameters
        headers = Self.defaultHeaders
        allowedNames = Self.defaultAllowedNames
        perRunParameters = Self.defaultPerRunParameters
    }

    /// The parameters made afresh for every login.
    static let defaultPerRunParameters: Set<String> = ["state", "nonce", "code_challenge", "redirect_uri"]

    /// Also redacts the values of `name` (a parameter, a JSON member or a header).
    public mutating func redact(_ name: String) {
        let lowered = name.lowercased()
        parameters.insert(lowered)
        headers.insert(lowered)
        allowedNames.remove(lowered)
    }

    /// Keeps the values of `name` through the scan although they are high-entropy (they are still redacted if
    /// token-shaped, or if `name` is a credential).
    public mutating func allow(_ name: String) {
        allowedNames.insert(name.lowercased())
    }

    /// The credential parameters: OAuth's and OpenID Connect's, the Graph API's, and the usual secret names.
    static let defaultParameters: Set<String> = [
        "access_token", "refresh_token", "id_token", "code", "code_verifier", "client_secret", "appsecret_proof",
        "fb_exchange_token", "signed_request", "password", "passwd", "input_token", "token", "provider_token",
        "client_assertion", "assertion", "device_code", "user_code", "secret", "app_secret", "api_key", "apikey",
        "session_token", "session_key", "private_key", "authorization_code", "subject_token", "actor_token",
        "accesstoken", "refreshtoken", "idtoken", "clientsecret", "authorization", "cookie",
        // Random per login, never to be replayed as they were (a replay answers with the request's own).
        "state", "nonce",
    ]

    /// The credential headers.
    static let defaultHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "dpop", "x-api-key", "x-auth-token",
        "x-access-token", "x-refresh-token", "x-session-token", "x-amz-security-token", "x-csrf-token",
        "x-xsrf-token",
    ]

    /// High-entropy values that are no secret: paging cursors, trace and request ids, entity tags, content digests.
    static let defaultAllowedNames: Set<String> = [
        "after", "before", "cursor", "cursors", "next", "previous", "fbtrace_id", "x-fb-trace-id", "x-fb-rev",
        "x-fb-request-id", "x-fb-debug", "trace_id", "traceparent", "tracestate", "x-request-id", "request_id",
        "requestid", "x-amzn-requestid", "x-amzn-trace-id", "x-cloud-trace-context", "referenceid", "reference_id",
        "etag", "if-none-match", "if-match", "x-content-digest", "digest", "content-digest", "cf-ray",
        "x-github-request-id", "sec-websocket-accept", "sec-websocket-key", "x-mend-request-id",
        // PKCE's challenge is the verifier's SHA-256: public by design (RFC 7636).
        "code_challenge",
        // The members of a public JWK (a JWKS answer): public keys.
        "n", "e", "x", "y", "x5c", "x5t", "x5t#s256", "kid",
    ]

    func isCredential(parameter name: String) -> Bool { parameters.contains(name.lowercased()) }
    func isCredential(header name: String) -> Bool { headers.contains(name.lowercased()) }
    func isAllowed(_ name: String) -> Bool { allowedNames.contains(name.lowercased()) }
    func isPerRun(_ name: String) -> Bool { perRunParameters.contains(name.lowercased()) }
}

/// The placeholders of one recording: each distinct secret becomes `<mend:KIND:N>`, the same secret the same
/// placeholder, so that a replay stays self-consistent (the token a login returned is the token the next call
/// presents). Numbers count per kind, within the recording only.
final class PlaceholderTable: @unchecked Sendable {
    // Every access goes through `lock`.
    private let lock = NSLock()
    private var bySecret: [String: String] = [:]
    private var counters: [String: Int] = [:]
    /// The templates of the JWTs replaced (``JWTTemplate``), by placeholder.
    private var templates: [String: JSONValue] = [:]
    /// Whether every secret becomes `<fresh:KIND>`, unnumbered: a live request's canonical form for matching.
    private let fresh: Bool

    /// A table for matching: every secret that is not a placeholder yet becomes `<fresh:KIND>`.
    init(fresh: Bool) {
        self.fresh = fresh
    }

    /// A table whose numbers start after the ones `existing` already uses (a recording being added to).
    init(continuing existing: String = "") {
        self.fresh = false
        for match in existing.matches(of: /<mend:([a-z0-9_.-]+):(\d+)>/) {
            let kind = String(match.1)
            counters[kind] = max(counters[kind] ?? 0, Int(match.2) ?? 0)
        }
    }

    /// The placeholder of `secret`, made under `kind` the first time.
    func placeholder(for secret: String, kind: String) -> String {
        if Self.isPlaceholder(secret) { return secret }
        if fresh { return "<fresh:\(Self.kindName(kind))>" }
        if secret.hasPrefix("eyJ"), lock.withLock({ bySecret[secret] == nil }),
            let template = JWTTemplate.make(secret, placeholders: self)
        {
            // A JWT: a placeholder of its own kind, and its template for the replay to sign again.
            return lock.withLock {
                if let known = bySecret[secret] { return known }
                let number = (counters["jwt"] ?? 0) + 1
                counters["jwt"] = number
                let placeholder = "<mend:jwt:\(number)>"
                bySecret[secret] = placeholder
                templates[placeholder] = template
                return placeholder
            }
        }
        return lock.withLock {
            if let known = bySecret[secret] { return known }
            let kind = Self.kindName(kind)
            let number = (counters[kind] ?? 0) + 1
            counters[kind] = number
            let placeholder = "<mend:\(kind):\(number)>"
            bySecret[secret] = placeholder
            return placeholder
        }
    }

    /// The templates of the JWT placeholders that occur in `text`.
    func templates(in text: String) -> [String: JSONValue] {
        lock.withLock {
            templates.filter { text.contains($0.key) || text.contains(ExchangeRedactor.encode($0.key)) }
        }
    }

    /// Every secret replaced so far.
    var secrets: [String] { lock.withLock { Array(bySecret.keys) } }

    /// Whether `text` is a placeholder.
    static func isPlaceholder(_ text: String) -> Bool { text.wholeMatch(of: /<mend:[a-z0-9_.-]+:\d+>/) != nil }

    private static func kindName(_ kind: String) -> String {
        let lowered = kind.lowercased().map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }
        return lowered.isEmpty ? "secret" : String(lowered.prefix(32))
    }
}
