public import Foundation
public import HTTPTypes
import MendCore
public import MendHTTP

/// One Graph API call: a path, its parameters and fields, and how the client treats it.
///
/// ```swift
/// let me = GraphRequest(path: "me", fields: ["id", "name", "email"])
/// let post = GraphRequest(path: "me/feed", parameters: ["message": "Hello"], method: .post)
/// ```
public struct GraphRequest: Sendable, Hashable {
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
    /// What a token error (102, 190) on this request does: clear the token, recover once and replay
    /// (`.reauthenticate`, the default); only clear it (`.invalidate`, the vendor SDK's `disableErrorRecovery`, for
    /// background work); or leave it (`.keep`, the vendor SDK's `doNotInvalidateTokenOnError`). Transient errors are
    /// retried under the client's steps either way.
    public var onTokenError: CredentialRejection
    /// An idempotency key, which makes a POST safe to retry.
    public var idempotencyKey: String?
    /// How old a stored answer may be to stand in for a transient failure of this GET (the client's
    /// `LastKnownGood`); `nil`: never, and the answer is not stored.
    public var maxStale: Duration?

    /// Creates a request.
    public init(
        path: String, parameters: [String: String] = [:], fields: [String] = [], method: HTTPRequest.Method = .get,
        version: String? = nil, tokenOverride: String? = nil, onTokenError: CredentialRejection = .reauthenticate,
        idempotencyKey: String? = nil, maxStale: Duration? = nil
    ) {
        self.path = path
        self.parameters = parameters
        self.fields = fields
        self.method = method
        self.version = version
        self.tokenOverride = tokenOverride
        self.onTokenError = onTokenError
        self.idempotencyKey = idempotencyKey
        self.maxStale = maxStale
    }

    /// Every parameter, `fields` included, sorted by name (a stable wire form).
    var allParameters: [(name: String, value: String)] {
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
