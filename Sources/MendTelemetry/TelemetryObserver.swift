import Foundation
import HTTPTypes
import MendCore
public import MendHTTP
public import Metrics
public import Tracing

/// Traces and measures every request of the clients it observes, to OpenTelemetry's HTTP client conventions.
///
/// A logical request (one `send`) is an internal span, named `GET` or `GET /v21.0/{id}/feed` when the client knows
/// the path's template; each attempt handed to the transport is a client span under it with the conventions'
/// attributes (`http.request.method`, `server.address`, `server.port`, `url.full` with secret query values
/// `REDACTED`, `http.request.resend_count`, `http.response.status_code`, and `error.type`: the Mend code, such as
/// `graph/190/463`). Waits (backoff, `Retry-After`, rate-limit holds) are events of the logical span; a credential
/// renewal is a span under it, so that the refresh's own requests nest there. Metrics: `http.client.request.duration`
/// and `http.client.active_requests` per the conventions, and Mend's own (``MetricName``).
///
/// Spans go to `InstrumentationSystem.tracer` at each request (or to a task's `withTracer`), metrics to
/// `MetricsSystem.factory`, unless given others. Trace context (`traceparent`) is injected into requests to the app's
/// own backend and never into a third party's (an identity provider, the Graph API) unless ``TraceContext/always``
/// says so: a trace id sent to a provider is data the person did not agree to share.
///
/// ```swift
/// InstrumentationSystem.bootstrap(otelTracer)
/// APIClient.bootstrapObserver(TelemetryObserver())
/// ```
///
/// Never in an attribute: tokens, codes, secrets, the request or response body, user ids, developer messages.
public struct TelemetryObserver: PipelineObserver {
    /// Which requests carry trace context.
    public enum TraceContext: Sendable, Hashable {
        /// Requests to the app's own backend; never a third party's (the default).
        case firstPartyOnly
        /// Every request, third parties' included.
        case always
        /// No request.
        case never
    }

    let tracer: (any Tracer)?
    let metrics: (any MetricsFactory)?
    let traceContext: TraceContext

    /// Creates an observer.
    ///
    /// - Parameters:
    ///   - tracer: Where spans go (`nil`: `InstrumentationSystem.tracer`, read at each request, so that a task's
    ///     `withTracer` applies).
    ///   - metricsFactory: Where metrics go (`nil`: `MetricsSystem.factory`).
    ///   - traceContext: Which requests carry trace context.
    public init(
        tracer: (any Tracer)? = nil, metricsFactory: (any MetricsFactory)? = nil,
        traceContext: TraceContext = .firstPartyOnly
    ) {
        self.tracer = tracer
        self.metrics = metricsFactory
        self.traceContext = traceContext
    }

    /// Runs one logical request in its span.
    ///
    /// - Parameters:
    ///   - request: The request as the caller made it.
    ///   - send: Runs the request, reporting its attempts, waits and renewals.
    public func observe(
        _ request: ObservedRequest, _ send: (any RequestObservation) async throws -> APIResponse
    ) async throws -> APIResponse {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let target = Target(request.head, template: request.urlTemplate)
        // A protocol's operation names the logical span (GraphQL's `query PostList`); the attempts stay HTTP's.
        let span = tracer.startSpan(
            request.operation?.name ?? target.spanName, context: ServiceContext.current ?? .topLevel,
            ofKind: .internal)
        // A span nobody records (no tracer, or one that sampled the trace out) is not worth its attributes; the
        // attributes of one that is are written at once (each write through `Span` copies them).
        if span.isRecording {
            span.updateAttributes { attributes in
                target.describe(&attributes)
                for (name, value) in request.operation?.attributes ?? [:] { attributes[name] = value }
            }
        }
        let observation = Observation(
            tracer: tracer, metrics: metrics ?? MetricsSystem.factory, span: span, target: target,
            injects: traceContext == .always || (traceContext == .firstPartyOnly && !request.isThirdParty))
        do {
            let response = try await ServiceContext.withValue(span.context) { try await send(observation) }
            if response.attempts > 1 { span.attributes[Key.attempts] = response.attempts }
            span.end()
            return response
        } catch let error as MendError {
            Self.record(error, on: span, attempts: error.attempts)
            Counter(
                label: MetricName.errors, dimensions: target.dimensions + error.dimensions,
                factory: observation.metrics
            ).increment()
            span.end()
            throw error
        } catch {
            span.attributes[Key.cancelled] = true
            span.end()
            throw error
        }
    }

