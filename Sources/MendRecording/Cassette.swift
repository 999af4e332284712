import Foundation
import HTTPTypes
import MendCore
import MendHTTP

/// The recorded exchanges a replay answers from, each used once, in order: matched by method, path and query
/// (order-insensitive), the body canonicalised (JSON with sorted keys, a form's pairs sorted, GraphQL by
/// `operationName` and variables, a Graph batch by its parts), and every redacted value compared by its kind only —
/// a fresh PKCE verifier matches the recorded one's placeholder. The host and port are not compared (a recording
/// made against one emulator replays against any), nor are headers (an `Authorization` header does not change what
/// counts as the same request).
final class Cassette: Sendable {
    private struct State {
        var entries: [HAREntry]
        var used: Set<Int> = []
        /// What the replayed client sent where the recording has other values (a per-run parameter: its `state`,
        /// its `nonce`, its loopback `redirect_uri`): recorded value → the client's, applied to every later answer.
        var bindings: [String: String] = [:]
    }
    private let state: Locked<State>
    private let keys: [RequestKey]
    /// The recorded JWTs' templates, by placeholder.
    private let templates: [String: JSONValue]
    /// The keys the replay signs JWTs with, and whose JWKS it answers.
    private let fixtureKeys = FixtureKeys()
    let rules: RedactionRules

    init(entries: [HAREntry], rules: RedactionRules) {
        self.state = Locked(State(entries: entries))
        self.rules = rules
        self.keys = entries.map { RequestKey(recorded: $0.request, rules: rules) }
        var templates: [String: JSONValue] = [:]
        for entry in entries {
            for (placeholder, template) in entry.mend?.jwts ?? [:] { templates[placeholder] = template }
        }
        self.templates = templates
    }

    /// Takes the first unused entry matching the request, learning the client's per-run values from it; `nil` when
    /// there is none.
    func take(_ key: RequestKey, url: String, body: Data?, mediaType: String?) -> HAREntry? {
        let liveValues = Self.perRunValues(url: url, body: body, mediaType: mediaType, rules: rules)
        return state.withLock { state in
            guard let index = keys.indices.first(where: { !state.used.contains($0) && keys[$0] == key }) else {
                return nil
            }
            state.used.insert(index)
            let recorded = state.entries[index].request
            let recordedValues = Self.perRunValues(
                url: recorded.url, body: recorded.postData?.text.map { Data($0.utf8) },
                mediaType: recorded.postData?.mimeType, rules: rules)
            for (name, value) in recordedValues {
                if let live = liveValues[name], live != value, !value.isEmpty { state.bindings[value] = live }
            }
            return state.entries[index]
        }
    }

    /// The values of the per-run parameters in a request's query, form or JSON body.
    static func perRunValues(url: String, body: Data?, mediaType: String?, rules: RedactionRules) -> [String: String] {
        var values: [String: String] = [:]
        var pairs = FormEncoding.decodeFields(URLComponents(string: url)?.percentEncodedQuery ?? "")
        if let body, !body.isEmpty {
            if case .success(.object(let members)) = JSONValue.parse(body, duplicateMembers: .lastWins) {
                for (name, value) in members { if let text = value.stringValue { pairs.append((name, text)) } }
            } else if (mediaType ?? "").contains("x-www-form-urlencoded") {
                pairs += FormEncoding.decodeFields(String(decoding: body, as: UTF8.self))
            }
        }
        for pair in pairs where rules.isPerRun(pair.name) {
            if let value = pair.value, values[pair.name.lowercased()] == nil { values[pair.name.lowercased()] = value }
        }
        return values
    }

