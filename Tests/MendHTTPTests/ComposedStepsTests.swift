import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

/// An app's middleware that runs Mend's standard steps itself, through `ClientMiddleware.intercept` — as an app that
/// composes its own pipeline would: each step gets a `next` closure, not the client's own way of calling its steps.
struct ComposingMiddleware: ClientMiddleware {
    let inner: [any ClientMiddleware]

    func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        try await run(request, from: 0, context: context, next: next)
    }

    private func run(
        _ request: APIRequest, from index: Int, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        guard index < inner.count else { return try await next(request) }
        return try await inner[index].intercept(request, context: context) { request in
            try await run(request, from: index + 1, context: context, next: next)
        }
    }
}

@Suite("Mend's steps composed by an app's own middleware")
struct ComposedStepsTests {
    /// 401 to the first token; with the refreshed one, 503 once, then 200.
    static func transport() -> InMemoryTransport {
        let refreshedCalls = Locked(0)
        return InMemoryTransport { request, _ in
            guard (request.headerFields[.authorization] ?? "").hasSuffix("BBBBBBBBBBBBBBBBB2") else {
                return .json(401, #"{"message":"token expired"}"#)
            }
            let call = refreshedCalls.withLock { count in
                count += 1
                return count
            }
            return call == 1 ? .json(503, #"{"message":"busy"}"#) : .json(200, #"{"ok":true}"#)
        }
    }

    @Test("Called through intercept, the steps re-authenticate once, retry once and succeed, as in the client")
    func composedLikeTheClient() async throws {
        for composed in [true, false] {
            let transport = Self.transport()
            let provider = RotatingProvider()
            let sleeper = SleepRecorder()
            let steps: [any ClientMiddleware] = .standard(
                credentialProvider: provider, retryPolicy: RetryPolicy(maximumAttempts: 3),
                retryBudget: RetryBudget(configuration: .unlimited))
            let client = APIClient(
                transport: transport,
                configuration: .init(clock: PipelineClock(sleep: sleeper.sleep, now: { testNow }, random: { 0.5 })),
                steps: composed ? [ComposingMiddleware(inner: steps)] : steps)
            let response = try await client.send(APIRequest(method: .get, url: apiURL))
            #expect(response.attempts == 3, "composed: \(composed)")
            #expect(provider.refreshes.current == 1, "composed: \(composed)")
            #expect(transport.requestCount == 3, "composed: \(composed)")
            #expect(sleeper.recorded.count == 1, "composed: \(composed)")
        }
    }
}