    /// Runs one refresh of a stored session in a `mend.refresh` span (under the current span: the app's, or a
    /// rejected request's `mend.reauthenticate`), so that the refresh's own requests nest there, and counts it in
    /// ``MetricName/refreshes`` by `mend.outcome` and, when it failed, its `error.type` and category.
    ///
    /// - Parameter refresh: The refresh.
    public func observeRefresh<Result>(_ refresh: () async throws -> Result) async throws -> Result {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let span = tracer.startSpan("mend.refresh", context: ServiceContext.current ?? .topLevel, ofKind: .internal)
        return try await Self.run(
            in: span, counting: MetricName.refreshes, metrics: metrics ?? MetricsSystem.factory,
            dimensions: { $0?.dimensions ?? [] }, refresh)
    }

    /// Runs `body` with `span` as the current context, ends the span, and counts the run in `counter` by
    /// `mend.outcome` (success, failure, cancelled) and the dimensions `dimensions` gives for the failure (`nil`
    /// unless it failed).
    static func run<Result>(
        in span: any Span, counting counter: String, metrics: any MetricsFactory,
        dimensions: (_ failure: MendError?) -> [(String, String)],
        _ body: () async throws -> Result
    ) async throws -> Result {
        var outcome = "success"
        var failure: MendError?
        defer {
            Counter(
                label: counter, dimensions: [(Key.outcome, outcome)] + dimensions(failure), factory: metrics
            )
            .increment()
            span.end()
        }
        do {
            return try await ServiceContext.withValue(span.context) { try await body() }
        } catch let error as MendError {
            outcome = "failure"
            failure = error
            record(error, on: span)
            throw error
        } catch {
            outcome = "cancelled"
            span.attributes[Key.cancelled] = true
            throw error
        }
    }

    /// Marks `span` failed with `error`'s identity and classification (never its message).
    static func record(_ error: MendError, on span: any Span, attempts: Int? = nil) {
        span.updateAttributes { attributes in
            error.describe(&attributes)
            if let attempts { attributes[Key.attempts] = attempts }
        }
        span.setStatus(SpanStatus(code: .error, message: error.name))
    }
}

extension TelemetryObserver {
    /// The metrics an observer emits, with their conventions' names.
    public enum MetricName {
        /// `http.client.request.duration` (histogram, seconds): each attempt, by method, server, status and
        /// `error.type`.
        public static let requestDuration = "http.client.request.duration"
        /// `http.client.active_requests` (up-down counter): attempts in flight, by method and server.
        public static let activeRequests = "http.client.active_requests"
        /// `mend.client.retries` (counter): retries, by `mend.wait.reason` and the `error.type` retried.
        public static let retries = "mend.client.retries"
        /// `mend.client.wait.duration` (histogram, seconds): time waited before sending, by `mend.wait.reason`
        /// (backoff, retryAfter, rateLimitHold).
        public static let waitDuration = "mend.client.wait.duration"
        /// `mend.client.reauthentications` (counter): credential renewals after a rejection, by `mend.outcome`
        /// (success, failure) and the rejection's `error.type`.
        public static let reauthentications = "mend.client.reauthentications"
        /// `mend.client.errors` (counter): logical requests that failed, by `mend.error.category` and `error.type`.
        public static let errors = "mend.client.errors"
        /// `mend.client.refreshes` (counter): refreshes of a stored session at its issuer, by `mend.outcome`
        /// (success, failure, cancelled) and, for a failure, `mend.error.category` and `error.type` — `session/12`
        /// and the other session-ended codes are sign-outs.
        public static let refreshes = "mend.client.refreshes"
        /// `mend.client.stale_answers` (counter): stored answers that stood in for a transient failure
        /// (`LastKnownGood`), by the failure's `error.type`.
        public static let staleAnswers = "mend.client.stale_answers"
    }

