public import Foundation
import HTTPTypes
public import MendCore
import MendGraphAPI
public import MendHTTP

/// What the credentials manager needs from whoever issued the session: refreshing, checking and revoking it.
public protocol SessionAuthority: Sendable {
    /// A fresh session from `session` (a rotated refresh token), or a recoverable error when only a new login helps.
    func refresh(_ session: Session) async throws -> Session
    /// Throws the error that makes `session` invalid (a 190, a revoked session); returns when it is valid.
    func checkValidity(of session: Session) async throws
    /// Revokes `session` where it was issued.
    func revoke(_ session: Session) async throws
}

extension BackendSessionClient: SessionAuthority {
    /// `GET /v1/session` with the access token: throws the backend's error when the session is no longer valid.
    public func checkValidity(of session: Session) async throws {
        let request = APIRequest(
            method: .get, url: baseURL.appendingPathComponent("v1/session"),
            options: RequestOptions(
                allowsReauthentication: false, credentialOverride: Credential(token: session.accessToken.tokenString)))
        _ = try await client.send(request)
    }

    /// Logs out at the backend.
    public func revoke(_ session: Session) async throws {
        try await logout(session)
    }
}

/// The provider itself, for sessions that a public client got directly: a Facebook-compatible provider checks a
/// token with a Graph call and revokes it with `DELETE /me/permissions`. Provider tokens cannot be refreshed by a
/// client: an expired one needs a new login.
public struct ProviderSessionAuthority: SessionAuthority {
    let graph: GraphClient

    /// Creates an authority for a Facebook-compatible provider.
    public init(provider: LoginProvider, transport: any HTTPTransport) {
        graph = GraphClient(
            transport: transport,
            configuration: .init(
                graphURL: provider.graphURL ?? URL(string: "https://graph.facebook.com")!,
                version: provider.graphVersion ?? "v25.0", automaticRecovery: false))
    }

    /// Always a recoverable "log in again": a client cannot refresh a provider token.
    public func refresh(_ session: Session) async throws -> Session {
        throw MendError(
            code: .Graph.accessTokenInvalid, subcode: .tokenExpired,
            developerMessage: "The provider's token expired and a client cannot refresh it: log in again.")
    }

    /// `GET /me?fields=id` with the token.
    public func checkValidity(of session: Session) async throws {
        _ = try await graph.send(
            GraphRequest(
                path: "me", fields: ["id"], tokenOverride: session.accessToken.tokenString, flags: .skipRecovery))
    }

    /// `DELETE /me/permissions`: removes the app from the user's account (every token of the app dies).
    public func revoke(_ session: Session) async throws {
        _ = try await graph.send(
            GraphRequest(
                path: "me/permissions", method: .delete, tokenOverride: session.accessToken.tokenString,
                flags: .skipRecovery))
    }
}
