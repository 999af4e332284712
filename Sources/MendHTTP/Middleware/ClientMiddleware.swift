import Foundation
public import HTTPTypes
public import Logging
public import MendCore

/// A step of the request pipeline: it sees each request on its way to the transport and each response or error on
/// the way back.
///
/// A client runs its steps in the order given, outermost first, then the transport and the error decoder. Mend's
/// own steps come as one list, `.standard(credentialProvider:…)`, in their order: authorization (attach the
/// credential; on its rejection invalidate it, renew it through its provider and replay once), the rate-limit gate
/// (hold requests to a throttled key), retry (backoff, budget, deadline), logging (one line per try). Put your own
/// steps before or after that list.
///
/// A step implements ``intercept(_:context:next:)-(_,_,PipelineNext)``, whose `next` the client links once, when it is made:
///
/// ```swift
/// struct TracingStep: ClientMiddleware {
///     func intercept(
///         _ request: APIRequest, context: PipelineContext, next: PipelineNext
///     ) async throws -> APIResponse {
///         var request = request
///         request.head.headerFields[HTTPField.Name("X-Trace")!] = UUID().uuidString
///         return try await next(request, context: context)
///     }
/// }
/// ```
///
/// The older form, whose `next` is a closure, still works: a step that implements only that one is called through it
/// (with a closure made for each request), and a step that implements only the ``PipelineNext`` form can still be
/// called through the closure form (by a middleware of yours that runs steps itself). Each form's default
/// implementation calls the other: implement at least one. A step that implements neither compiles, and stops the
/// process at its first request.
public protocol ClientMiddleware: Sendable {
    /// Handles `request`, calling `next` to continue down the pipeline (any number of times, or not at all).
    ///
    /// The client calls this form. Its default implementation calls the closure form, with a closure that calls
    /// `next`.
    ///
    /// - Parameters:
    ///   - request: The request on its way to the transport.
    ///   - context: The request's context: pass it on to `next`.
    ///   - next: The rest of the pipeline below this step.
    nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse

    /// Handles `request`, calling the `next` closure to continue down the pipeline (any number of times, or not at
    /// all): the older form of ``intercept(_:context:next:)-(_,_,PipelineNext)``.
    ///
    /// A client calls a step that implements only this form with a closure made for each request. Its default
    /// implementation calls the ``PipelineNext`` form, with a `next` that wraps the closure.
    ///
    /// - Parameters:
    ///   - request: The request on its way to the transport.
    ///   - context: The request's context.
    ///   - next: The rest of the pipeline below this step.
    func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse
}

extension ClientMiddleware {
    /// Calls the closure form, with a closure that calls `next`: how a client calls a step written in that form.
    ///
    /// - Parameters:
    ///   - request: The request on its way to the transport.
    ///   - context: The request's context.
    ///   - next: The rest of the pipeline below this step.
    public nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        // Given the closure of its own closure form's default implementation: this type implements neither form, and
        // the two defaults would call each other for ever.
        precondition(
            !next.isBridge(of: Self.self),
            "\(Self.self) implements neither form of ClientMiddleware.intercept(_:context:next:): implement one")
        return try await intercept(request, context: context) { request in try await next(request, context: context) }
    }

    /// Calls the ``PipelineNext`` form, with a `next` that wraps the closure (valid during the call only): how a
    /// middleware that runs steps itself calls a step written in that form.
    ///
    /// - Parameters:
    ///   - request: The request on its way to the transport.
    ///   - context: The request's context.
    ///   - next: The rest of the pipeline below this step.
    public func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        try await withoutActuallyEscaping(next) { next in
            try await intercept(request, context: context, next: PipelineNext(next, bridging: Self.self))
        }
    }
}

extension Array where Element == any ClientMiddleware {
    /// Mend's standard steps, outermost first: the last-known-good answers (when given), authorization, the
    /// rate-limit gate, retry, logging.
    ///
    /// - Parameters:
    ///   - credentialProvider: Supplies, invalidates and renews the credential; `nil` sends requests without one.
    ///   - credentialPlacement: Where this API takes the token, whatever the credential says (`nil`: the
    ///     credential's own placement).
    ///   - isCredentialRejection: Which errors mean that the server rejected the credential (`nil`: a recoverable error whose recovery is to re-authenticate, such as a 401).
    ///   - retryPolicy: When and how often to retry (``RetryPolicy/never`` turns retries off); its
    ///     `maximumHintedWait` is also the longest rate-limit hold waited out.
    ///   - retryBudget: The budget retries are paid from.
    ///   - rateLimitGate: The rate-limit holds.
    ///   - rateLimitKey: The rate-limit bucket of a request that names none (default: its host).
    ///   - logging: What the steps log (nothing by default).
    ///   - lastKnownGood: Where the user's last good answers are kept, to stand in for transient failures; `nil`:
    ///     nowhere. Its step goes first, above authorization, and the principal is the one `credentialProvider`
    ///     names.
    public static func standard(
        credentialProvider: (any CredentialProvider)? = nil,
        credentialPlacement: Credential.Placement? = nil,
        isCredentialRejection: (@Sendable (MendError) -> Bool)? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(),
        retryBudget: RetryBudget = RetryBudget(),
        rateLimitGate: RateLimitGate = RateLimitGate(),
        rateLimitKey: @escaping @Sendable (APIRequest) -> String = { $0.head.authority ?? "" },
        logging: LoggingBehaviors = [],
        lastKnownGood: LastKnownGood? = nil
    ) -> [any ClientMiddleware] {
        var steps: [any ClientMiddleware] = [
            AuthorizationStep(
                provider: credentialProvider, placement: credentialPlacement,
                isRejection: isCredentialRejection ?? AuthorizationStep.isAuthenticationRejection,
                logging: logging),
            RateLimitGateStep(
                gate: rateLimitGate, key: rateLimitKey, maximumWait: retryPolicy.maximumHintedWait, logging: logging),
            RetryStep(policy: retryPolicy, budget: retryBudget, logging: logging),
        ]
        if let lastKnownGood {
            steps.insert(
                LastKnownGoodStep(lastKnownGood, principal: { try await credentialProvider?.principal() }), at: 0)
        }
        // The logging step logs nothing without these behaviours: it is left out rather than passed through per try.
        let logsTries = !logging.isDisjoint(with: [.networkRequests, .developerErrors])
        return logsTries ? steps + [LoggingStep(behaviors: logging)] : steps
    }
}
