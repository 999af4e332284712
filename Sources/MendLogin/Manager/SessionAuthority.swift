public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

/// Whoever issues the session: it turns a login's authorization code into a session, then refreshes, checks and
/// revokes it, and tells which of its answers mean that the session is over. `LoginManager` exchanges codes through
/// its credentials manager's authority; the manager refreshes through it.
///
/// Mend has three: ``BackendSessionClient`` (your mend-server: the default), ``OIDCSessionAuthority`` (an OpenID
/// Connect provider, for a public client that logs in directly) and MendFacebook's `FacebookSessionAuthority`.
///
/// The manager signs a user out only when ``endsSession(_:)`` says so of an answer — never because an access token
/// expired, never on a transient failure.
public protocol SessionAuthority: Sendable {
    /// Exchanges `code` (with the transaction's PKCE verifier and redirect URI) for a session. Never retried: a code
    /// is single-use, and a replayed code revokes what it issued.
    ///
    /// - Parameters:
    ///   - code: The code from the redirect.
    ///   - transaction: The login attempt (verifier, redirect URI, nonce).
    ///   - granted: The scopes the redirect reported granted, if it did.
    ///   - denied: The scopes the redirect reported denied, if it did.
    func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    ) async throws -> Session
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

extension BackendSessionClient: DPoPSessionAuthority {
    /// `GET /v1/session` with the access token: throws the backend's error when the access token is expired
    /// (`session/1`) or the session ended (`session/10`–`19`).
    public func checkValidity(of session: Session) async throws {
        let request = APIRequest(
            method: .get, url: baseURL.appendingPathComponent("v1/session"), headers: identifyingHeaders,
            options: RequestOptions(
                credentialRejection: .keep, credentialOverride: try dpopProofs.credential(for: session),
                timeout: requestTimeout))
        _ = try await client.send(request)
    }

    /// Revokes the session at the backend with its refresh token (RFC 7009, `revoke(token:)`), which works
    /// however old the access token is.
    public func revoke(_ session: Session) async throws {
        try await revoke(
            token: session.refreshToken ?? session.accessToken.tokenString,
            dpop: try? dpopProofs.binding(for: session.proofKey))
    }

    /// Only `mend-server`'s session-ended codes (`session/10`–`19`) end a backend session: an expired or invalid
    /// access token (`session/1`–`3`) is refreshed, and nothing else — a 5xx, a timeout, an unknown 401 — signs out.
    public func endsSession(_ error: MendError) -> Bool {
        MendError.Code.Session.endsSession(error.code)
    }
}
