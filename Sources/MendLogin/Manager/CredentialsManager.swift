public import Foundation
public import MendCore
public import MendHTTP

/// The one owner of the current session: it loads and stores it, keeps it fresh, checks it, ends it, and reports
/// every change.
///
/// **The store is the truth.** Every refresh, login and logout happens under the store's lock
/// (``TokenStore/withExclusiveAccess(_:)``), which excludes the other managers of this process and — for a file or
/// a shared Keychain item — other processes. Under the lock the manager reads the store first: a session that
/// another manager or process refreshed meanwhile is adopted (and refreshed from, if its access token is also too
/// old), so a refresh token that the store has replaced is never presented again; the result is written under the
/// same lock, which excludes every other writer, so the store still holds what the refresh started from (one read
/// and one write of the store per refresh). Two managers in one process, two processes, and a process that slept for
/// an hour all converge on the same session.
///
/// **What signs a user out** — only these:
/// - ``logout(revoke:)``, here or in another process sharing the store (the store is then empty);
/// - an answer that the `authority` says ends the session (``SessionAuthority/endsSession(_:)``: for `mend-server`
///   the `session/10`–`19` codes — logged out, revoked, reuse detected, provider access withdrawn, user deleted,
///   session expired), to a refresh, a validity check or a request.
///
/// **What never does**: an expired or invalid access token (it is refreshed first), a transient failure (a 5xx, a
/// timeout, a dropped connection: the error is thrown and the session kept), an unreadable store (`login/320`), a
/// refresh whose answer was lost (the backend answers the repeated refresh token with the same successor), a refresh
/// that nothing can do (`session/18`: a provider's token) while the access token still works.
///
/// It is MendHTTP's `CredentialProvider` for the session's own access token. ``SessionCredentials`` adds "else log in
/// again", and can hand out the provider's token of a backend session instead.
public actor CredentialsManager {
    /// The store.
    package let store: any TokenStore
    /// The issuer's operations (the backend, or the provider).
    package let authority: (any SessionAuthority)?
    /// How often ``checkValidity(force:)`` really asks the issuer.
    package let validityCheckInterval: TimeInterval
    /// How long a token must still be valid for requests and validity checks to use it without a refresh first
    /// (60 s; capped at half the token's lifetime, since no refresh gives more).
    package let refreshMargin: TimeInterval
    private let clock: PipelineClock
    /// Hears each refresh that goes to the issuer (MendTelemetry's `TelemetryObserver` traces and counts them).
    private let observer: (any PipelineObserver)?

    private var session: Session?
    private var loaded = false
    /// The refresh in flight, keyed by the issue it started from.
    private var refreshing: (start: Session, task: Task<RefreshOutcome, any Error>)?
    private var lastValidityCheck: Date?
    private var subscribers: [UUID: AsyncStream<SessionEvent>.Continuation] = [:]
    /// Why the last sign-out happened, if this manager saw one (``SessionEvent/signedOut(_:)`` reports it too).
    public private(set) var lastSignOut: SignOutReason?

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - store: Where the session lives (the truth, shared with other managers and processes).
    ///   - authority: The issuer's operations (the backend, or the provider's dialect's); `nil` when nothing can
    ///     refresh, check or revoke the session.
    ///   - validityCheckInterval: How often ``checkValidity(force:)`` really asks the issuer.
    ///   - refreshMargin: How long a token must still be valid to be used without a refresh first.
    ///   - clock: Where token expiry and check intervals are read from (the client's one clock).
    ///   - observer: Hears each refresh that goes to the issuer (`PipelineObserver.observeRefresh(_:)`); by default
    ///     the one set with `APIClient.bootstrapObserver(_:)` when the manager is made.
    public init(
        store: any TokenStore, authority: (any SessionAuthority)? = nil, validityCheckInterval: TimeInterval = 86_400,
        refreshMargin: TimeInterval = 60, clock: PipelineClock = .system,
        observer: (any PipelineObserver)? = APIClient.bootstrappedObserver
    ) {
        self.store = store
        self.authority = authority
        self.validityCheckInterval = validityCheckInterval
        self.refreshMargin = refreshMargin
        self.clock = clock
        self.observer = observer
    }

    /// The current session, or `nil` when nobody is logged in. It is read from the store the first time, and again
    /// whenever this manager holds none — a login in another manager or process is seen at once.
    ///
    /// - Throws: `login/320` when the store cannot be read — which does not mean logged out.
    public func currentSession() async throws -> Session? {
        if !loaded || session == nil {
            let stored = try await store.read()
            if loaded, let stored { publish(.signedIn(stored)) }
            session = stored
            loaded = true
        }
        return session
    }

    /// Reads the store again: the session another manager or process may have refreshed, replaced or ended.
    @discardableResult
    public func reload() async throws -> Session? {
        let stored = try await store.read()
        adopt(stored)
        return stored
    }

    /// Stores a new session (after a login) and reports ``SessionEvent/signedIn(_:)``.
    public func signIn(_ newSession: Session) async throws {
        try await store.withExclusiveAccess { try await self.store.write(newSession) }
        session = newSession
        loaded = true
        refreshing = nil
        lastValidityCheck = clock.now()
        publish(.signedIn(newSession))
    }

    /// A token good for at least `minTTL` seconds, refreshing the session when it is not. A `minTTL` longer than
    /// half the token's lifetime is capped there: no refresh gives more.
    ///
    /// - Throws: `login/310` when nobody is logged in (or another process logged out); the issuer's error when the
    ///   refresh fails — after signing the user out only if that error ends the session.
    public func validToken(minTTL: TimeInterval = 60) async throws -> AccessToken {
        guard let current = try await currentSession() else {
            throw MendError.login(.Login.missingAccessToken, "Nobody is logged in.")
        }
        let need = Self.cappedTTL(minTTL, for: current.accessToken)
        if current.accessToken.isValid(for: need, at: clock.now()) { return current.accessToken }
        return try await refreshed(from: current, need: .validFor(need)).accessToken
    }

    /// Refreshes the session now (whatever its expiry), sharing a refresh already in flight — or adopting one that
    /// another manager or process finished while this one waited for the store's lock.
    @discardableResult
    public func refresh() async throws -> Session {
        guard let current = try await currentSession() else {
            throw MendError.login(.Login.missingAccessToken, "Nobody is logged in.")
        }
        return try await refreshed(from: current, need: .fresh)
    }

    /// What a refresh must produce.
    enum Need: Sendable {
        /// An access token valid for this long.
        case validFor(TimeInterval)
        /// A session issued after the need arose.
        case fresh

        /// Whether `session`, found in the store, already meets the need — it does when it was refreshed after the
        /// need arose (another refresh is as good as this one would be), or when its token lasts long enough.
        func isMet(by session: Session, at now: Date, askedAt: Date) -> Bool {
            if session.accessToken.refreshDate >= askedAt { return true }
            switch self {
            case .validFor(let ttl): return session.accessToken.isValid(for: ttl, at: now)
            case .fresh: return false
            }
        }
    }

    /// How a refresh ended.
    enum RefreshOutcome: Sendable {
        /// The session to use: refreshed here, or adopted from the store.
        case session(Session)
        /// The store is empty: someone logged out.
        case loggedOut
        /// The issuer said the session is over; the store no longer holds it.
        case ended(MendError)
    }

    private func refreshed(from start: Session, need: Need) async throws -> Session {
        if let refreshing, refreshing.start.isSameIssue(as: start) {
            return try await apply(Self.outcome(of: refreshing.task), startedFrom: start)
        }
        let store = self.store
        let authority = self.authority
        let clock = self.clock
        let observer = self.observer
        let askedAt = clock.now()
        let task = Task<RefreshOutcome, any Error> {
            try await store.withExclusiveAccess {
                // The store is the truth: another manager or process may have refreshed, logged out or logged in.
                guard let base = try await store.read() else { return .loggedOut }
                if !base.isSameIssue(as: start), need.isMet(by: base, at: clock.now(), askedAt: askedAt) {
                    return .session(base)
                }
                guard let authority, base.refreshToken != nil || base.issuer == .provider else {
                    throw MendError.login(
                        .Session.notRefreshable, "The session expired and nothing can refresh it: log in again.")
                }
                do {
                    let fresh =
                        if let observer {
                            try await observer.observeRefresh { try await authority.refresh(base) }
                        } else {
                            try await authority.refresh(base)
                        }
                    // The lock excludes every other writer: the store still holds `base`.
                    try await store.write(fresh)
                    return .session(fresh)
                } catch let error as MendError where authority.endsSession(error) {
                    // Nothing can refresh it (`session/18`, a provider's token), but its token still works: the
                    // session lasts until the token expires.
                    if error.matches(.Session.notRefreshable), base.accessToken.isValid(for: 0, at: clock.now()) {
                        throw error
                    }
                    try await store.delete()  // still `base`, under the same lock
                    return .ended(error)
                }
            }
        }
        refreshing = (start, task)
        // The refresh is the manager's, not its first caller's: it completes, is saved and applied even when every
        // caller waiting for it has left (cancelled).
        Task { [weak self] in
            let result = await task.result
            await self?.finish(task, startedFrom: start, result: result)
        }
        return try await apply(Self.outcome(of: task), startedFrom: start)
    }

    /// Ends the refresh `task`: it is no longer in flight, and its outcome applies (once: ``apply(_:startedFrom:)``
    /// changes and reports nothing the second time).
    private func finish(
        _ task: Task<RefreshOutcome, any Error>, startedFrom start: Session, result: Result<RefreshOutcome, any Error>
    ) {
        if refreshing?.task == task { refreshing = nil }
        if case .success(let outcome) = result { _ = try? apply(outcome, startedFrom: start) }
    }

    /// The outcome of a refresh in flight, for one caller: a caller whose task is cancelled stops waiting at once
    /// (`CancellationError`), while the refresh itself goes on for the others and for the store.
    private static func outcome(of task: Task<RefreshOutcome, any Error>) async throws -> RefreshOutcome {
        let waiter = Locked(Waiter.waiting)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<RefreshOutcome, any Error>) in
                let cancelled = waiter.withLock { state -> Bool in
                    if case .over = state { return true }
                    state = .suspended(continuation)
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                Task {
                    let result = await task.result
                    waiter.take()?.resume(with: result)
                }
            }
        } onCancel: {
            waiter.take()?.resume(throwing: CancellationError())
        }
    }

    /// Applies a refresh's outcome to the cached session — only if the session it started from is still the current
    /// one, so a late refresh never overwrites the next user's session.
    private func apply(_ outcome: RefreshOutcome, startedFrom start: Session) throws -> Session {
        let isCurrent = session.map { $0.isSameIssue(as: start) } ?? false
        switch outcome {
        case .session(let fresh):
            if isCurrent, !fresh.isSameIssue(as: start) {
                session = fresh
                publish(fresh.isSameFamily(as: start) ? .refreshed(fresh) : .signedIn(fresh))
            }
            return fresh
        case .loggedOut:
            if isCurrent {
                forget()
                publish(.signedOut(.userLoggedOut))
            }
            throw MendError.login(.Login.missingAccessToken, "Nobody is logged in: the session was ended elsewhere.")
        case .ended(let error):
            if isCurrent {
                forget()
                publish(.signedOut(.refreshFailed(error)))
            }
            throw error
        }
    }

    /// Asks the issuer whether the session is still valid — at most once per `validityCheckInterval` unless
    /// `force`. An access token that is expired or about to be is refreshed first; only an answer that ends the
    /// session (``SessionAuthority/endsSession(_:)``) signs the user out. A transient failure is thrown and changes
    /// nothing.
    ///
    /// - Returns: `false` when nobody is (or is any longer) logged in.
    @discardableResult
    public func checkValidity(force: Bool = false) async throws -> Bool {
        guard try await currentSession() != nil else { return false }
        if !force, let last = lastValidityCheck, clock.now().timeIntervalSince(last) < validityCheckInterval {
            return true
        }
        guard let authority else { return true }
        do {
            try await reload()  // the store is the truth: another process may have refreshed, logged out or in
            _ = try await validToken(minTTL: refreshMargin)
            guard let checked = session else { return false }
            do {
                try await authority.checkValidity(of: checked)
            } catch let error as MendError where Self.asksForRefresh(error) {
                // The token expired on the way, or the issuer's clock runs ahead of ours: a refresh that succeeds is
                // the issuer's own word that the session is valid.
                _ = try await refreshed(from: checked, need: .fresh)
            }
            lastValidityCheck = clock.now()
            return true
        } catch let error as MendError where authority.endsSession(error) {
            if let current = session { try await signOut(current, because: error) }
            return false
        } catch let error as MendError where error.matches(.Login.missingAccessToken) && session == nil {
            return false  // another process logged out
        }
    }

    /// Logs out: under the store's lock, ends the stored session at the issuer (when `revoke`) with whatever
    /// credential still works — `mend-server` revokes it with the refresh token, however old the access token —
    /// then clears the store; locally always, even when revocation fails, which the outcome reports.
    @discardableResult
    public func logout(revoke: Bool = true) async throws -> LogoutOutcome {
        let cached = try await currentSession()
        let store = self.store
        let authority = revoke ? self.authority : nil
        let outcome = try await store.withExclusiveAccess { () async throws -> LogoutOutcome in
            guard let stored = try await store.read() ?? cached else {
                return LogoutOutcome(revoked: false, revocationError: nil)
            }
            var outcome = LogoutOutcome(revoked: false, revocationError: nil)
            if let authority {
                do {
                    try await authority.revoke(stored)
                    outcome.revoked = true
                } catch let error as MendError {
                    outcome.revocationError = error
                }
            }
            try await store.delete()
            return outcome
        }
        let hadSession = cached != nil
        forget()
        if hadSession { publish(.signedOut(.userLoggedOut)) }
        return outcome
    }

    /// Signs out because the issuer said `rejected` is over — if it is still the stored and current session.
    func signOut(_ rejected: Session, because error: MendError) async throws {
        let store = self.store
        try await store.withExclusiveAccess {
            if let stored = try await store.read(), stored.isSameIssue(as: rejected) { try await store.delete() }
        }
        guard let current = session, current.isSameIssue(as: rejected) else { return }
        forget()
        publish(.signedOut(.tokenRejected(error)))
    }

    private func forget() {
        session = nil
        loaded = true
        refreshing = nil
        lastValidityCheck = nil
    }

    /// Takes `stored` as the current session, reporting the change.
    private func adopt(_ stored: Session?) {
        let previous = session
        session = stored
        loaded = true
        switch (previous, stored) {
        case (nil, let stored?): publish(.signedIn(stored))
        case (_?, nil): publish(.signedOut(.userLoggedOut))
        case (let previous?, let stored?) where !previous.isSameIssue(as: stored):
            publish(stored.isSameFamily(as: previous) ? .refreshed(stored) : .signedIn(stored))
        default: break
        }
    }

    /// Whether `error` asks for a refresh (an expired or invalid access token) rather than a new login.
    static func asksForRefresh(_ error: MendError) -> Bool {
        error.matches(.Session.accessTokenExpired) || error.matches(.Session.accessTokenInvalid)
    }

    /// `minTTL`, capped at half the token's lifetime.
    static func cappedTTL(_ minTTL: TimeInterval, for token: AccessToken) -> TimeInterval {
        guard let expiration = token.expirationDate else { return minTTL }
        let lifetime = expiration.timeIntervalSince(token.refreshDate)
        return lifetime > 0 ? min(minTTL, lifetime / 2) : minTTL
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
        switch event {
        case .signedOut(let reason): lastSignOut = reason
        case .signedIn: lastSignOut = nil
        case .refreshed: break
        }
        for continuation in subscribers.values { continuation.yield(event) }
    }
}

