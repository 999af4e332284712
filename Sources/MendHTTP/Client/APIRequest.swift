public import Foundation
public import HTTPTypes
import Logging
import MendCore

/// A request for the pipeline: the HTTP head, an optional body, and how the pipeline should treat it.
public struct APIRequest: Sendable {
    /// Method, scheme, authority, path (with the query) and header fields.
    public var head: HTTPRequest
    /// The body, if any.
    public var body: Data?
    /// How the pipeline treats the request (retries, re-authentication, deadline, rate-limit key).
    public var options: RequestOptions

    /// The credential the authorization middleware applied, so that the request's own secret is redacted
    /// everywhere and a rejection can be tied to it.
    internal(set) var appliedCredential: Credential?
    /// The request's DPoP binding, if it proves a key: the exchange signs a proof with it for each attempt, and the
    /// retry step answers one nonce challenge and one refusal for the proof's time. The authorization step sets it
    /// for a bound credential; a token endpoint's request that binds, or uses, a bound session (a code exchange, a
    /// refresh, a revocation: RFC 9449 §5) carries one from the start, with no access token.
    package var dpop: DPoPBinding?

    /// Creates a request from its parts.
    package init(head: HTTPRequest, body: Data? = nil, options: RequestOptions = RequestOptions()) {
        self.head = head
        self.body = body
        self.options = options
        self.appliedCredential = nil
        self.dpop = nil
    }

    /// Creates a request for `url`.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields.
    ///   - body: The body, if any.
    ///   - options: How the pipeline treats the request.
    public init(
        method: HTTPRequest.Method, url: URL, headers: HTTPFields = [:], body: Data? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(head: HTTPRequest(method: method, target: url, headerFields: headers), body: body, options: options)
    }

    /// Whether the method is idempotent by definition (RFC 9110 §9.2.2): GET, HEAD, OPTIONS, TRACE, PUT, DELETE.
    package var isIdempotent: Bool {
        switch head.method {
        case .get, .head, .options, .trace, .put, .delete: true
        default: false
        }
    }

    /// `METHOD /path` with sensitive query values redacted, for logs.
    package var redactedSummary: String {
        "\(head.method.rawValue) \(head.scheme ?? "https")://\(head.authority ?? "")\(QueryRedaction.redact(path: head.path ?? "/"))"
    }
}

/// How the pipeline treats one request.
public struct RequestOptions: Sendable {
    /// An idempotency key: sent as `Idempotency-Key`, and it makes a non-idempotent request safe to retry.
    package var idempotencyKey: String?
    /// Overrides whether the request may be retried: `true` opts a non-idempotent request in; `false` never retries
    /// it, not even after a failure that proves the server never saw it (a single-use code); `nil`: idempotent
    /// methods, keyed requests, and failures that prove the request was never processed.
    package var allowsRetry: Bool?
    /// What a rejection of the client's credential does: re-authenticate once and replay (the default), only
    /// invalidate the credential, or keep it.
    package var credentialRejection: CredentialRejection
    /// Whether the client's credential is attached.
    package var attachesCredential: Bool
    /// A credential to use instead of the provider's (a token override); never refreshed.
    package var credentialOverride: Credential?
    /// The time the whole request may take, every attempt and wait included.
    package var timeout: Duration?
    /// The time one try may take (`nil`: what is left of ``timeout``, or the transport's default).
    package var attemptTimeout: Duration?
    /// The key of the rate-limit bucket the request counts against (`nil`: the client's default, the host).
    package var rateLimitKey: String?
    /// Whether a success must carry a JSON body.
    package var expectsJSON: Bool
    /// The decoder for this request's errors (`nil`: the client's).
    package var errorDecoder: (any ErrorDecoder)?
    /// The low-cardinality template of the request's path (`/{id}/feed`), which names its span and labels its
    /// metrics; `nil`: only the method does (the path is never used, as it may hold ids).
    package var urlTemplate: String?
    /// The operation the request carries, when its protocol names one (a GraphQL query): its span's name and
    /// attributes.
    package var operation: ObservedRequest.Operation?
    /// How far past its freshness a stored answer may be to stand in for a transient failure (``LastKnownGood``);
    /// `nil`: never (and, in ``LastKnownGood/Mode/snapshot``, the answer is not stored either).
    public var maxStale: Duration?
    /// The client's own name for the request in a response store (a GraphQL operation with its variables), where
    /// its URL does not say it; `nil`: the URL.
    package var storeResource: String?

    /// Creates options.
    ///
    /// - Parameters:
    ///   - idempotencyKey: Sent as `Idempotency-Key`; it makes a non-idempotent request safe to retry.
    ///   - allowsRetry: `true` opts a non-idempotent request in; `false` never retries it; `nil`: the default.
    ///   - credentialRejection: What a rejection of the client's credential does.
    ///   - attachesCredential: Whether the client's credential is attached.
    ///   - credentialOverride: A credential to use instead of the provider's; never refreshed.
    ///   - timeout: The time the whole request may take, every attempt and wait included.
    ///   - attemptTimeout: The time one try may take.
    ///   - rateLimitKey: The rate-limit bucket the request counts against (`nil`: the host).
    ///   - expectsJSON: Whether a success must carry a JSON body.
    ///   - errorDecoder: The decoder for this request's errors (`nil`: the client's).
    ///   - urlTemplate: The low-cardinality template of the path (`/{id}/feed`) for traces and metrics.
    ///   - maxStale: How far past its freshness a stored answer may be to stand in for a transient failure
    ///     (``LastKnownGood``); `nil`: never.
    public init(
        idempotencyKey: String? = nil, allowsRetry: Bool? = nil,
        credentialRejection: CredentialRejection = .reauthenticate,
        attachesCredential: Bool = true, credentialOverride: Credential? = nil, timeout: Duration? = nil,
        attemptTimeout: Duration? = nil, rateLimitKey: String? = nil, expectsJSON: Bool = true,
        errorDecoder: (any ErrorDecoder)? = nil, urlTemplate: String? = nil, maxStale: Duration? = nil
    ) {
        self.idempotencyKey = idempotencyKey
        self.allowsRetry = allowsRetry
        self.credentialRejection = credentialRejection
        self.attachesCredential = attachesCredential
        self.credentialOverride = credentialOverride
        self.timeout = timeout
        self.attemptTimeout = attemptTimeout
        self.rateLimitKey = rateLimitKey
        self.expectsJSON = expectsJSON
        self.errorDecoder = errorDecoder
        self.urlTemplate = urlTemplate
        self.maxStale = maxStale
    }
}

/// What the pipeline does when the server rejects the client's credential (the error is one the client's
/// re-authentication rule matches, such as a 401 or Graph 190). A credential override is never touched.
public enum CredentialRejection: Sendable, Hashable {
    /// Invalidate the credential, re-authenticate once (single-flight across concurrent requests) and replay once.
    case reauthenticate
    /// Invalidate the credential and return the error (the vendor SDK's `disableErrorRecovery`).
    case invalidate
    /// Return the error and leave the credential as it is (the vendor SDK's `doNotInvalidateTokenOnError`).
    case keep
}