    /// The attribute names, from OpenTelemetry's conventions, and Mend's own (`mend.*`); mend-server's spans use
    /// them too.
    package enum Key {
        package static let method = "http.request.method"
        package static let methodOriginal = "http.request.method_original"
        package static let serverAddress = "server.address"
        package static let serverPort = "server.port"
        package static let urlFull = "url.full"
        package static let urlScheme = "url.scheme"
        package static let urlTemplate = "url.template"
        package static let resendCount = "http.request.resend_count"
        package static let statusCode = "http.response.status_code"
        package static let errorType = "error.type"
        package static let errorCategory = "mend.error.category"
        package static let recovery = "mend.recovery"
        package static let attempts = "mend.attempts"
        package static let cancelled = "mend.cancelled"
        package static let waitReason = "mend.wait.reason"
        package static let waitDuration = "mend.wait.duration"
        package static let outcome = "mend.outcome"
        package static let route = "http.route"
        package static let dbSystem = "db.system.name"
        package static let dbOperation = "db.operation.name"
        package static let dbCollection = "db.collection.name"
    }
}

extension MendError {
    /// `error.type`: the Mend code, `graph/190/463` or `transport/2`; a documented, bounded list (the catalog).
    package var errorType: String { codePath }

    /// Writes `error.type`, `mend.error.category` and `mend.recovery`.
    func describe(_ attributes: inout SpanAttributes) {
        attributes[TelemetryObserver.Key.errorType] = errorType
        attributes[TelemetryObserver.Key.errorCategory] = category.rawValue
        attributes[TelemetryObserver.Key.recovery] = recovery.action.rawValue
    }

    /// The error's metric dimensions: category and `error.type`.
    var dimensions: [(String, String)] {
        [(TelemetryObserver.Key.errorCategory, category.rawValue), (TelemetryObserver.Key.errorType, errorType)]
    }
}

/// Where a request goes, as the conventions name it.
struct Target: Sendable {
    static let knownMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ]

    /// `http.request.method`: the method, or `_OTHER` for one the conventions do not know.
    var method: String
    /// `http.request.method_original`, when ``method`` is `_OTHER`.
    var originalMethod: String?
    var scheme: String
    var host: String
    var port: Int
    var spanName: String
    /// `url.template`, when the client knows it.
    var template: String?

    init(_ head: HTTPRequest, template: String?) {
        self.template = template
        let raw = head.method.rawValue
        method = Self.knownMethods.contains(raw) ? raw : "_OTHER"
        originalMethod = method == raw ? nil : raw
        scheme = head.scheme ?? "https"
        (host, port) = Self.split(authority: head.authority ?? "", scheme: scheme)
        let verb = method == "_OTHER" ? "HTTP" : method
        spanName = template.map { "\(verb) \($0)" } ?? verb
    }

    /// Writes the method, server and template.
    func describe(_ attributes: inout SpanAttributes) {
        typealias Key = TelemetryObserver.Key
        attributes[Key.method] = method
        if let originalMethod { attributes[Key.methodOriginal] = originalMethod }
        attributes[Key.serverAddress] = host
        attributes[Key.serverPort] = port
        if let template { attributes[Key.urlTemplate] = template }
    }

    /// The metric dimensions every attempt shares.
    var dimensions: [(String, String)] {
        [
            (TelemetryObserver.Key.method, method), (TelemetryObserver.Key.serverAddress, host),
            (TelemetryObserver.Key.serverPort, String(port)), (TelemetryObserver.Key.urlScheme, scheme),
        ]
    }

    /// `host` and `port` of `host:port`, `[::1]:port` or `host` (the scheme's default port).
    static func split(authority: String, scheme: String) -> (String, Int) {
        let defaultPort = scheme == "http" ? 80 : 443
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, defaultPort) }
        return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]) ?? defaultPort)
    }
}

/// The request's span and what its attempts, waits and renewals report.
final class Observation: RequestObservation {
    let tracer: any Tracer
    let metrics: any MetricsFactory
    let span: any Span
    let target: Target
    let injects: Bool

    init(tracer: any Tracer, metrics: any MetricsFactory, span: any Span, target: Target, injects: Bool) {
        self.tracer = tracer
        self.metrics = metrics
        self.span = span
        self.target = target
        self.injects = injects
    }

    func attemptStarting(number: Int, head: inout HTTPRequest) -> any AttemptObservation {
        typealias Key = TelemetryObserver.Key
        let attempt = tracer.startSpan(target.spanName, context: span.context, ofKind: .client)
        // A span nobody records (no tracer, or one that sampled the trace out) is not worth its attributes.
        if attempt.isRecording {
            let url = ObservedRequest.redactedURL(of: head)
            attempt.updateAttributes { attributes in
                target.describe(&attributes)
                attributes[Key.urlFull] = url
                // The conventions: set on the second and later attempts only, to the number of resends before it.
                if number > 1 { attributes[Key.resendCount] = number - 1 }
            }
        }
        if injects { tracer.inject(attempt.context, into: &head.headerFields, using: HTTPFieldsInjector()) }
        let active = Meter(
            label: TelemetryObserver.MetricName.activeRequests, dimensions: target.dimensions, factory: metrics)
        active.increment()
        return AttemptSpan(span: attempt, observation: self, active: active, started: .now)
    }

