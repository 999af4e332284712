/// The rest of the pipeline below a step: the client's next step, and after the last one the transport and the error
/// decoder.
///
/// A step continues down the pipeline by calling it, any number of times (a retry) or not at all (an answer of its
/// own):
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
/// A client links its steps once, when it is made: each step's `next` is the same value on every request, and a
/// request goes down the pipeline without a closure made for each step. Call it with the `context` the step was
/// given. A step called through the older closure form of ``ClientMiddleware`` (by an app's middleware that runs steps
/// itself) gets a `next` that wraps the closure it was given: that one is valid during the call only.
public struct PipelineNext: Sendable {
    /// What comes next, each made once.
    enum Link: Sendable {
        /// A step of the client's, with its own `next`.
        case step(StepLink)
        /// The client's innermost step: one try on the transport, then the error decoder.
        case exchange(ClientExchange)
        /// The `next` closure of a step called through the closure form.
        case closure(ClosureLink)
    }

    let link: Link

    /// `step`, then `next`.
    init(_ step: any ClientMiddleware, then next: PipelineNext) { link = .step(StepLink(step: step, next: next)) }

    /// The client's exchange.
    init(_ exchange: ClientExchange) { link = .exchange(exchange) }

    /// The `next` closure of a step of type `bridging` called through the closure form (which calls this form).
    init(_ next: @escaping @Sendable (APIRequest) async throws -> APIResponse, bridging: any ClientMiddleware.Type) {
        link = .closure(ClosureLink(send: next, bridging: ObjectIdentifier(bridging)))
    }

    /// Sends `request` on down the pipeline, and returns its response.
    ///
    /// - Parameters:
    ///   - request: The request as this step sends it on.
    ///   - context: The context the step was given.
    @inline(__always)
    public nonisolated(nonsending) func callAsFunction(
        _ request: APIRequest, context: PipelineContext
    ) async throws -> APIResponse {
        switch link {
        case .step(let link): try await link.step.intercept(request, context: context, next: link.next)
        case .exchange(let exchange): try await exchange.send(request, context: context)
        case .closure(let link): try await link.send(request)
        }
    }

    /// What this `next` is, the same object on every request of a client (for tests).
    package var identity: ObjectIdentifier {
        switch link {
        case .step(let link): ObjectIdentifier(link)
        case .exchange(let exchange): ObjectIdentifier(exchange)
        case .closure(let link): ObjectIdentifier(link)
        }
    }

    /// Whether this is the closure of a step of `type` called through the closure form, which a default
    /// implementation of the `PipelineNext` form was given: `type` implements neither form.
    func isBridge(of type: any ClientMiddleware.Type) -> Bool {
        guard case .closure(let link) = link else { return false }
        return link.bridging == ObjectIdentifier(type)
    }
}

/// A step of a client's chain, with what follows it.
final class StepLink: Sendable {
    let step: any ClientMiddleware
    let next: PipelineNext

    init(step: any ClientMiddleware, next: PipelineNext) {
        self.step = step
        self.next = next
    }
}

/// The `next` closure of a step called through the closure form.
final class ClosureLink: Sendable {
    let send: @Sendable (APIRequest) async throws -> APIResponse
    /// The type of the step whose closure form made this.
    let bridging: ObjectIdentifier

    init(send: @escaping @Sendable (APIRequest) async throws -> APIResponse, bridging: ObjectIdentifier) {
        self.send = send
        self.bridging = bridging
    }
}
