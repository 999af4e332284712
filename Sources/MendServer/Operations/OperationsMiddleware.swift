import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MendCore
import MendHTTP
import MendLogin
import NIOCore

/// The outermost middleware: a request id on every response (`X-Request-Id`), every failure in the Mend error shape
/// (never a bare 500), a metric and one log line per request (method, route, status, duration, request id: never a
/// body, a token or a code).
struct OperationsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics
    let redactor: Redactor

    static let requestIDField = HTTPField.Name.requestID

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        context.requestID = RequestIdentifier.accept(request.headers[Self.requestIDField])
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Redacted once (unless a provider call already did): the log line and the body show the same message.
            let failure = ErrorMapping.failure(for: error, request: request).redacted(with: redactor)
            log(failure, context: context)
            response = WireResponse.failure(failure, requestID: context.requestID)
        }
        response.headers[Self.requestIDField] = context.requestID
        let duration = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        metrics.request(
            method: request.method.rawValue, route: route, status: response.status.code, duration: duration)
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "route": .string(route),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .string(String(format: "%.2f", duration.seconds * 1000)),
            ])
        return response
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
    static func failure(for error: any Error, request: Request) -> ServerFailure {
        switch error {
        case let failure as ServerFailure:
            return failure
        case let error as MendError:
            return .upstream(error, operation: "call")
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                let allowed = RouteTable.methods(forPath: request.uri.path)
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
