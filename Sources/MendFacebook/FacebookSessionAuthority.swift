import HTTPTypes
public import MendCore
public import MendGraphAPI
public import MendHTTP
public import MendLogin

/// The provider itself, for a public client that logs in with a Facebook-compatible provider directly: it exchanges
/// the code, checks a token with a Graph call and revokes it with `DELETE /me/permissions`. A client cannot refresh a
/// provider token: an expired one needs a new login (`session/18`).
public struct FacebookSessionAuthority: SessionAuthority {
    let graph: GraphClient
    /// The code exchange, through the Graph client's pipeline (never retried).
    let exchanger: DirectCodeExchanger

    /// An authority for the Graph API of `provider` (its ``FacebookDialect``; Facebook's own without one).
    public init(provider: LoginProvider, transport: any HTTPTransport) {
        self.init(
            provider: provider, dialect: provider.dialect as? FacebookDialect ?? FacebookDialect(), transport: transport
        )
    }

    init(provider: LoginProvider, dialect: FacebookDialect, transport: any HTTPTransport) {
        graph = dialect.graphClient(transport: transport)
        exchanger = DirectCodeExchanger(
            provider: provider, transport: transport, client: graph.client, idTokenValidator: nil)
    }

    /// Exchanges the code at the provider's token endpoint as a public client (the PKCE verifier, no secret), then
    /// reads the user (`/me`) and the permissions (`/me/permissions`) with the new token, so that the session knows
    /// what was granted and declined.
    public func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    ) async throws -> Session {
        try await exchanger.exchange(code: code, transaction: transaction, granted: granted, denied: denied)
    }

    /// A provider session ends with the provider's token errors (Graph 190 with any subcode but 492, 102), the login
    /// codes for a changed password, a checkpoint or an unconfirmed account, or a Mend session-ended code (`session/18`
    /// among them: a client cannot refresh a provider token, so an expired one is over too).
    public func endsSession(_ error: MendError) -> Bool {
        switch error.code {
        case .Graph.accessTokenInvalid, .Graph.sessionInvalid, .Login.passwordChanged, .Login.userCheckpointed,
            .Login.unconfirmedUser:
            return error.subcode != .invalidSession
        default:
            return MendError.Code.Session.endsSession(error.code)
        }
    }

    /// Always `session/18`: a client cannot refresh a provider token.
    public func refresh(_ session: Session) async throws -> Session {
        throw MendError.login(
            .Session.notRefreshable, "The provider's token expired and a client cannot refresh it: log in again.")
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
