import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin

/// An error the server answers with: a `MendError` (rendered as its wire body, with the request id as
/// the reference id), where it came from, and extra headers (`Retry-After`). Its HTTP status is decided in one place,
/// ``status(for:origin:)``, from the error and its origin.
struct ServerFailure: Error, Sendable {
    /// Who decided the failure: the server refusing a request, or a provider whose answer the server carries.
    enum Origin: Sendable, Hashable {
        case server
        case provider
    }

    var error: MendError
    var origin: Origin
    var headers: HTTPFields
    /// Members the answer's body carries beside `error` (a passkey refusal's `passkey`: what the client tells the
    /// platform).
    var extraMembers: [String: JSONValue] = [:]
    /// Whether the messages went through the server's redactor (``redacted(with:)``), which happens once per
    /// failure: where a provider's answer becomes a failure, or where the failure becomes a response.
    private(set) var isRedacted = false

    init(_ error: MendError, origin: Origin = .server, headers: HTTPFields = [:]) {
        self.error = error
        self.origin = origin
        self.headers = headers
    }

    /// The HTTP status the failure is answered with.
    var status: HTTPResponse.Status { Self.status(for: error, origin: origin) }

    /// The failure with its messages redacted by `redactor` (the server's: the standard shapes and the app
    /// secret); a failure already redacted is returned as it is.
    func redacted(with redactor: Redactor) -> ServerFailure {
        guard !isRedacted else { return self }
        var failure = self
        failure.error.developerMessage = redactor.redact(text: error.developerMessage)
        failure.error.additionalMessages = error.additionalMessages.map { redactor.redact(text: $0) }
        failure.isRedacted = true
        return failure
    }

    /// rest/400: the request is malformed or names something the server does not accept.
    static func badRequest(_ message: String) -> ServerFailure {
        ServerFailure(MendError(code: .REST.badRequest, developerMessage: message, catalog: .server))
    }

    /// 401 with a session code (session/1–3: refresh or send a token; session/10–19: the session is over) and
    /// `WWW-Authenticate: Bearer error="invalid_token"` — or a bare `Bearer` challenge when no token came (RFC 6750
    /// §3.1: a request without authentication gets no error code).
    static func session(_ code: MendError.Code, _ message: String) -> ServerFailure {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] =
            code == .Session.accessTokenMissing ? "Bearer" : #"Bearer error="invalid_token""#
        return ServerFailure(MendError(code: code, developerMessage: message, catalog: .server), headers: headers)
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
        ServerFailure(MendError(code: .REST.notFound, developerMessage: message, catalog: .server))
    }

    /// http/429 with `Retry-After` (`now`: the server's clock).
    static func rateLimited(retryAfter seconds: Int, scope: String, now: Date) -> ServerFailure {
        var error = MendError(
            code: .HTTP.tooManyRequests, developerMessage: "Too many requests (\(scope)); retry after \(seconds) s.",
            catalog: .server)
        error.notBefore = now.addingTimeInterval(TimeInterval(seconds))
        var headers = HTTPFields()
        headers[.retryAfter] = String(seconds)
        return ServerFailure(error, headers: headers)
    }

    /// rest/500: something failed inside the server (the database); transient by the catalog.
    static func internalFailure(_ message: String) -> ServerFailure {
        ServerFailure(MendError(code: .REST.internalServerError, developerMessage: message, catalog: .server))
    }

    /// http/503: the server is draining before it stops (readiness, after SIGTERM): a load balancer sends its requests
    /// to another instance.
    static var draining: ServerFailure {
        ServerFailure(
            MendError(
                code: .HTTP.serviceUnavailable,
                developerMessage:
                    "The server is shutting down: it still answers for a moment, but takes no new traffic; use another "
                    + "instance.",
                catalog: .server))
    }

    /// rest/512: the database is unavailable (readiness).
    static func storageUnavailable(_ message: String) -> ServerFailure {
        ServerFailure(MendError(code: .REST.dataAccessError, developerMessage: message, catalog: .server))
    }

    /// A provider failure, keeping its domain, code and classification.
    static func upstream(_ error: MendError, operation: String) -> ServerFailure {
        var error = error
        error.developerMessage = "The provider failed (\(operation)): \(error.developerMessage)"
        var headers = HTTPFields()
        if let notBefore = error.recovery.notBefore {
            headers[.retryAfter] = String(max(1, Int(notBefore.timeIntervalSinceNow.rounded(.up))))
        }
        return ServerFailure(error, origin: .provider, headers: headers)
    }
}

extension ServerFailure {
    /// The one place that decides a failure's HTTP status (the route table's documented statuses are checked
    /// against it by a test).
    ///
    /// The server's own refusals by their code: a session or login code, or a `signed_request` refused, is 401;
    /// `rest/404` 404, `rest/409` 409, a passkey refusal 400 (`passkey/4`, no such passkey, 404; `passkey/8`, a
    /// recent sign-in needed, 403; `passkey/9` and `passkey/10` 409), `http/405`, `http/413` and `http/429` their own; `rest/500` 500 and
    /// `rest/512` (the database) 503; anything else the request's fault, 400. A provider's failure carries the
    /// provider's domain and code in the body, so the client classifies it as it would the provider's own answer; the
    /// status only has to agree with it: see ``providerStatus(for:)``.
    static func status(for error: MendError, origin: Origin) -> HTTPResponse.Status {
        if origin == .provider { return providerStatus(for: error) }
        switch error.code {
        case _ where error.domain == .session || error.domain == .login, .REST.accessDenied: return .unauthorized
        case .REST.notFound: return .notFound
        case .REST.updateConflict: return .conflict
        case .HTTP.methodNotAllowed: return .methodNotAllowed
        case .HTTP.contentTooLarge: return .contentTooLarge
        case .HTTP.tooManyRequests: return .tooManyRequests
        case .Passkey.unknownCredential: return .notFound
        case .Passkey.recentSignInRequired: return .forbidden
        case .Passkey.lastSignInMethod, .Passkey.alreadyRegistered: return .conflict
        case .REST.internalServerError: return .internalServerError
        case .REST.dataAccessError, .HTTP.serviceUnavailable: return .serviceUnavailable
        default: return .badRequest
        }
    }

    /// A provider failure's status: a gateway's for the transport and the provider's 5xx, 400 for a grant the
    /// provider refused, then by category (transient 503, recoverable 401 or 403, a configuration error 502).
    static func providerStatus(for error: MendError) -> HTTPResponse.Status {
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
