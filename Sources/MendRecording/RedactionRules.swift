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

    /// The default rules: MendCore's one secret vocabulary, which errors, logs and telemetry redact with too.
    public init() {
        parameters = SecretVocabulary.names
        headers = SecretVocabulary.headers
        allowedNames = SecretVocabulary.allowedNames
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

    func isCredential(parameter name: String) -> Bool { parameters.contains(name.lowercased()) }
    /// Whether `value` under the credential parameter `name` is a secret where it sits (an error's short `code`
    /// in JSON is not).
    func isCredential(parameter name: String, value: String, inQuery: Bool) -> Bool {
        let lowered = name.lowercased()
        return parameters.contains(lowered)
            && SecretVocabulary.isLongEnough(value, for: lowered, in: inQuery ? .query : .text)
    }
    func isCredential(header name: String) -> Bool { headers.contains(name.lowercased()) }
    func isAllowed(_ name: String) -> Bool { allowedNames.contains(name.lowercased()) }
    func isPerRun(_ name: String) -> Bool { perRunParameters.contains(name.lowercased()) }
}

/// The placeholders of one recording: each distinct secret becomes `<mend:KIND:N>`, the same secret the same
/// placeholder, so that a replay stays self-consistent (the token a login returned is the token the next call
/// presents). Numbers count per kind, within the recording only.
final class PlaceholderTable: Sendable {
    private struct State {
        var bySecret: [String: String] = [:]
        var counters: [String: Int] = [:]
        /// The templates of the JWTs replaced (``JWTTemplate``), by placeholder.
        var templates: [String: JSONValue] = [:]
    }
    private let state: Locked<State>
    /// Whether every secret becomes `<fresh:KIND>`, unnumbered: a live request's canonical form for matching.
    private let fresh: Bool

    /// A table for matching: every secret that is not a placeholder yet becomes `<fresh:KIND>`.
    init(fresh: Bool) {
        self.fresh = fresh
        self.state = Locked(State())
    }

    /// A table whose numbers start after the ones `existing` already uses (a recording being added to).
    init(continuing existing: String = "") {
        self.fresh = false
        var initial = State()
        for match in existing.matches(of: /<mend:([a-z0-9_.-]+):(\d+)>/) {
            let kind = String(match.1)
            initial.counters[kind] = max(initial.counters[kind] ?? 0, Int(match.2) ?? 0)
        }
        self.state = Locked(initial)
    }

    /// The placeholder of `secret`, made under `kind` the first time.
    func placeholder(for secret: String, kind: String) -> String {
        if Self.isPlaceholder(secret) { return secret }
        if fresh { return "<fresh:\(Self.kindName(kind))>" }
        if secret.hasPrefix("eyJ"), state.withLock({ $0.bySecret[secret] == nil }),
            let template = JWTTemplate.make(secret, placeholders: self)
        {
            // A JWT: a placeholder of its own kind, and its template for the replay to sign again.
            return state.withLock { state in
                if let known = state.bySecret[secret] { return known }
                let placeholder = Self.next("jwt", in: &state)
                state.bySecret[secret] = placeholder
                state.templates[placeholder] = template
                return placeholder
            }
        }
        return state.withLock { state in
            if let known = state.bySecret[secret] { return known }
            let placeholder = Self.next(Self.kindName(kind), in: &state)
            state.bySecret[secret] = placeholder
            return placeholder
        }
    }

    private static func next(_ kind: String, in state: inout State) -> String {
        let number = (state.counters[kind] ?? 0) + 1
        state.counters[kind] = number
        return "<mend:\(kind):\(number)>"
    }

    /// The templates of the JWT placeholders that occur in `text`.
    func templates(in text: String) -> [String: JSONValue] {
        let templates = state.withLock { $0.templates }
        return templates.filter { text.contains($0.key) || text.contains(FormEncoding.escape($0.key)) }
    }

    /// Every secret replaced so far.
    var secrets: [String] { state.withLock { Array($0.bySecret.keys) } }

    /// Whether `text` is a placeholder.
    static func isPlaceholder(_ text: String) -> Bool { text.wholeMatch(of: /<mend:[a-z0-9_.-]+:\d+>/) != nil }

    private static func kindName(_ kind: String) -> String {
        let lowered = kind.lowercased().map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }
        return lowered.isEmpty ? "secret" : String(lowered.prefix(32))
    }
}
