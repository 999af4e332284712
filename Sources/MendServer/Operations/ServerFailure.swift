import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin

/// An error the server answers with: a `MendError` (rendered as its wire body, with the request id as
/// the reference id), the HTTP status, and extra headers (`Retry-After`).
struct ServerFailure: Error, Sendable {
    var error: MendError
    var status: HTTPResponse.Status
    var headers: HTTPFields

    init(_ error: MendError, status: HTTPResponse.Status, headers: HTTPFields = [:]) {
        self.error = error
        self.status = status
        self.headers = headers
    }

    /// rest/400: the request is malformed or names something the server does not accept.
    static func badRequest(_ message: String) -> ServerFailure {
        ServerFailure(
            MendError(code: .REST.badRequest, developerMessage: message, catalog: .server), status: .badRequest)
    }

    /// 401 with a session code (session/1–3: refresh or send a token; session/10–19: the session is over) and
    /// `WWW-Authenticate: Bearer error="invalid_token"` — or a bare `Bearer` challenge when no token came (RFC 6750
    /// §3.1: a request without authentication gets no error code).
    static func session(_ code: MendError.Code, _ message: String) -> ServerFailure {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] =
            code == .Session.accessTokenMissing ? "Bearer" : #"Bearer error="invalid_token""#
        return ServerFailure(
            MendError(code: code, developerMessage: message, catalog: .server), status: .unauthorized, headers: headers)
    }

    /// 401 session/10–17: the session ended for `reason` (`nil`: gone, or a reason stored before reasons were
    /// named: session/10); `detail` goes into the developer message only.
    static func sessionEnded(_ reason: SessionEndReason?, detail: String? = nil) -> ServerFailure {
        var message = "The session ended"
        if let reason { message += ": \(reason.summary)" }
        if let detail, !detail.isEmpty { message += " (\(detail))" }
        return session(reason?.code ?? .Session.sessionEnded, message + ". Log in again.")
    }

    /// 401 session/10–17 for a revoked session, from its stored reason and detail.
    static func sessionEnded(_ session: SessionRecord) -> ServerFailure {
        sessionEnded(storedReason: session.revokedReason, detail: session.revokedDetail)
    }

    /// 401 session/10–17 from a stored `revoked_reason` and `revoked_detail`.
    static func sessionEnded(storedReason: String?, detail: String?) -> ServerFailure {
        let reason = SessionEndReason(stored: storedReason)
        // A reason stored before reasons were named is free text: keep it as the detail.
        return sessionEnded(reason, detail: reason == nil ? storedReason : detail)
    }

    /// rest/404.
    static func notFound(_ message: String) -> ServerFailure {
        ServerFailure(MendError(code: .REST.notFound, developerMessage: message, catalog: .server), status: .notFound)
    }

    /// http/429 with `Retry-After` (`now`: the server's clock).
    static func rateLimited(retryAfter seconds: Int, scope: String, now: Date) -> ServerFailure {
        var error = MendError(
            code: .HTTP.tooManyRequests, developerMessage: "Too many requests (\(scope)); retry after \(seconds) s.",
            catalog: .server)
        error.notBefore = now.addingTimeInterval(TimeInterval(seconds))
        var headers = HTTPFields()
        headers[.retryAfter] = String(seconds)
        return ServerFailure(error, status: .tooManyRequests, headers: headers)
    }

    /// rest/500: something failed inside the server (the database); transient by the catalog.
    static func internalFailure(_ message: String) -> ServerFailure {
        ServerFailure(
            MendError(code: .REST.internalServerError, developerMessage: message, catalog: .server),
            status: .internalServerError)
    }

    /// rest/512: the database is unavailable (readiness).
    static func storageUnavailable(_ message: String) -> ServerFailure {
        ServerFailure(
            MendError(code: .REST.dataAccessError, developerMessage: message, catalog: .server),
            status: .serviceUnavailable)
    }

    /// A provider failure, keeping its domain, code and classification (see ``UpstreamStatus``).
    static func upstream(_ error: MendError, operation: String) -> ServerFailure {
        var error = error
        error.developerMessage = "The provider failed (\(operation)): \(error.developerMessage)"
        var headers = HTTPFields()
        if let notBefore = error.recovery.notBefore {
            headers[.retryAfter] = String(max(1, Int(notBefore.timeIntervalSinceNow.rounded(.up))))
        }
        return ServerFailure(error, status: UpstreamStatus.status(for: error), headers: headers)
    }
}

/// The HTTP status that carries a provider failure to the app. The body keeps the provider's domain and code, so
/// the client classifies it as it would the provider's own answer; the status only has to agree with it.
enum UpstreamStatus {
    static func status(for error: MendError) -> HTTPResponse.Status {
        switch error.domain {
        case .transport:
            return error.code == .Transport.timedOut ? .gatewayTimeout : .badGateway
        case .http where error.code.rawValue >= 500:
            return .badGateway
        case .oauth where error.category == .recoverable:
            // A code or grant the provider refused (invalid_grant, …): a 400, as its token endpoint answered
            // (RFC 6749 §5.2); the body's oauth code tells the app to log in again.
            return .badRequest
        default:
            break
        }
        switch error.category {
        case .transient:
            return .serviceUnavailable
        case .recoverable:
            return error.recovery.action == .requestPermissions ? .forbidden : .unauthorized
        default:
            return error.recovery.action == .fixConfiguration ? .badGateway : .badRequest
        }
    }
}
