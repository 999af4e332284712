import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

/// What the app's steps saw, in order: `name>` on the way down (with `+auth` when the request carried a credential),
/// `<name` on the way back.
private final class Trail: Sendable {
    private let entries = Locked<[String]>([])
    var recorded: [String] { entries.current }
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }

    func down(_ name: String, _ request: APIRequest) {
        append(request.head.headerFields[.authorization] == nil ? "\(name)>" : "\(name)+auth>")
    }
}

/// An app's step written in the older form: its `next` is a closure.
private struct ClosureFormStep: ClientMiddleware {
    let name: String
    let trail: Trail

    func intercept(
        _ request: APIRequest, context: PipelineContext, next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        trail.down(name, request)
        defer { trail.append("<\(name)") }
        return try await next(request)
    }
}

/// An app's step written in the `PipelineNext` form.
private struct NextFormStep: ClientMiddleware {
    let name: String
    let trail: Trail

    func intercept(_ request: APIRequest, context: PipelineContext, next: PipelineNext) async throws -> APIResponse {
        trail.down(name, request)
        defer { trail.append("<\(name)") }
        return try await next(request, context: context)
    }
}

/// Sends each request `times` times down the pipeline (`0`: answers it itself); returns the last answer. Written in
/// the `PipelineNext` form.
private struct RepeatingNextStep: ClientMiddleware {
    let times: Int

    func intercept(_ request: APIRequest, context: PipelineContext, next: PipelineNext) async throws -> APIResponse {
        var last = ownAnswer
        for _ in 0..<times { last = try await next(request, context: context) }
        return last
    }
}

/// The same, written in the closure form.
private struct RepeatingClosureStep: ClientMiddleware {
    let times: Int

    func intercept(
        _ request: APIRequest, context: PipelineContext, next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        var last = ownAnswer
        for _ in 0..<times { last = try await next(request) }
        return last
    }
}

private let ownAnswer = APIResponse(head: HTTPResponse(status: .ok), body: Data(#"{"own":true}"#.utf8), attempts: 0)

/// Records the identity of each `next` it is given.
private struct IdentityStep: ClientMiddleware {
    let seen = Locked<[ObjectIdentifier]>([])

    func intercept(_ request: APIRequest, context: PipelineContext, next: PipelineNext) async throws -> APIResponse {
        seen.withLock { $0.append(next.identity) }
        return try await next(request, context: context)
    }
}

/// A step that implements neither form: the two default implementations would call each other.
private struct NeitherFormStep: ClientMiddleware {}

@Suite("PipelineNext: the client's steps linked once, in either form")
struct PipelineNextTests {
    private static func client(_ transport: InMemoryTransport, steps: [any ClientMiddleware]) -> APIClient {
        APIClient(
            transport: transport,
            configuration: .init(clock: PipelineClock(sleep: { _ in }, now: { testNow }, random: { 0.5 })),
            steps: steps)
    }

    @Test("An app's steps in either form run in their places between Mend's: around authorization and retry")
    func appStepsInOrder() async throws {
        let trail = Trail()
        let standard: [any ClientMiddleware] = .standard(
            credentialProvider: RotatingProvider(), retryPolicy: RetryPolicy(maximumAttempts: 3),
            retryBudget: RetryBudget(configuration: .unlimited))
        // Outermost (no credential yet), after authorization (the credential), below retry (each try).
        let steps: [any ClientMiddleware] =
            [ClosureFormStep(name: "outer", trail: trail), standard[0], NextFormStep(name: "middle", trail: trail)]
            + standard[1...]
            + [ClosureFormStep(name: "inner", trail: trail), NextFormStep(name: "innermost", trail: trail)]
        let transport = InMemoryTransport(replies: [.status(503), .json(200, "{}")])
        let response = try await Self.client(transport, steps: steps).send(APIRequest(method: .get, url: apiURL))
        #expect(response.attempts == 2)
        let aTry = ["inner+auth>", "innermost+auth>", "<innermost", "<inner"]
        #expect(trail.recorded == ["outer>", "middle+auth>"] + aTry + aTry + ["<middle", "<outer"])
    }

    @Test("A step may send a request several times, or answer it itself", arguments: [false, true], [0, 1, 3])
    func repeatsOrAnswers(closureForm: Bool, times: Int) async throws {
        let transport = InMemoryTransport { _, _ in .json(200, #"{"sent":true}"#) }
        let step: any ClientMiddleware =
            closureForm ? RepeatingClosureStep(times: times) : RepeatingNextStep(times: times)
        let response = try await Self.client(transport, steps: [step]).send(APIRequest(method: .get, url: apiURL))
        #expect(transport.requestCount == times)
        #expect(response.attempts == times)
        #expect(String(decoding: response.body, as: UTF8.self) == (times == 0 ? #"{"own":true}"# : #"{"sent":true}"#))
    }

    @Test("A step in the PipelineNext form called through the closure form, by an app's step that runs steps itself")
    func nextFormThroughClosureForm() async throws {
        let trail = Trail()
        let inner: [any ClientMiddleware] = [
            NextFormStep(name: "a", trail: trail), RepeatingNextStep(times: 2),
            ClosureFormStep(name: "b", trail: trail),
        ]
        let transport = InMemoryTransport { _, _ in .json(200, "{}") }
        let response = try await Self.client(transport, steps: [ComposingMiddleware(inner: inner)])
            .send(APIRequest(method: .get, url: apiURL))
        #expect(response.attempts == 2)
        #expect(trail.recorded == ["a>", "b>", "<b", "b>", "<b", "<a"])
    }

    @Test("A client links its steps once: each step's next is the same on every request, and another client's differs")
    func linkedOnce() async throws {
        let transport = InMemoryTransport { _, _ in .json(200, "{}") }
        let first = IdentityStep()
        let second = IdentityStep()
        let client = Self.client(transport, steps: [first, second])
        for _ in 0..<3 { _ = try await client.send(APIRequest(method: .get, url: apiURL)) }
        let other = IdentityStep()
        _ = try await Self.client(transport, steps: [other, second]).send(APIRequest(method: .get, url: apiURL))
        #expect(Set(first.seen.current).count == 1)
        #expect(second.seen.current.count == 4)
        // The first step's next is the second step's link; the second's is the exchange, its own for each client.
        #expect(Set(second.seen.current.prefix(3)).count == 1)
        #expect(second.seen.current[3] != second.seen.current[0])
        #expect(first.seen.current[0] != second.seen.current[0])
        #expect(other.seen.current[0] != first.seen.current[0])
    }

    @Test("A step that implements neither form stops the process at its first request, rather than looping")
    func neitherForm() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let transport = InMemoryTransport { _, _ in .json(200, "{}") }
            _ = try await APIClient(transport: transport, steps: [NeitherFormStep()])
                .send(APIRequest(method: .get, url: URL(string: "https://api.example/")!))
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("implements neither form"))
    }
}
