import Foundation
public import HTTPTypes
public import MendCore

/// Watches what a client's pipeline does with each request: every attempt handed to the transport and how it ended,
/// every wait (a backoff, a `Retry-After`, a rate-limit hold) and every credential renewal.
///
/// This is the seam that tracing and metrics plug into (MendTelemetry's `TelemetryObserver` emits OpenTelemetry
/// spans and metrics through it); it needs no dependency and costs nothing when no observer is set. A client takes
/// its observer from its configuration (`APIClient.Configuration(observer:)`), which defaults to the one set with
/// ``APIClient/bootstrapObserver(_:)`` when the configuration was made, so that the clients Mend makes for you (a
/// login's token exchange, an ID token's key set) are observed too.
///
/// ```swift
/// struct AttemptCounter: PipelineObserver {
///     func observe(
///         _ request: ObservedRequest, _ send: (any RequestObservation) async throws -> APIResponse
///     ) async throws -> APIResponse {
///         try await send(Counting())
///     }
/// }
/// ```
public protocol PipelineObserver: Sendable {
    /// Runs one logical request: `send` runs every step, attempt and wait of it, reporting them to the observation
    /// it is given, and returns the response or throws the request's final error (a `MendError`, or
    /// `CancellationError`). Call `send` exactly once and return or rethrow what it gives.
    ///
    /// - Parameters:
    ///   - request: The request as the caller made it.
    ///   - send: Runs the request, reporting to the observation it is given.
    func observe(
        _ request: ObservedRequest, _ send: (any RequestObservation) async throws -> APIResponse
    ) async throws -> APIResponse

    /// Runs one refresh of a stored session at its issuer — MendLogin's `CredentialsManager` reports each, whatever
    /// asked for it: an access token about to expire, a rejected request, the app — and returns its result or
    /// rethrows its error. Call `refresh` exactly once. A session that another manager or process had just refreshed
    /// is taken from the store without a refresh, and is not reported. A refresh after a rejection also runs inside
    /// that request's ``RequestObservation/renewingCredential(after:_:)``.
    ///
    /// The default runs `refresh` unobserved.
    ///
    /// - Parameter refresh: The refresh, including its own requests (observed as any request).
    func observeRefresh<Result>(_ refresh: () async throws -> Result) async throws -> Result
}

extension PipelineObserver {
    /// Runs `refresh` unobserved.
    public func observeRefresh<Result>(_ refresh: () async throws -> Result) async throws -> Result {
        try await refresh()
    }
}

/// What one logical request reports while it runs.
///
/// Its methods are called from the request's task, in order; a step of yours that calls `next` concurrently (a
/// hedged request) makes concurrent calls.
public protocol RequestObservation: Sendable {
    /// An attempt is about to be handed to the transport. `head` is what will be sent, credential attached: the
    /// observer may add fields (trace context) and must never record the credential. The returned observation
    /// hears how the attempt ended.
    ///
    /// - Parameters:
    ///   - number: The attempt's number, from 1 (a resend is 2 or more).
    ///   - head: The request head about to be sent.
    func attemptStarting(number: Int, head: inout HTTPRequest) -> any AttemptObservation

    /// The pipeline is about to wait before going on.
    ///
    /// - Parameter wait: The wait, with its reason and the error that caused it.
    func waiting(_ wait: PipelineWait)

    /// Runs a renewal of the credential the server rejected (a refresh or a new login) and returns its result.
    ///
    /// - Parameters:
    ///   - error: The rejection.
    ///   - renew: The renewal (shared with every concurrent rejection of the same credential).
    func renewingCredential(
        after error: MendError, _ renew: () async throws -> Credential
    ) async throws -> Credential

    /// A stored answer stands in for the request's transient failure (``LastKnownGood``).
    ///
    /// - Parameter staleness: How old the answer is, and the failure it stands in for.
    func servedStale(_ staleness: Staleness)
}

extension RequestObservation {
    /// Hears nothing of stale answers.
    public func servedStale(_ staleness: Staleness) {}
}

/// What one attempt reports when it ends.
public protocol AttemptObservation: Sendable {
    /// The attempt ended: a response that is a success, a classified failure, or cancellation.
    ///
    /// - Parameter outcome: How it ended.
    func ended(_ outcome: AttemptOutcome)
}

