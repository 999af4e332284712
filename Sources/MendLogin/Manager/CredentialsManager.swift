public import Foundation
public import MendCore
public import MendGraphAPI
public import MendHTTP

/// The one owner of the current session: it loads and stores it, keeps it fresh, checks it, ends it, and reports
/// every change.
///
/// - ``validToken(minTTL:)`` returns a token good for at least `minTTL`, refreshing when needed — one refresh in
///   flight per process, and, across processes, a re-read of the store under its lock first (another process may
///   have refreshed already). A refresh result is applied only if the session it started from is still current,
///   so a late refresh never overwrites the next user's session.
/// - ``checkValidity(force:)`` asks the issuer (daily by default); a rejected token signs the user out with the
///   reason.
/// - ``logout(revoke:)`` revokes at the issuer, then clears — locally always.
///
/// It is MendHTTP's `CredentialProvider` and MendGraphAPI's `GraphTokenSource`.
public actor CredentialsManager {
    /// The store.
    public let store: any TokenStore
    /// The issuer's operations (the backend, or the provider).
    public let authority: (any SessionAuthority)?
    /// How often ``checkValidity(force:)`` really asks the issuer.
    public let validityCheckInterval: TimeInterval
    private let now: @Sendable () -> Date

    private var session: Session?
    private var loaded = false
    private var refreshing: (generation: Int, task: Task<Session, any Error>)?
    private var lastValidityCheck: Date?
    private var subscribers: [UUID: AsyncStream<SessionEvent>.Continuation] = [:]

    /// Creates a manager.
    public init(
        store: any TokenStore, authority: (any SessionAuthority)? = nil, validityCheckInterval: TimeInterval = 86_400,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.authority = authority
        self.validityCheckInterval = validityCheckInterval
        self.now = now
    }

    /// The current session (read from the store the first time), or `nil` when nobody is logged in.
    ///
    /// - Throws: `login/320` when the store cannot be read — which does not mean logged out.
    public func currentSession() async throws -> Session? {
        if !loaded {
            session = try await store.read()
            loaded = true
        }
        return session
    }

    /// Stores a new session (after a login) and reports ``SessionEvent/signedIn(_:)``.
    public func signIn(_ newSession: Session) async throws {
        try await store.withExclusiveAccess { try await self.store.write(newSession) }
        session = newSession
        loaded = true
        refreshing = nil
        lastValidityCheck = now()
        publish(.signedIn(newSession))
    }

    /// A token good for at least `minTTL` seconds, refreshing the session when it is not.
    ///
    /// - Throws: `login/310` when nobody is logged in; the refresh's error when refreshing fails (a rejected refresh
    ///   also signs the user out).
    public func validToken(minTTL: TimeInterval = 60) async throws -> AccessToken {
        guard let current = try await currentSession() else {
            throw MendError.login(.Login.missingAccessToken, "Nobody is logged in.")
        }
        if current.accessToken.isValid(for: minTTL, at: now()) { return current.accessToken }
        return try await refreshed(from: current, minTTL: minTTL).accessToken
    }

    /// Refreshes the session now (whatever its expiry), sharing a refresh already in flight.
    @discardableResult
    public func refresh() async throws -> Session {
        guard let current = try await currentSession() else {
            throw MendError.login(.Login.missingAccessToken, "Nobody is logged in.")
        }
        return try await refreshed(from: current, minTTL: .infinity)
    }

    private func refreshed(from start: Session, minTTL: TimeInterval) async throws -> Session {
        if let refreshing, refreshing.generation == start.generation { return try await refreshing.task.value }
        guard let authority else {
            throw MendError(
                code: .Graph.accessTokenInvalid, subcode: .tokenExpired,
                developerMessage: "The session expired and nothing can refresh it: log in again.")
        }
        let store = self.store
        let now = self.now
        let task = Task<Session, any Error> {
            try await store.withExclusiveAccess {
                // Another process may have refreshed while this one waited for the lock.
                if let stored = try await store.read(), stored.generation > start.generation,
                    stored.user?.id == start.user?.id, stored.accessToken.isValid(for: min(minTTL, 3600), at: now())
                {
                    return stored
                }
                let fresh = try await authority.refresh(start)
                try await store.write(fresh)
                return fresh
            }
        }
        refreshing = (start.generation, task)
        do {
            let fresh = try await task.value
            if refreshing?.generation == start.generation { refreshing = nil }
            // Apply only if the session it started from is still the current one.
            guard let current = session, current.generation == start.generation, current.user?.id == start.user?.id
            else { return fresh }
            session = fresh
            publish(.refreshed(fresh))
            return fresh
        } catch let error as MendError {
            if refreshing?.generation == start.generation { refreshing = nil }
            if error.category == .recoverable, session?.generation == start.generation {
                try? await clear()
                publish(.signedOut(.refreshFailed(error)))
            }
            throw error
        } catch {
            if refreshing?.generation == start.generation { refreshing = nil }
            throw error
        }
    }

    /// Asks the issuer whether the session is still valid — at most once per ``validityCheckInterval`` unless
    /// `force`. A rejected token signs the user out with the reason.
    ///
    /// - Returns: `false` when nobody is (or is any longer) logged in.
    @discardableResult
    public func checkValidity(force: Bool = false) async throws -> Bool {
        guard let current = try await currentSession() else { return false }
        if !force, let last = lastValidityCheck, now().timeIntervalSince(last) < validityCheckInterval { return true }
        guard let authority else { return true }
        do {
            try await authority.checkValidity(of: current)
            lastValidityCheck = now()
            return true
        } catch let error as MendError where error.category == .recoverable {
            try await signOut(current, because: error)
            return false
        }
    }

    /// Logs out: revokes at the issuer (when `revoke`), then clears the session — locally even when revocation
    /// fails, which the outcome reports.
    @discardableResult
    public func logout(revoke: Bool = true) async throws -> LogoutOutcome {
        guard let current = try await currentSession() else {
            return LogoutOutcome(revoked: false, revocationError: nil)
        }
        var outcome = LogoutOutcome(revoked: false, revocationError: nil)
        if revoke, let authority {
            do {
                try await authority.revoke(current)
                outcome.revoked = true
            } catch let error as MendError {
                outcome.revocationError = error
            }
        }
        try await clear()
        publish(.signedOut(.userLoggedOut))
        return outcome
    }

    /// Signs out because the issuer rejected `rejected` — if it is still the current session.
    func signOut(_ rejected: Session, because error: MendError) async throws {
        guard let current = session, current.accessToken.tokenString == rejected.accessToken.tokenString else { return }
        try await clear()
        publish(.signedOut(.tokenRejected(error)))
    }

    private func clear() async throws {
        try await store.withExclusiveAccess { try await self.store.delete() }
        session = nil
        refreshing = nil
        lastValidityCheck = nil
    }

    /// A stream of every session change from now on. Each call returns a stream of its own.
    public func events() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionEvent.self, bufferingPolicy: .bufferingNewest(32))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    private func publish(_ event: SessionEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }
}

