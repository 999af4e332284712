import HTTPTypes

/// What comes after one of Mend's own steps: the client's next step, or the transport.
///
/// The client runs its own steps (``AuthorizationStep``, ``RateLimitGateStep``, ``RetryStep``, ``LoggingStep``) through
/// this instead of a `next` closure per step and request; an app's ``ClientMiddleware`` between them still gets its
/// closure, and a step of Mend's called as a `ClientMiddleware` (by an app that composes steps itself) wraps the
/// closure it was given.
package struct PipelineRest: Sendable {
    private enum Next: Sendable {
        /// The client's steps from `index` on, then the transport.
        case client(APIClient, index: Int)
        /// A `ClientMiddleware`'s `next`.
        case closure(@Sendable (APIRequest) async throws -> APIResponse)
    }

    private let next: Next

    /// The client's steps from `index` on.
    init(client: APIClient, index: Int) { next = .client(client, index: index) }

    /// The `next` closure of ``ClientMiddleware/intercept(_:context:next:)``.
    package init(_ next: @escaping @Sendable (APIRequest) async throws -> APIResponse) { self.next = .closure(next) }

    /// Sends `request` on down the pipeline.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(
        _ request: APIRequest, context: PipelineContext
    ) async throws -> APIResponse {
        switch next {
        case .client(let client, let index): try await client.run(request, from: index, context: context)
        case .closure(let next): try await next(request)
        }
    }
}

/// One of Mend's own steps, which the client calls with a ``PipelineRest`` rather than a closure.
package protocol OwnStep: ClientMiddleware {
    /// Handles `request`, sending it on with `rest` (any number of times, or not at all).
    nonisolated(nonsending) func handle(
        _ request: APIRequest, context: PipelineContext, rest: PipelineRest
    ) async throws -> APIResponse
}

extension OwnStep {
    /// The step as any other middleware: `next` is the rest of the pipeline.
    package func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        try await withoutActuallyEscaping(next) { next in
            try await handle(request, context: context, rest: PipelineRest(next))
        }
    }
}
