public import Foundation
public import HTTPTypes
public import Logging
public import MendCore

/// Sends requests through Mend's pipeline and returns a response or a classified `MendError`.
///
/// Every failure comes back as a `MendError` (classified through the catalog by the configured ``ErrorDecoder``),
/// except cancellation, which throws `CancellationError` and is never retried or logged as a failure. A 5xx, an HTML
/// page, an empty, truncated or oversized body is never a success.
///
/// ```swift
/// let client = APIClient(transport: AsyncHTTPClientTransport(), steps: .standard(credentialProvider: credentials))
/// let response = try await client.send(APIRequest(method: .get, url: URL(string: "https://api.example/me")!))
/// let me = try response.decode(Profile.self)
/// ```
///
/// One client's steps own one retry budget and one rate-limit gate: share a client across the requests to one API.
public final class APIClient: Sendable {
    /// The transport that carries requests.
    package let transport: any HTTPTransport
    /// How responses are read and errors classified.
    package let configuration: Configuration
    /// The steps every request goes through, outermost first.
    package let steps: [any ClientMiddleware]
    /// The logger (libraries log at debug level only).
    package let logger: Logger
    /// `steps` linked once, outermost first, then the exchange: where every request starts.
    private let pipeline: PipelineNext
    /// Whether an observer hears the requests (read without copying the observer on every request).
    private let isObserved: Bool

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: The transport (AsyncHTTPClient, URLSession, or an in-memory one in tests).
    ///   - configuration: How responses are read and errors classified.
    ///   - steps: The pipeline, outermost first: `.standard(credentialProvider:…)` (Mend's steps) by default; your own
    ///     ``ClientMiddleware`` go before or after them.
    ///   - logger: Where the steps' logging goes. Nothing is logged by default.
    public init(
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        steps: [any ClientMiddleware] = .standard(),
        logger: Logger = Logger(label: "mend.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.transport = transport
        self.configuration = configuration
        self.steps = steps
        self.logger = logger
        self.pipeline = steps.reversed().reduce(PipelineNext(ClientExchange(transport, configuration))) { next, step in
            PipelineNext(step, then: next)
        }
        self.isObserved = configuration.observer != nil
    }

    /// Sends `request` and returns its successful response.
    ///
    /// - Throws: A classified `MendError` (with the number of attempts), or `CancellationError` when the
    ///   task is cancelled.
    public func send(_ request: APIRequest) async throws -> APIResponse {
        try Task.checkCancellation()
        let clock = configuration.clock
        let deadline = request.options.timeout.map { clock.now().addingTimeInterval($0.seconds) }
        guard isObserved, let observer = configuration.observer else {
            return try await run(request, context: PipelineContext(logger: logger, clock: clock, deadline: deadline))
        }
        let observed = ObservedRequest(
            head: request.head, urlTemplate: request.options.urlTemplate, isThirdParty: configuration.isThirdParty,
            operation: request.options.operation)
        return try await observer.observe(observed) { observation in
            try await run(
                request,
                context: PipelineContext(logger: logger, clock: clock, deadline: deadline, observation: observation))
        }
    }

    /// Runs `request` through every step, and gives its final error its number of attempts.
    private nonisolated(nonsending) func run(
        _ request: APIRequest, context: PipelineContext
    ) async throws -> APIResponse {
        do {
            return try await pipeline(request, context: context)
        } catch let error as MendError {
            throw error.attempts == context.attempts ? error : error.withAttempts(context.attempts)
        } catch {
            throw Self.normalize(error, attempts: context.attempts, catalog: configuration.catalog)
        }
    }

    /// Any error that is neither a `MendError` nor cancellation becomes a classified transport failure.
    static func normalize(_ error: any Error, attempts: Int, catalog: ErrorCatalog) -> any Error {
        if error is CancellationError || error is MendError { return error }
        var wrapped = MendError(
            code: .Transport.unclassified,
            developerMessage: "Unexpected failure: \(String(describing: type(of: error)))", catalog: catalog)
        wrapped.underlying = UnexpectedFailure(description: String(describing: error))
        wrapped.attempts = attempts
        return wrapped
    }

    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}

/// A client's innermost step: one try on the transport, then the error decoder. The last link of its pipeline.
final class ClientExchange: Sendable {
    /// The transport that carries requests.
    let transport: any HTTPTransport
    /// How responses are read and errors classified.
    let configuration: APIClient.Configuration
    /// Whether the configured decoder is ``HTTPStatusErrorDecoder``, whose verdict on a successful answer is the body
    /// check alone: such an answer is accepted without building its decoding context.
    private let decodesStatusAlone: Bool

    init(_ transport: any HTTPTransport, _ configuration: APIClient.Configuration) {
        self.transport = transport
        self.configuration = configuration
        self.decodesStatusAlone = configuration.errorDecoder is HTTPStatusErrorDecoder
    }

