public import Foundation
public import MendCore

/// Runs a login: builds the authorization request (PKCE, state, nonce), presents it, parses the redirect, exchanges
/// the code through the credentials manager's ``SessionAuthority`` (your backend by default), and stores the session.
///
/// ```swift
/// let credentials = CredentialsManager(
///     store: FileTokenStore(), authority: BackendSessionClient(baseURL: backend, transport: transport))
/// let login = LoginManager(provider: .google(clientID: "my-client"), credentials: credentials)
/// let result = try await login.logIn(presenter: LoopbackBrowserPresenter())
/// if result.isCancelled { return }   // not an error
/// ```
public struct LoginManager: Sendable {
    /// The provider.
    package var provider: LoginProvider
    /// The issuer that exchanges codes, when not the credentials manager's (tests, tools).
    package var authority: (any SessionAuthority)?
    /// Where the session goes (and the current user, for re-authentication).
    package var credentials: CredentialsManager?
    /// The scopes asked for by default.
    package var defaultScopes: [String]

    /// Creates a login manager that exchanges codes through `credentials`' authority and signs the session in there.
    ///
    /// - Parameters:
    ///   - provider: The provider the person logs in with.
    ///   - credentials: The session's manager; its ``SessionAuthority`` exchanges the code (a manager without one
    ///     makes every login fail with `login/301`).
    ///   - defaultScopes: The scopes asked for when a login names none.
    public init(
        provider: LoginProvider, credentials: CredentialsManager, defaultScopes: [String] = ["public_profile", "email"]
    ) {
        self.init(provider: provider, exchanger: nil, credentials: credentials, defaultScopes: defaultScopes)
    }

    /// Creates a login manager that exchanges codes through `exchanger` (tests, tools) — else `credentials`'
    /// authority — storing the session in `credentials` (an in-memory manager when `nil`).
    package init(
        provider: LoginProvider, exchanger: (any SessionAuthority)?, credentials: CredentialsManager? = nil,
        defaultScopes: [String] = ["public_profile", "email"]
    ) {
        self.provider = provider
        self.authority = exchanger
        self.credentials = credentials
        self.defaultScopes = defaultScopes
    }

    /// Logs in.
    ///
    /// - Parameters:
    ///   - scopes: The scopes (default: `defaultScopes`).
    ///   - rerequest: Ask again for permissions the user declined (`auth_type=rerequest`) — only when the user does
    ///     something that needs them.
    ///   - presenter: What shows the login page.
    /// - Returns: The result; a cancelled login is a result with `isCancelled`, not an error.
    /// - Throws: A login error (`login/308` for a forged redirect, `login/304` when a re-authentication logged in
    ///   someone else, …), an exchange error (classified), or `CancellationError`. Nothing is stored on error.
    public func logIn(
        scopes: [String]? = nil, rerequest: Bool = false, presenter: any LoginPresenter
    ) async throws
        -> LoginResult
    {
        let presentation = try await presenter.begin()
        defer { presentation.end() }
        var request = AuthorizationRequest(
            provider: provider, redirectURI: presentation.redirectURI, scopes: scopes ?? defaultScopes,
            rerequest: rerequest)
        // A direct login that proves a key names it now (dpop_jkt): the provider binds the code to it.
        let exchanging = authority ?? credentials?.authority
        request.proofKey = try (exchanging as? any DPoPSessionAuthority)?.makeLoginKey()
        let (url, transaction) = request.start()
        guard let redirect = try await presentation.present(url, state: transaction.state) else { return .cancelled }
        switch try RedirectParser.parse(
            redirect, transaction: transaction, expectedIssuer: provider.issuer,
            requiresIssuer: provider.requiresAuthorizationResponseIssuer)
        {
        case .cancelled:
            return .cancelled
        case .authorized(let code, let granted, let denied):
            let credentials = self.credentials ?? CredentialsManager(store: InMemoryTokenStore(), observer: nil)
            let session = try await credentials.signIn(
                exchanging: code, transaction: transaction, granted: granted, denied: denied, at: authority,
                sameUser: rerequest)
            return LoginResult(
                session: session, granted: Set(granted ?? Array(session.accessToken.permissions)),
                declined: Set(denied ?? Array(session.accessToken.declinedPermissions)))
        }
    }
}

/// The recovery attempter that logs in again: MendGraphAPI and the app's UI call it to recover a token error.
public struct LoginRecoveryAttempter: ErrorRecoveryAttempter {
    /// The login to run.
    package let login: LoginManager
    /// What shows the login page.
    package let presenter: any LoginPresenter

    /// Creates an attempter.
    public init(login: LoginManager, presenter: any LoginPresenter) {
        self.login = login
        self.presenter = presenter
    }

    /// Logs in again; for a permission error, asks again for the missing permissions.
    public func attemptRecovery(from error: MendError, optionIndex: Int) async -> Bool {
        let permissions = error.recovery.action == .requestPermissions ? error.recovery.permissions : []
        let scopes = permissions.isEmpty ? nil : Array(Set(login.defaultScopes + permissions))
        guard let result = try? await login.logIn(scopes: scopes, rerequest: !permissions.isEmpty, presenter: presenter)
        else { return false }
        return !result.isCancelled
    }
}