extension CredentialsManager: CredentialProvider {
    /// The current token as a bearer credential (refreshed first when it expires within `refreshMargin`); `nil`
    /// when nobody is logged in.
    public func currentCredential() async throws -> Credential? {
        guard try await currentSession() != nil else { return nil }
        return Credential(token: try await validToken(minTTL: refreshMargin).tokenString)
    }

    /// The server rejected `rejected`: refreshes (sharing a refresh in flight, or adopting one another process made)
    /// and returns the fresh token. When `error` itself ends the session, or the refresh says it ended, the user is
    /// signed out with the reason and the error is thrown.
    public func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        guard let current = try await currentSession() else { throw error }
        if current.accessToken.tokenString != rejected.token {
            return Credential(token: current.accessToken.tokenString)  // already replaced
        }
        if let authority, authority.endsSession(error) {
            try await signOut(current, because: error)
            throw error
        }
        guard current.refreshToken != nil else {
            if authority == nil {
                // Nothing can refresh it, and no issuer says otherwise: the rejection is the last word on it.
                try await signOut(current, because: error)
            }
            throw error
        }
        return Credential(
            token: try await refreshed(from: current, need: .fresh).accessToken.tokenString)
    }
}

extension CredentialsManager {
    /// The server rejected `credential`: signs the user out with the reason, if it is the current session's token and
    /// the error ends the session — as its `authority` says, or, with none, for a provider's session, when only a
    /// new login helps (a recoverable error whose recovery is to re-authenticate or to visit the provider). An
    /// expired or invalid backend access token does not end its session: it is refreshed.
    public func invalidate(_ credential: Credential, because error: MendError) async {
        guard let current = try? await currentSession(), current.accessToken.tokenString == credential.token else {
            return
        }
        let ends =
            authority?.endsSession(error)
            ?? (current.issuer == .provider && Self.needsNewLogin(error))
        guard ends else { return }
        try? await signOut(current, because: error)
    }

    /// Whether only a new login helps with `error`, by the catalog's word: a session-ended code, or a recoverable
    /// error whose recovery is to re-authenticate or visit the provider — but not "refresh this access token".
    static func needsNewLogin(_ error: MendError) -> Bool {
        if MendError.Code.Session.endsSession(error.code) { return true }
        guard error.category == .recoverable, !asksForRefresh(error) else { return false }
        return error.recovery.action == .reauthenticate || error.recovery.action == .visitProvider
    }
}

/// One caller's wait for a refresh in flight.
private enum Waiter {
    /// Neither suspended nor over yet.
    case waiting
    case suspended(CheckedContinuation<CredentialsManager.RefreshOutcome, any Error>)
    /// Resumed, or cancelled before it suspended.
    case over
}

extension Locked where Value == Waiter {
    /// The suspended caller to resume, once; marks the wait over (or cancelled before it suspended).
    fileprivate func take() -> CheckedContinuation<CredentialsManager.RefreshOutcome, any Error>? {
        withLock { state in
            switch state {
            case .suspended(let continuation):
                state = .over
                return continuation
            case .waiting:
                state = .over
                return nil
            case .over:
                return nil
            }
        }
    }
}