/// How one attempt ended.
public enum AttemptOutcome: Sendable {
    /// A successful response (its head; the body is the response's).
    case success(HTTPResponse)
    /// A classified failure: an error response (the error's `httpStatus` says its status) or a transport failure.
    case failure(MendError)
    /// The task was cancelled (never an error).
    case cancelled
}

/// A wait of the pipeline, with its reason.
public struct PipelineWait: Sendable {
    /// Why the pipeline waits.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Before a retry, by the retry policy's backoff.
        case backoff
        /// Before a retry, for as long as the server asked (`Retry-After`, a throttle's reset time).
        case retryAfter
        /// Before sending, while the request's rate-limit key is held after a throttle.
        case rateLimitHold
    }

    /// Why the pipeline waits.
    public var reason: Reason
    /// How long it waits.
    public var duration: Duration
    /// The error that caused the wait (the failure retried, or the throttle that closed the key).
    public var error: MendError

    /// Creates a wait (the pipeline's steps report them; an observer only receives them).
    ///
    /// - Parameters:
    ///   - reason: Why the pipeline waits.
    ///   - duration: How long it waits.
    ///   - error: The error that caused the wait.
    package init(reason: Reason, duration: Duration, error: MendError) {
        self.reason = reason
        self.duration = duration
        self.error = error
    }
}

/// A logical request as its observer first sees it: before any step ran, with no credential attached.
///
public struct ObservedRequest: Sendable {
    /// The request's head, as the caller made it.
    public var head: HTTPRequest
    /// The low-cardinality template of the request's path (`/{id}/feed`), when the client knows one
    /// (``RequestOptions`` `urlTemplate`).
    public var urlTemplate: String?
    /// Whether the request goes to a third party (an identity provider, the Graph API) rather than the app's own
    /// backend (`APIClient.Configuration(isThirdParty:)`): an observer sends it no trace context unless told to.
    public var isThirdParty: Bool

    /// The operation the request carries, when its protocol names one (a GraphQL query): it names the logical
    /// request's span and adds its attributes.
    package var operation: Operation?

    /// An operation a request carries, in its protocol's telemetry terms.
    package struct Operation: Sendable, Hashable {
        /// The span's name (`query PostList`).
        package var name: String
        /// Its attributes (`graphql.operation.type`, `graphql.operation.name`), strings.
        package var attributes: [String: String]

        /// An operation named `name` with `attributes`.
        package init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }
    }

    /// Creates an observed request.
    ///
    /// - Parameters:
    ///   - head: The request's head, as the caller made it.
    ///   - urlTemplate: The low-cardinality template of the request's path, when known.
    ///   - isThirdParty: Whether the request goes to a third party.
    ///   - operation: The operation it carries, when its protocol names one.
    package init(
        head: HTTPRequest, urlTemplate: String? = nil, isThirdParty: Bool = false, operation: Operation? = nil
    ) {
        self.head = head
        self.urlTemplate = urlTemplate
        self.isThirdParty = isThirdParty
        self.operation = operation
    }

    /// `url.full` for telemetry: the request's URL with the values of sensitive query parameters (`access_token`,
    /// `code`, `client_secret`, …) replaced by `REDACTED`, as OpenTelemetry's conventions ask.
    ///
    /// - Parameter head: The request head.
    public static func redactedURL(of head: HTTPRequest) -> String {
        let path = QueryRedaction.redact(path: head.path ?? "/", placeholder: "REDACTED")
        return "\(head.scheme ?? "https")://\(head.authority ?? "")\(path)"
    }
}

extension APIClient {
    private static let bootstrapped = Locked<(any PipelineObserver)?>(nil)

    /// Sets the observer of every client whose configuration is made afterwards without naming one (including the
    /// clients Mend makes inside its login flows and mend-server). Call it once, at startup, before making clients,
    /// as you call `LoggingSystem.bootstrap`; a later call replaces the observer for clients made after it.
    ///
    /// - Parameter observer: The observer (`nil`: none).
    public static func bootstrapObserver(_ observer: (any PipelineObserver)?) {
        bootstrapped.withLock { $0 = observer }
    }

    /// The observer set with ``bootstrapObserver(_:)``, if any.
    public static var bootstrappedObserver: (any PipelineObserver)? {
        bootstrapped.current
    }
}