extension CredentialsManager: CredentialProvider {
    /// The current token as a bearer credential (refreshed when it expires within a minute); `nil` when nobody is
    /// logged in.
    public func currentCredential() async throws -> Credential? {
        guard try await currentSession() != nil else { return nil }
        return Credential(token: try await validToken(minTTL: 60).tokenString)
    }

    /// Refreshes after the server rejected `rejected`; a session that cannot be refreshed is signed out with the
    /// reason, and `error` is rethrown.
    public func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        guard let current = try await currentSession() else { throw error }
        if current.accessToken.tokenString != rejected.token {
            return Credential(token: current.accessToken.tokenString)  // already replaced
        }
        guard current.refreshToken != nil else {
            try await signOut(current, because: error)
            throw error
        }
        return Credential(token: try await refreshed(from: current, minTTL: .infinity).accessToken.tokenString)
    }
}

extension CredentialsManager: GraphTokenSource {
    /// The current access token, or `nil` when nobody is logged in.
    public func currentAccessToken() async throws -> String? {
        guard try await currentSession() != nil else { return nil }
        return try await validToken(minTTL: 60).tokenString
    }

    /// The provider rejected `token`: sign the user out with the reason, if it is the current token.
    public func invalidate(token: String, because error: MendError) async {
        guard let current = try? await currentSession(), current.accessToken.tokenString == token else { return }
        try? await signOut(current, because: error)
    }
}
