public import MendCore
public import MendHTTP

/// The logged-in user's credential for an API client: **refresh, else log in again**, as one `CredentialProvider`.
///
/// ```swift
/// let credentials = CredentialsManager(
///     store: FileTokenStore(), authority: BackendSessionClient(baseURL: backendURL, transport: transport))
/// let login = LoginManager(provider: .facebook(appID: "1234567890"), credentials: credentials)
/// let presenter = LoopbackBrowserPresenter()
/// let graph = GraphClient(
///     transport: transport, credentials: SessionCredentials(login: login, presenter: presenter, token: .provider))
/// ```
///
/// When the API rejects the credential (its client's rejection rule: a 401, Graph 190), the pipeline's
/// authorization step asks this provider for a fresh one:
/// - the session's own token is refreshed by the ``CredentialsManager`` first (sharing a refresh in flight, or
///   adopting one another process made) — a refresh that works never shows a login page;
/// - when that cannot help — the session ended, nothing can refresh it (`session/18`), or the token is the
///   provider's one that a backend session carries — the person logs in again through `presenter`, once for any
///   number of concurrent rejections, and each request is replayed once with the new token.
///
/// A cancelled login fails the waiting requests with the rejection's error; the next rejection asks again. The
/// vendor SDK's recovery alert is the app's business: a bridged `MendError` still offers its recovery options and
/// attempts them through the attempter the app injects (``LoginRecoveryAttempter``).
public final class SessionCredentials: CredentialProvider {
    /// Which of the session's tokens the API takes.
    public enum Token: Sendable, Hashable {
        /// The session's own access token: the backend's for a backend session, the provider's for a session a
        /// public client got directly.
        case session
        /// The provider's access token: the one a backend session carries (``Session/providerAccessToken``) for
        /// direct calls to the provider's API (the Graph API), or the session's own when the provider issued it.
        case provider
    }

    /// The login that renews the session, storing it in its ``LoginManager/credentials``.
    package let login: LoginManager
    /// The session's owner.
    package let credentials: CredentialsManager
    /// What shows the login page when the session must be renewed by a new login.
    package let presenter: any LoginPresenter
    /// Which token is attached.
    package let token: Token
    private let relogin = CredentialRenewal()

    /// A provider of the current session's `token`, renewed by `login` through `presenter` when a refresh cannot
    /// help. A `login` without credentials gets an in-memory ``CredentialsManager``.
    public init(login: LoginManager, presenter: any LoginPresenter, token: Token = .session) {
        var login = login
        let credentials = login.credentials ?? CredentialsManager(store: InMemoryTokenStore())
        login.credentials = credentials
        self.login = login
        self.credentials = credentials
        self.presenter = presenter
        self.token = token
    }

    /// The current session's token (the session's own is refreshed first when it is about to expire), or `nil` when
    /// nobody is logged in.
    ///
    /// - Throws: `login/310` for ``Token/provider`` when the backend session carries no provider token (the backend
    ///   hands it out only when configured to).
    public func currentCredential() async throws -> Credential? {
        guard let session = try await credentials.currentSession() else { return nil }
        guard usesSessionToken(session) else {
            guard let providerToken = session.providerAccessToken else {
                throw MendError.login(
                    .Login.missingAccessToken,
                    "The backend session carries no provider token: configure the backend to return it "
                        + "(mend-server: MEND_RETURN_PROVIDER_TOKEN=true), or send the session's own token.")
            }
            return Credential(token: providerToken)
        }
        return try await credentials.currentCredential()
    }

    /// Ends the session if the rejection of its own token says so (``CredentialsManager/invalidate(_:because:)``);
    /// the provider's verdict on the provider token that a backend session carries never ends that session.
    public func invalidate(_ credential: Credential, because error: MendError) async {
        guard let session = try? await credentials.currentSession(), usesSessionToken(session) else { return }
        await credentials.invalidate(credential, because: error)
    }

    /// A fresh credential after `rejected`: the newer one when it was already replaced, else a refresh, else a new
    /// login (single-flight).
    public func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        if let session = try await credentials.currentSession() {
            if usesSessionToken(session) {
                do {
                    return try await credentials.refreshCredential(rejected: rejected, error: error)
                } catch let failure as MendError {
                    // The manager's rules: a session that is over, or that cannot be refreshed, needs a new login.
                    guard await credentials.needsLogin(afterRefreshFailure: failure) else { throw failure }
                }
            } else if let current = session.providerAccessToken, current != rejected.token {
                return Credential(token: current)  // already replaced
            }
        }
        return try await logInAgain(after: rejected, error: error)
    }

    /// The signed-in user (``CredentialsManager/principal()``): whose answers a `ResponseStore` keeps.
    public func principal() async throws -> Principal? { try await credentials.principal() }

    private func usesSessionToken(_ session: Session) -> Bool {
        token == .session || session.issuer == .provider
    }

    /// One login for every rejection of `rejected` (`CredentialRenewal`); a failed or cancelled one is forgotten,
    /// so the next rejection asks again.
    private func logInAgain(after rejected: Credential, error: MendError) async throws -> Credential {
        try await relogin.renew(after: rejected) { try await self.performLogin(error: error) }
    }

    private func performLogin(error: MendError) async throws -> Credential {
        let result = try await login.logIn(presenter: presenter)
        guard let session = result.session else { throw error }  // cancelled: the rejection stands
        if usesSessionToken(session) { return try await credentials.credential(of: session) }
        guard let providerToken = session.providerAccessToken else { throw error }
        return Credential(token: providerToken)
    }
}
