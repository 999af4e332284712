public import Foundation
public import HTTPTypes

/// One Graph API call: a path, its parameters and fields, and how the client treats it.
///
/// ```swift
/// let me = GraphRequest(path: "me", fields: ["id", "name", "email"])
/// let post = GraphRequest(path: "me/feed", parameters: ["message": "Hello"], method: .post)
/// ```
public struct GraphRequest: Sendable, Hashable {
    /// Per-request switches, as the vendor SDK's request flags.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int
        /// Creates flags from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// No recovery attempt for this request (no re-login, no replay; background work sets this). Transient errors
        /// are still retried under the client's policy, and a token error still clears the dead token; turn off
        /// ``GraphClient/Configuration-swift.struct/automaticRecovery`` for no retries at all.
        public static let skipRecovery = Flags(rawValue: 1 << 0)
        /// A token error on this request does not clear the stored token (and therefore is not recovered either).
        public static let doNotInvalidateTokenOnError = Flags(rawValue: 1 << 1)
    }

    /// The path below the version, such as `me`, `me/feed` or an object id.
    public var path: String
    /// Parameters: in the query for GET and DELETE, in a form body for POST.
    public var parameters: [String: String]
    /// The fields to return (`fields=id,name`).
    public var fields: [String]
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The API version (`v25.0`); `nil` uses the client's.
    public var version: String?
    /// A token to use instead of the session's; never invalidated or recovered.
    public var tokenOverride: String?
    /// Switches.
    public var flags: Flags
    /// An idempotency key, which makes a POST safe to retry.
    public var idempotencyKey: String?

    /// Creates a request.
    public init(
        path: String, parameters: [String: String] = [:], fields: [String] = [], method: HTTPRequest.Method = .get,
        version: String? = nil, tokenOverride: String? = nil, flags: Flags = [], idempotencyKey: String? = nil
    ) {
        self.path = path
        self.parameters = parameters
        self.fields = fields
        self.method = method
        self.version = version
        self.tokenOverride = tokenOverride
        self.flags = flags
        self.idempotencyKey = idempotencyKey
    }

    /// Every parameter, `fields` included, sorted by name (a stable wire form).
    public var allParameters: [(name: String, value: String)] {
        var all = parameters
        if !fields.isEmpty { all["fields"] = fields.joined(separator: ",") }
        return all.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The path relative to the version, without a leading slash.
    var relativePath: String {
        path.drop { $0 == "/" }.description
    }

    /// `relative_url` as a batch item carries it: the path with the query.
    var relativeURL: String {
        let query = FormEncoding.encode(method == .post ? [] : allParameters)
        return query.isEmpty ? relativePath : "\(relativePath)?\(query)"
    }
}

/// `application/x-www-form-urlencoded` encoding (also used for query strings).
enum FormEncoding {
    static let allowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()

    static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
