import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MendCore
import MendHTTP
import MendLogin
import MendTelemetry
import NIOCore
import OTelSemanticConventions
import Tracing

/// The outermost middleware: a request id on every response (`X-Request-Id`), every failure in the Mend error shape
/// (never a bare 500), a metric and one log line per request (method, route, status, duration, request id: never a
/// body, a token or a code).
struct OperationsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics
    let redactor: Redactor
    /// The endpoints the server serves: the admin API's and the passkeys' paths, when they are off, are unknown for
    /// every method (404, never a 405 that lists what they would answer).
    var endpoints: [RouteTable.Endpoint] = RouteTable.all.filter { !$0.admin && !$0.passkeys }
    /// The `DPoP-Nonce` every answer to a proved request carries when the server requires nonces (RFC 9449 §8.2): a
    /// client keeps the latest and is never challenged while it lasts; `nil` when nonces are not required.
    var dpopNonce: (@Sendable () -> String?)? = nil

    static let requestIDField = HTTPField.Name.requestID

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        let incomingID = request.headers[Self.requestIDField]
        guard ServerTracing.isTracing else {
            context.requestID = RequestIdentifier.accept(incomingID)
            return try await handle(request, context: context, started: started, span: nil, next: next)
        }
        // The request continues the caller's trace (its `traceparent`), or starts one; its trace id is the request
        // id unless the caller sent its own, and is in every log line of the request.
        let tracer = InstrumentationSystem.tracer
        var parent = ServiceContext.current ?? .topLevel
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let span = tracer.startSpan(request.method.rawValue, context: parent, ofKind: .server)
        let traceID = ServerTracing.traceID(of: span.context)
        context.requestID = RequestIdentifier.accept(incomingID ?? traceID)
        if let traceID { context.logger[metadataKey: "trace_id"] = .string(traceID) }
        defer { span.end() }
        return try await ServiceContext.withValue(span.context) {
            try await handle(request, context: context, started: started, span: span, next: next)
        }
    }

    private func handle(
        _ request: Request, context: Context, started: ContinuousClock.Instant, span: (any Span)?,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        var response: Response
        var failed: ServerFailure?
        do {
            response = try await next(request, context)
        } catch {
            // Redacted once (unless a provider call already did): the log line and the body show the same message.
            let failure = ErrorMapping.failure(for: error, request: request, endpoints: endpoints).redacted(
                with: redactor)
            log(failure, context: context)
            response = WireResponse.failure(failure, requestID: context.requestID)
            failed = failure
        }
        response.headers[Self.requestIDField] = context.requestID
        if let dpopNonce, response.headers[.dpopNonce] == nil, request.headers[.dpop] != nil, let nonce = dpopNonce() {
            response.headers[.dpopNonce] = nonce
        }
        let duration = ContinuousClock.now - started
        // A route template starts with "/": Hummingbird names a request no route matched "NotFound", which is no
        // template (the conventions set `http.route` only for a matched one, and name such a span `{method}`).
        let matched = context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil }
        let route = matched ?? "unmatched"
        if let span { Self.describe(span, request: request, route: matched, response, failed) }
        metrics.request(
            method: request.method.rawValue, route: matched, status: response.status.code, duration: duration)
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "route": .string(route),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .string(Self.milliseconds(duration)),
            ])
        return response
    }

    /// `duration` in milliseconds with two decimals (`12.34`), without Foundation's formatter.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        // Hundredths of a millisecond, rounded half up.
        let hundredths = max(0, seconds * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// The server span's name and attributes, per the conventions: `POST /v1/session/refresh` (the route, never the
    /// path: it may hold ids), the status, and `error.type` (the Mend code) on a failure; only a 5xx is an error
    /// on a server span.
    static func describe(
        _ span: any Span, request: Request, route: String?, _ response: Response, _ failure: ServerFailure?
    ) {
        typealias Key = TelemetryObserver.Key
        let method = request.method.rawValue
        if let route {
            span.operationName = "\(method) \(route)"
            span.attributes[OTelAttribute.http.route] = route
        }
        span.attributes[OTelAttribute.http.request.method] = method
        span.attributes[OTelAttribute.url.scheme] = "http"
        span.attributes[OTelAttribute.http.response.statusCode] = response.status.code
        if let failure {
            let error = failure.error
            span.attributes[OTelAttribute.error.type] = error.errorType
            span.attributes[Key.errorCategory] = error.category.rawValue
        } else if response.status.code >= 500 {
            span.attributes[OTelAttribute.error.type] = String(response.status.code)
        }
        if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }

    private func log(_ failure: ServerFailure, context: Context) {
        let metadata: Logger.Metadata = [
            "error": .string(failure.error.shortDescription),
            "message": .string(failure.error.developerMessage),
        ]
        if failure.status.code >= 500 && failure.error.domain == .rest {
            context.logger.error("request failed", metadata: metadata)
        } else {
            context.logger.notice("request refused", metadata: metadata)
        }
    }
}

/// Turns anything a route throws into a ``ServerFailure``.
enum ErrorMapping {
    /// `endpoints`: the endpoints served (the others' paths answer 404 for every method).
    static func failure(for error: any Error, request: Request, endpoints: [RouteTable.Endpoint]) -> ServerFailure {
        switch error {
        case let failure as ServerFailure:
            return failure
        case let error as MendError:
            return .upstream(error, operation: "call")
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                let allowed = RouteTable.methods(forPath: request.uri.path, in: endpoints)
                guard allowed.isEmpty else {
                    // A known path with an undeclared method (RFC 9110 §15.5.6): 405 naming what is allowed.
                    let list = allowed.map(\.rawValue).joined(separator: ", ")
                    return ServerFailure(
                        MendError(
                            code: .HTTP.methodNotAllowed,
                            developerMessage: "\(request.uri.path) answers \(list), not \(request.method.rawValue).",
                            catalog: .server), headers: [.allow: list])
                }
                return .notFound("No endpoint answers \(request.method.rawValue) \(request.uri.path).")
            case .contentTooLarge:
                return ServerFailure(
                    MendError(
                        code: .HTTP.contentTooLarge, developerMessage: "The request body is too large.",
                        catalog: .server))
            case let status where status.code < 500:
                return .badRequest(error.body ?? status.reasonPhrase)
            default:
                return .internalFailure("The server failed: \(error.status.code).")
            }
        case is NIOTooManyBytesError:
            return ServerFailure(
                MendError(
                    code: .HTTP.contentTooLarge, developerMessage: "The request body is too large.", catalog: .server))
        case is CancellationError:
            return .internalFailure("The request was cancelled.")
        default:
            return .internalFailure("The server failed: \(String(describing: type(of: error))).")
        }
    }
}
