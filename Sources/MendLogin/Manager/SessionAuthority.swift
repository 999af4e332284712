public import Foundation
import HTTPTypes
public import MendCore
import MendGraphAPI
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

/// The provider itself, for sessions that a public client got directly: a Facebook-compatible provider checks a
/// token with a Graph call and revokes it with `DELETE /me/permissions`. Provider tokens cannot be refreshed by a
/// client: an expired one needs a new login.
public struct ProviderSessionAuthority: SessionAuthority {
    let graph: GraphClient

    /// Creates an authority for a Facebook-compatible provider.
    public init(provider: LoginProvider, transport: any HTTPTransport) {
        let configuration = GraphClient.Configuration(
            graphURL: provider.graphURL ?? GraphAPI.defaultURL,
            version: provider.graphVersion ?? GraphAPI.defaultVersion)
        graph = GraphClient(
            transport: transport, configuration: configuration,
            steps: .graph(for: configuration, tokens: nil, retryPolicy: .never))
    }

    /// A provider session ends with the provider's token errors (Graph 190 with any subcode, 102), the login codes
    /// for a changed password, a checkpoint or an unconfirmed account, or a Mend session-ended code: a client cannot
    /// refresh a provider token, so an expired one is over too.
    public func endsSession(_ error: MendError) -> Bool {
        Self.providerEndsSession(error)
    }

    static func providerEndsSession(_ error: MendError) -> Bool {
        switch error.code {
        case .Graph.accessTokenInvalid, .Graph.sessionInvalid, .Login.passwordChanged, .Login.userCheckpointed,
            .Login.unconfirmedUser:
            return error.subcode != .invalidSession
        default:
            return MendError.Code.Session.endsSession(error.code)
        }
    }

    /// Always a recoverable "log in again": a client cannot refresh a provider token.
    public func refresh(_ session: Session) async throws -> Session {
        throw MendError(
            code: .Graph.accessTokenInvalid, subcode: .tokenExpired,
            developerMessage: "The provider's token expired and a client cannot refresh it: log in again.",
            catalog: .login)
    }

    /// `GET /me?fields=id` with the token.
    public func checkValidity(of session: Session) async throws {
        _ = try await graph.send(
            GraphRequest(
                path: "me", fields: ["id"], tokenOverride: session.accessToken.tokenString, onTokenError: .invalidate))
    }

    /// `DELETE /me/permissions`: removes the app from the user's account (every token of the app dies).
    public func revoke(_ session: Session) async throws {
        _ = try await graph.send(
            GraphRequest(
                path: "me/permissions", method: .delete, tokenOverride: session.accessToken.tokenString,
                onTokenError: .invalidate))
    }
}