    func waiting(_ wait: PipelineWait) {
        typealias Key = TelemetryObserver.Key
        let seconds = Double(wait.duration.components.seconds) + Double(wait.duration.components.attoseconds) / 1e18
        span.addEvent(
            SpanEvent(
                name: "mend.wait",
                attributes: [
                    Key.waitReason: .string(wait.reason.rawValue), Key.waitDuration: .double(seconds),
                    Key.errorType: .string(wait.error.errorType),
                ]))
        let reason = [(Key.waitReason, wait.reason.rawValue)]
        Recorder(
            label: TelemetryObserver.MetricName.waitDuration, dimensions: reason + [("unit", "s")], aggregate: true,
            factory: metrics
        ).record(seconds)
        if wait.reason != .rateLimitHold {
            Counter(
                label: TelemetryObserver.MetricName.retries,
                dimensions: reason + [(Key.errorType, wait.error.errorType)], factory: metrics
            ).increment()
        }
    }

    func servedStale(_ staleness: Staleness) {
        span.addEvent(
            SpanEvent(
                name: "mend.stale_answer",
                attributes: [
                    TelemetryObserver.Key.errorType: .string(staleness.error.errorType),
                    "mend.stale.age": .double(staleness.age),
                ]))
        Counter(
            label: TelemetryObserver.MetricName.staleAnswers,
            dimensions: [(TelemetryObserver.Key.errorType, staleness.error.errorType)], factory: metrics
        ).increment()
    }

    func renewingCredential(
        after error: MendError, _ renew: () async throws -> Credential
    ) async throws -> Credential {
        let renewal = tracer.startSpan("mend.reauthenticate", context: span.context, ofKind: .internal)
        let rejection = error.errorType
        renewal.attributes[TelemetryObserver.Key.errorType] = rejection
        return try await TelemetryObserver.run(
            in: renewal, counting: TelemetryObserver.MetricName.reauthentications, metrics: metrics,
            dimensions: { _ in [(TelemetryObserver.Key.errorType, rejection)] }, renew)
    }
}

/// One attempt's span, ended with its outcome.
final class AttemptSpan: AttemptObservation {
    let span: any Span
    let observation: Observation
    let active: Meter
    let started: ContinuousClock.Instant

    init(span: any Span, observation: Observation, active: Meter, started: ContinuousClock.Instant) {
        self.span = span
        self.observation = observation
        self.active = active
        self.started = started
    }

    func ended(_ outcome: AttemptOutcome) {
        typealias Key = TelemetryObserver.Key
        let elapsed = ContinuousClock.now - started
        active.decrement()
        var dimensions = observation.target.dimensions
        let recording = span.isRecording
        switch outcome {
        case .success(let response):
            let status = response.status.code
            dimensions.append((Key.statusCode, String(status)))
            if status >= 400 {
                // A status the client took as success is still an error on a client span (the conventions).
                dimensions.append((Key.errorType, String(status)))
                if recording {
                    span.updateAttributes { attributes in
                        attributes[Key.statusCode] = status
                        attributes[Key.errorType] = String(status)
                    }
                    span.setStatus(SpanStatus(code: .error))
                }
            } else if recording {
                span.attributes[Key.statusCode] = status
            }
        case .failure(let error):
            let status = error.httpStatus
            if let status { dimensions.append((Key.statusCode, String(status))) }
            dimensions.append((Key.errorType, error.errorType))
            if recording {
                span.updateAttributes { attributes in
                    if let status { attributes[Key.statusCode] = status }
                    error.describe(&attributes)
                }
                span.setStatus(SpanStatus(code: .error, message: error.name))
            }
        case .cancelled:
            if recording { span.attributes[Key.cancelled] = true }
        }
        if let template = observation.target.template { dimensions.append((Key.urlTemplate, template)) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        Recorder(
            label: TelemetryObserver.MetricName.requestDuration, dimensions: dimensions + [("unit", "s")],
            aggregate: true, factory: observation.metrics
        ).record(seconds)
        span.end()
    }
}

/// Writes trace context into request header fields.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}