    /// The answer of `entry`: the client's own per-run values where the recording had its, each recorded JWT signed
    /// again with a fixture key, each recorded JWKS the fixture keys'.
    func answer(_ entry: HAREntry, now: Date) throws -> (HTTPResponse, HTTPBody) {
        let bindings = state.withLock { $0.bindings }
        func bind(_ text: String) -> String {
            var result = text
            for (recorded, live) in bindings
            where result.contains(recorded) || result.contains(FormEncoding.escape(recorded)) {
                result = result.replacingOccurrences(of: recorded, with: live)
                    .replacingOccurrences(of: FormEncoding.escape(recorded), with: FormEncoding.escape(live))
            }
            return result
        }
        var (response, body) = try Replay.answer(entry)
        var fields = HTTPFields()
        for field in response.headerFields { fields.append(HTTPField(name: field.name, value: bind(field.value))) }
        response.headerFields = fields
        guard !body.isEmpty, var text = String(data: body, encoding: .utf8) else {
            return (response, HTTPBody(body))
        }
        text = bind(text)
        if case .success(let json) = JSONValue.parse(Data(text.utf8), duplicateMembers: .lastWins) {
            if let first = json["keys"]?.arrayValue?.first, first["kty"] != nil {
                text = try fixtureKeys.jwks(replacing: json).jsonText()
            }
            let accessToken = json["access_token"]?.stringValue
            for (placeholder, template) in templates where text.contains(placeholder) {
                let jwt = try fixtureKeys.materialize(template, now: now, bind: bind, accessToken: accessToken)
                text = text.replacingOccurrences(of: placeholder, with: jwt)
            }
        }
        body = Data(text.utf8)
        return (response, HTTPBody(body))
    }

    /// Adds an entry (recorded now) that later requests may not replay: it was answered live.
    func appendUsed(_ entry: HAREntry) {
        state.withLock { state in
            state.entries.append(entry)
            state.used.insert(state.entries.count - 1)
        }
    }

    /// The `transport/13` error for a request nothing answers: the closest recorded request and how it differs.
    func mismatch(_ key: RequestKey) -> MendError {
        let (closest, usedUp): (RequestKey?, Int) = {
            let same = keys.indices.filter { keys[$0] == key }
            if !same.isEmpty { return (keys[same[0]], same.count) }
            return (keys.min { $0.distance(to: key) < $1.distance(to: key) }, 0)
        }()
        let message: String
        if closest != nil, usedUp > 0 {
            message =
                "The recording has no answer left for \(key.summary): all \(usedUp) recorded answer"
                + "\(usedUp == 1 ? " was" : "s were") used (a replay answers each recorded exchange once)."
        } else if let closest {
            message =
                "The recording has no answer for \(key.summary). The closest recorded request is \(closest.summary); "
                + closest.differences(from: key).joined(separator: "; ") + "."
        } else {
            message = "The recording has no answer for \(key.summary): it holds no exchange."
        }
        return MendError(code: .Transport.replayMismatch, developerMessage: message, catalog: .core)
    }
}

/// What identifies a request in a recording: its method, path, query and body, canonical and redacted.
struct RequestKey: Sendable, Equatable {
    var method: String
    var path: String
    /// The query's pairs, sorted.
    var query: [String]
    /// The body's canonical form (empty without one).
    var body: String

    /// The key of a recorded request (a HAR entry's `request`).
    init(recorded request: HARRequest, rules: RedactionRules) {
        self.init(
            method: request.method, url: request.url, body: request.postData?.text.map { Data($0.utf8) },
            mediaType: request.postData?.mimeType, rules: rules)
    }

    /// The key of a live request and its body.
    init(method: String, url: String, body: Data?, mediaType: String?, rules: RedactionRules) {
        let canonical = ExchangeRedactor(rules: rules, placeholders: PlaceholderTable(fresh: true), canonical: true)
        let components = URLComponents(string: url)
        self.method = method.uppercased()
        self.path = components?.percentEncodedPath ?? url
        self.query = FormEncoding.decodeFields(components?.percentEncodedQuery ?? "").map { pair in
            Self.collapse(
                pair.name + "=" + (pair.value.map { canonical.redact(value: $0, name: pair.name, inQuery: true) } ?? "")
            )
        }.sorted()
        self.body = body.map { Self.canonicalBody($0, mediaType: mediaType, redactor: canonical) } ?? ""
    }

