public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

/// What the credentials manager needs from whoever issued the session: refreshing, checking and revoking it, and
/// telling which of its answers mean that the session is over.
///
/// The manager signs a user out only when ``endsSession(_:)`` says so of an answer — never because an access token
/// expired, never on a transient failure.
public protocol SessionAuthority: Sendable {
    /// A fresh session from `session` (a rotated refresh token). Safe to call again with the same session after a
    /// lost answer where the issuer makes refresh idempotent (`mend-server` does).
    func refresh(_ session: Session) async throws -> Session
    /// Throws the error that makes `session` invalid (an expired access token, a revoked session); returns when it
    /// is valid.
    func checkValidity(of session: Session) async throws
    /// Ends `session` where it was issued — with whatever credential still works (an expired access token must not
    /// stop a logout).
    func revoke(_ session: Session) async throws
    /// Whether `error`, answered by this issuer, means that the session is over and only a new login helps.
    func endsSession(_ error: MendError) -> Bool
}

extension BackendSessionClient: SessionAuthority {
    /// `GET /v1/session` with the access token: throws the backend's error when the access token is expired
    /// (`session/1`) or the session ended (`session/10`–`19`).
    public func checkValidity(of session: Session) async throws {
        let request = APIRequest(
            method: .get, url: baseURL.appendingPathComponent("v1/session"),
            options: RequestOptions(
                credentialRejection: .keep, credentialOverride: Credential(token: session.accessToken.tokenString),
                timeout: requestTimeout))
        _ = try await client.send(request)
    }

    /// Revokes the session at the backend with its refresh token (RFC 7009, ``revoke(token:)``), which works
    /// however old the access token is.
    public func revoke(_ session: Session) async throws {
        try await revoke(token: session.refreshToken ?? session.accessToken.tokenString)
    }

    /// Only `mend-server`'s session-ended codes (`session/10`–`19`) end a backend session: an expired or invalid
    /// access token (`session/1`–`3`) is refreshed, and nothing else — a 5xx, a timeout, an unknown 401 — signs out.
    public func endsSession(_ error: MendError) -> Bool {
        MendError.Code.Session.endsSession(error.code)
    }
}