    /// One try of `request`.
    nonisolated(nonsending) func send(
        _ request: APIRequest, context: PipelineContext
    ) async throws -> APIResponse {
        try Task.checkCancellation()
        // The one deadline check of a try: a request whose deadline passed is never sent; the transport gets the time
        // left (or the attempt's own bound, when shorter) and checks nothing itself.
        var timeout = context.remaining
        if let remaining = timeout, remaining <= .zero {
            throw MendError(
                code: .Transport.timedOut, developerMessage: "The request's deadline passed before it was sent.",
                catalog: configuration.catalog)
        }
        if let perAttempt = request.options.attemptTimeout { timeout = min(timeout ?? perAttempt, perAttempt) }
        var head = request.head
        if let key = request.options.idempotencyKey, head.headerFields[APIClient.idempotencyKey] == nil {
            head.headerFields[APIClient.idempotencyKey] = key
        }
        if let binding = request.dpop {
            // A proof per attempt: a retry or a replay never repeats a jti, and carries the origin's latest nonce.
            head.headerFields[.dpop] = try await binding.proof(for: head, now: context.clock.now())
        }
        let number = context.recordAttempt()
        guard let observation = context.observation else {
            return try await attempt(request, head: head, timeout: timeout, context: context)
        }
        let observed = observation.attemptStarting(number: number, head: &head)
        do {
            let response = try await attempt(request, head: head, timeout: timeout, context: context)
            observed.ended(.success(response.head))
            return response
        } catch let error as MendError {
            observed.ended(.failure(error))
            throw error
        } catch {
            observed.ended(.cancelled)
            throw error
        }
    }

    /// One try: `head` to the transport, its body collected, the error decoder asked.
    private nonisolated(nonsending) func attempt(
        _ request: APIRequest, head: HTTPRequest, timeout: Duration?, context: PipelineContext
    ) async throws -> APIResponse {
        let limit = configuration.maximumResponseBodySize
        let response: HTTPResponse
        let collected: HTTPBody.Collected
        do {
            let (received, body) = try await transport.send(
                head, body: request.body.map(HTTPBody.init), timeout: timeout)
            response = received
            // Every answer of a proved request may carry the server's next nonce, an error's included.
            request.dpop?.record(received.headerFields[.dpopNonce], of: head)
            collected = try await body.collect(upTo: limit)
        } catch {
            // The transport's failures (a contract breach that is no MendError included) become classified here, so
            // that the steps above (retry) see them classified.
            throw APIClient.normalize(error, attempts: context.attempts, catalog: configuration.catalog)
        }
        if decodesStatusAlone, request.options.errorDecoder == nil, case .complete(let data) = collected,
            HTTPStatusErrorDecoder.accepts(response, body: data, expectsJSON: request.options.expectsJSON, limit: limit)
        {
            // What `HTTPStatusErrorDecoder` accepts, without the context it would be given (the clock read, the
            // catalog and redactor copied): most answers are this one.
            return APIResponse(head: response, body: data, attempts: context.attempts)
        }
        var decodingContext = ErrorDecodingContext(
            catalog: configuration.catalog,
            expectsJSON: request.options.expectsJSON,
            maximumBodySize: limit,
            requestIDHeader: configuration.requestIDHeader,
            now: context.clock.now())
        decodingContext.requestSecret = request.appliedCredential?.token
        switch collected {
        case .tooLarge(let prefix, let limit):
            decodingContext.maximumBodySize = limit
            var error = MendError(
                code: .Transport.responseTooLarge,
                developerMessage: "The response body exceeded the limit of \(limit) bytes; reading stopped there.",
                catalog: configuration.catalog)
            error.attach(response: response, body: prefix, json: nil, context: decodingContext)
            error.response?.isBodyTruncated = true
            throw error
        case .complete(let data):
            let decoder = request.options.errorDecoder ?? configuration.errorDecoder
            if let override = request.options.errorDecoder {
                // A request's own decoder brings its spaces, as the configured one did when the client was made.
                decodingContext.catalog = decodingContext.catalog.addingMissing(override.errorSpaces)
            }
            if let error = decoder.decodeError(response: response, body: data, context: decodingContext) {
                throw error
            }
            return APIResponse(head: response, body: data, attempts: context.attempts)
        }
    }
}

/// An error of a type Mend does not know, kept (as text) as the underlying error of a transport failure.
package struct UnexpectedFailure: Error, Sendable, CustomStringConvertible {
    /// The original error's description, redacted.
    package var description: String

    /// Creates a failure from a description, which is redacted.
    package init(description: String) {
        self.description = Redactor.standard.redact(text: description)
    }
}