    /// A body's canonical form: GraphQL by operation name and variables, a form's pairs sorted (a Graph batch's
    /// `batch` by its parts), JSON with sorted keys, anything else redacted as text.
    static func canonicalBody(_ data: Data, mediaType: String?, redactor: ExchangeRedactor) -> String {
        guard !data.isEmpty else { return "" }
        if case .success(let json) = JSONValue.parse(data, duplicateMembers: .lastWins) {
            if json["query"]?.stringValue != nil, json.objectValue != nil {
                let operation = json["operationName"]?.stringValue ?? Self.operationName(json["query"]?.stringValue)
                return collapse(
                    "graphql " + (operation ?? "(anonymous)") + " "
                        + redactor.redact(json: json["variables"] ?? .object([:])).jsonText())
            }
            return collapse(redactor.redact(json: json).jsonText())
        }
        let text = String(decoding: data, as: UTF8.self)
        if (mediaType ?? "").lowercased().contains("x-www-form-urlencoded") || !text.contains(" ") && text.contains("=")
        {
            return FormEncoding.decodeFields(text).map { pair in
                collapse(
                    pair.name + "="
                        + (pair.value.map { redactor.redact(value: $0, name: pair.name, inQuery: true) } ?? ""))
            }.sorted().joined(separator: "&")
        }
        return collapse(redactor.redact(text: text))
    }

    /// The first operation's name in a GraphQL document (`query Profile { … }` → `Profile`).
    static func operationName(_ document: String?) -> String? {
        guard let document,
            let match = document.firstMatch(of: /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/)
        else { return nil }
        return String(match.1)
    }

    /// Placeholders and fresh secrets both become their kind: `<mend:code_verifier:1>` and a new verifier both read
    /// `<code_verifier>`.
    static func collapse(_ text: String) -> String {
        guard text.contains("<") || text.contains("%3C") else { return text }
        var result = text.replacing(/<(?:mend|fresh):([a-z0-9_.-]+)(?::\d+)?>/) { "<\($0.1)>" }
        result = result.replacing(/%3C(?:mend|fresh)%3A([a-z0-9_.-]+)(?:%3A\d+)?%3E/) { "<\($0.1)>" }
        return result
    }

    /// `GET /v25.0/me?fields=id`.
    var summary: String {
        "\(method) \(path)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
            + (body.isEmpty ? "" : " with body \(body.prefix(200))\(body.count > 200 ? "…" : "")")
    }

    /// How far another key is: the method and path weigh most, then each query pair and the body.
    func distance(to other: RequestKey) -> Int {
        var distance = 0
        if method != other.method { distance += 100 }
        if path != other.path { distance += 1000 }
        distance += Set(query).symmetricDifference(other.query).count * 10
        if body != other.body { distance += 5 }
        return distance
    }

    /// What differs between this (recorded) key and the one sent.
    func differences(from sent: RequestKey) -> [String] {
        var differences: [String] = []
        if method != sent.method { differences.append("the method differs: recorded \(method), sent \(sent.method)") }
        if path != sent.path { differences.append("the path differs: recorded \(path), sent \(sent.path)") }
        let recordedOnly = Set(query).subtracting(sent.query).sorted()
        let sentOnly = Set(sent.query).subtracting(query).sorted()
        if !recordedOnly.isEmpty || !sentOnly.isEmpty {
            differences.append(
                "the query differs: recorded \(recordedOnly.isEmpty ? "nothing more" : recordedOnly.joined(separator: "&")), "
                    + "sent \(sentOnly.isEmpty ? "nothing more" : sentOnly.joined(separator: "&"))")
        }
        if body != sent.body {
            differences.append("the body differs: recorded \(body.prefix(200)), sent \(sent.body.prefix(200))")
        }
        return differences.isEmpty ? ["no difference but the answers left"] : differences
    }
}
