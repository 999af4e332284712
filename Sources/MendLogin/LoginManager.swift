public import Foundation
public import MendCore

/// Runs a login: builds the authorization request (PKCE, state, nonce), presents it, parses the redirect, exchanges
/// the code (through the backend by default), and stores the session.
///
/// ```swift
/// let login = LoginManager(
///     provider: .facebook(appID: "1234"),
///     exchanger: BackendSessionClient(baseURL: backend, transport: transport),
///     credentials: credentials)
/// let result = try await login.logIn(presenter: LoopbackBrowserPresenter())
/// if result.isCancelled { return }   // not an error
/// ```
public struct LoginManager: Sendable {
    /// The provider.
    public var provider: LoginProvider
    /// What turns codes into sessions.
    public var exchanger: any CodeExchanger
    /// Where the session goes (and the current user, for re-authentication).
    public var credentials: CredentialsManager?
    /// The scopes asked for by default.
    public var defaultScopes: [String]

    /// Creates a login manager.
    public init(
        provider: LoginProvider, exchanger: any CodeExchanger, credentials: CredentialsManager? = nil,
        defaultScopes: [String] = ["public_profile", "email"]
    ) {
        self.provider = provider
        self.exchanger = exchanger
        self.credentials = credentials
        self.defaultScopes = defaultScopes
    }

    /// Logs in.
    ///
    /// - Parameters:
    ///   - scopes: The scopes (default: ``defaultScopes``).
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
        let request = AuthorizationRequest(
            provider: provider, redirectURI: presentation.redirectURI, scopes: scopes ?? defaultScopes,
            rerequest: rerequest)
        let (url, transaction) = request.start()
        guard let redirect = try await presentation.present(url, state: transaction.state) else { return .cancelled }
        switch try RedirectParser.parse(
            redirect, transaction: transaction, expectedIssuer: provider.issuer,
            requiresIssuer: provider.requiresAuthorizationResponseIssuer)
        {
        case .cancelled:
            return .cancelled
        case .authorized(let code, let granted, let denied):
            let session = try await exchanger.exchange(
                code: code, transaction: transaction, granted: granted, denied: denied)
            if let credentials, let current = try? await credentials.currentSession(),
                let currentUser = current.user?.id,
                let newUser = session.user?.id, currentUser != newUser, rerequest
            {
                throw MendError.login(.Login.userMismatch, "The re-authentication logged in a different user.")
            }
            try await credentials?.signIn(session)
            return LoginResult(
                session: session, granted: Set(granted ?? Array(session.accessToken.permissions)),
                declined: Set(denied ?? Array(session.accessToken.declinedPermissions)))
        }
    }
}

/// The recovery attempter that logs in again: MendGraphAPI and the app's UI call it to recover a token error.
public struct LoginRecoveryAttempter: ErrorRecoveryAttempter {
    /// The login to run.
    public let login: LoginManager
    /// What shows the login page.
    public let presenter: any LoginPresenter

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
