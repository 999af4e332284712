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
///   session expired), to a refresh, a validity check or a request;
/// - with no `authority`, a rejection of a token that nothing can refresh.
///
/// **What never does**: an expired or invalid access token (it is refreshed first), a transient failure (a 5xx, a
/// timeout, a dropped connection: the error is thrown and the session kept), an unreadable store (`login/320`), a
/// refresh whose answer was lost (the backend answers the repeated refresh token with the same successor), a refresh
/// that nothing can do (`session/18`: a provider's token) while the access token still works. These rules are decided
/// in one place, the manager's state machine (`SessionStateMachine`), and tested there one row each.
///
/// It is MendHTTP's `CredentialProvider` for the session's own access token. ``SessionCredentials`` adds "else log in
/// again", and can hand out the provider's token of a backend session instead.
public actor CredentialsManager {
    /// A caller waiting for a refresh: it gets the refresh's answer, or leaves when its task is cancelled.
    package typealias Waiter = AsyncStream<Result<Session, any Error>>.Continuation

    /// The store.
    package let store: any TokenStore
    /// The issuer's operations (the backend, or the provider).
    package let authority: (any SessionAuthority)?
    /// The proofs of the sessions' credentials: the authority's (its nonce book, its session's prover, shared by
    /// every client this manager serves), or a book of the manager's own for an authority that binds nothing.
    let dpopProofs: DPoPSessionProofs
    private let clock: PipelineClock
    /// The rules and the state: every decision is the machine's.
    private var machine: SessionStateMachine<Waiter>
    /// What the manager does under the store's lock.
    private let work: LockedSessionWork
    private var subscribers: [UUID: AsyncStream<SessionEvent>.Continuation] = [:]
    /// The user's last good answers (`LastKnownGood`), purged at every end of a session and change of
    /// user.
    private let responseStore: (any ResponseStore)?

    /// Why the last sign-out happened, if this manager saw one (``SessionEvent/signedOut(_:)`` reports it too).
    public var lastSignOut: SignOutReason? { machine.lastSignOut }

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
    ///   - responseStore: The store of the user's last good answers (`LastKnownGood`) that the app's
    ///     clients use: the manager deletes every other user's answers at a sign-in, and all of them at a sign-out
    ///     (a logout, here or in another process; a revocation; an answer that ends the session).
    public init(
        store: any TokenStore, authority: (any SessionAuthority)? = nil, validityCheckInterval: TimeInterval = 86_400,
        refreshMargin: TimeInterval = 60, clock: PipelineClock = .system,
        observer: (any PipelineObserver)? = APIClient.bootstrappedObserver,
        responseStore: (any ResponseStore)? = nil
    ) {
        self.store = store
        self.responseStore = responseStore
        self.authority = authority
        self.dpopProofs = (authority as? any DPoPSessionAuthority)?.dpopProofs ?? DPoPSessionProofs()
        self.clock = clock
        self.work = LockedSessionWork(store: store, authority: authority, observer: observer, clock: clock)
        self.machine = SessionStateMachine(
            rules: .init(
                authority: authority, refreshMargin: refreshMargin, validityCheckInterval: validityCheckInterval))
    }

    /// The current session, or `nil` when nobody is logged in. It is read from the store the first time, and again
    /// whenever this manager holds none — a login in another manager or process is seen at once.
    ///
    /// - Throws: `login/320` when the store cannot be read — which does not mean logged out.
    public func currentSession() async throws -> Session? {
        if machine.needsStoreRead { await publish(machine.storeRead(try await store.read())) }
        return machine.session
    }

    /// Reads the store again: the session another manager or process may have refreshed, replaced or ended.
    @discardableResult
    public func reload() async throws -> Session? {
        let stored = try await store.read()
        await publish(machine.storeChanged(stored))
        return stored
    }

    /// Stores a new session (after a login) and reports ``SessionEvent/signedIn(_:)``.
    public func signIn(_ newSession: Session) async throws {
        try await store.withExclusiveAccess { try await self.store.write(newSession) }
        await publish(machine.signedIn(newSession, now: clock.now()))
    }

    /// A token good for at least `minTTL` seconds, refreshing the session when it is not. A `minTTL` longer than
    /// half the token's lifetime is capped there: no refresh gives more.
    ///
    /// - Throws: `login/310` when nobody is logged in (or another process logged out); the issuer's error when the
    ///   refresh fails — after signing the user out only if that error ends the session.
    public func validToken(minTTL: TimeInterval = 60) async throws -> AccessToken {
        try await validSession(minTTL: minTTL).accessToken
    }

    /// The session whose token is good for at least `minTTL` seconds (``validToken(minTTL:)``).
    private func validSession(minTTL: TimeInterval) async throws -> Session {
        _ = try await currentSession()
        switch machine.tokenRequested(minTTL: minTTL, now: clock.now()) {
        case .token(let token):
            guard let session = machine.session, session.accessToken.tokenString == token.tokenString else {
                throw Self.nobody
            }
            return session
        case .nobody: throw Self.nobody
        case .refresh(let ticket): return try await answer(of: ticket)
        }
    }

    /// The credential of `session` (bound to its key when it has one). A key this device cannot use (`session/19`:
    /// another device's Secure Enclave blob, a record altered by hand) ends the session: a new login, never a crash.
    package func credential(of session: Session) async throws -> Credential {
        do {
            return try dpopProofs.credential(for: session)
        } catch {
            try await signOut(session, because: .tokenRejected(error))
            throw error
        }
    }

    /// Refreshes the session now (whatever its expiry), sharing a refresh already in flight — or adopting one that
    /// another manager or process finished while this one waited for the store's lock.
    @discardableResult
    public func refresh() async throws -> Session {
        _ = try await currentSession()
        guard let ticket = machine.refreshRequested(now: clock.now()) else { throw Self.nobody }
        return try await answer(of: ticket)
    }

    private static let nobody = MendError.login(.Login.missingAccessToken, "Nobody is logged in.")

    /// The answer of the refresh `ticket` joins, starting it first if the ticket says so. A caller whose task is
    /// cancelled stops waiting at once (`CancellationError`); the refresh goes on for the others and for the store.
    private func answer(of ticket: SessionStateMachine<Waiter>.Ticket) async throws -> Session {
        let (answers, waiter) = AsyncStream.makeStream(of: Result<Session, any Error>.self)
        _ = machine.wait(waiter, for: ticket.id)
        if let refresh = ticket.starts { start(refresh) }
        for await answer in answers { return try answer.get() }
        throw CancellationError()
    }

    /// Runs `refresh` as the manager's own task — the one unstructured task: it completes, is saved and applied even
    /// when every caller waiting for it has left.
    private func start(_ refresh: SessionStateMachine<Waiter>.Refresh) {
        let (work, machine) = (work, machine)
        Task {
            let result: Result<SessionStateMachine<Waiter>.RefreshOutcome, any Error>
            do { result = .success(try await work.run(refresh, deciding: machine)) } catch { result = .failure(error) }
            await self.refreshEnded(refresh.id, result)
        }
    }

    private func refreshEnded(
        _ id: Int, _ result: Result<SessionStateMachine<Waiter>.RefreshOutcome, any Error>
    ) async {
        let end = machine.refreshEnded(id, result)
        await publish(end.event)
        for waiter in end.waiters {
            waiter.yield(end.answer)
            waiter.finish()
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
        guard machine.validityCheckDue(force: force, now: clock.now()), let authority else { return true }
        do {
            try await reload()  // the store is the truth: another process may have refreshed, logged out or in
            _ = try await validToken(minTTL: machine.rules.refreshMargin)
            guard let checked = machine.session else { return false }
            do {
                try await authority.checkValidity(of: checked)
            } catch let error as MendError {
                // The token expired on the way, or the issuer's clock runs ahead of ours: a refresh that succeeds is
                // the issuer's own word that the session is valid.
                guard case .refresh = machine.checkFailed(error, now: clock.now()) else { throw error }
                try await refresh()
            }
            machine.validityConfirmed(at: clock.now())
            return true
        } catch let error as MendError {
            // Another process logged out.
            if error.matches(.Login.missingAccessToken), machine.session == nil { return false }
            guard case .signOut(let current) = machine.checkFailed(error, now: clock.now()) else { throw error }
            if let current { try await signOut(current, because: .tokenRejected(error)) }
            return false
        }
    }

    /// Whether only a new login gives what was asked after a refresh failed with `error` (the session is over, or
    /// nothing can renew its token): the machine's event for a failed refresh.
    package func needsLogin(afterRefreshFailure error: MendError) -> Bool {
        machine.refreshFailedNeedsLogin(error, now: clock.now())
    }

    /// Logs out: under the store's lock, ends the stored session at the issuer (when `revoke`) with whatever
    /// credential still works — `mend-server` revokes it with the refresh token, however old the access token —
    /// then clears the store; locally always, even when revocation fails, which the outcome reports.
    @discardableResult
    public func logout(revoke: Bool = true) async throws -> LogoutOutcome {
        let cached = try await currentSession()
        let outcome = try await work.logout(cached: cached, revoke: revoke)
        await publish(machine.loggedOut(hadSession: cached != nil))
        return outcome
    }

    /// Exchanges a login's code at `authority` (this manager's when `nil`) and stores the session — the one route
    /// from a code to a stored session (`LoginManager` takes it). With `sameUser` (a re-authentication), a login of
    /// another user than the stored one stores nothing and throws `login/304`.
    package func signIn(
        exchanging code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?,
        at authority: (any SessionAuthority)? = nil, sameUser: Bool = false
    ) async throws -> Session {
        let session = try await work.signIn(
            exchanging: code, transaction: transaction, granted: granted, denied: denied, at: authority,
            sameUser: sameUser)
        await publish(machine.signedIn(session, now: clock.now()))
        return session
    }

    /// Signs out of `ended` with `reason` — if it is still the stored and current session.
    private func signOut(_ ended: Session, because reason: SignOutReason) async throws {
        try await work.delete(ifStill: ended)
        await publish(machine.ended(ended, because: reason))
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

    private func publish(_ event: SessionEvent?) async {
        guard let event else { return }
        // Heard in the order the machine decided, before the purge's first suspension lets another change in.
        for continuation in subscribers.values { continuation.yield(event) }
        await purgeAnswers(after: event)
    }

    /// Keeps the response store to the signed-in user's answers: a sign-in (a change of user included) deletes every
    /// other principal's, a sign-out deletes them all, before the call that made the change returns. Nothing is served
    /// across the change meanwhile: answers are keyed by their principal, and after a sign-out there is none. A store
    /// that cannot be written is left as it is (its entries stay keyed by a principal no later session names).
    private func purgeAnswers(after event: SessionEvent) async {
        guard let responseStore else { return }
        switch event {
        case .signedIn(let session): try? await responseStore.purgeAll(keeping: Self.principal(of: session))
        case .refreshed: break
        case .signedOut: try? await responseStore.purgeAll(keeping: nil)
        }
    }

    /// The principal a session names: its user, at its issuer; `nil` when the session names no user.
    package static func principal(of session: Session) -> Principal? {
        session.user.map { Principal(subject: $0.id, issuer: session.issuer.rawValue) }
    }
}

extension CredentialsManager: CredentialProvider {
    /// The current token as a credential — bound to the session's key (DPoP) when it has one, else bearer — (refreshed first when it expires within `refreshMargin`); `nil`
    /// when nobody is logged in.
    public func currentCredential() async throws -> Credential? {
        guard try await currentSession() != nil else { return nil }
        return try await credential(of: try await validSession(minTTL: machine.rules.refreshMargin))
    }

    /// The server rejected `rejected`: refreshes (sharing a refresh in flight, or adopting one another process made)
    /// and returns the fresh token. When `error` itself ends the session, or the refresh says it ended, the user is
    /// signed out with the reason and the error is thrown.
    public func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        _ = try await currentSession()
        switch machine.rejected(token: rejected.token, error: error, now: clock.now()) {
        case .replaced(let current):
            guard let session = machine.session, session.accessToken.tokenString == current.tokenString else {
                return Credential(token: current.tokenString)
            }
            return try await credential(of: session)
        case .signOut(let current):
            try await signOut(current, because: .tokenRejected(error))
            throw error
        case .rethrow: throw error
        case .refresh(let ticket): return try await credential(of: try await answer(of: ticket))
        }
    }

    /// The signed-in user, at the session's issuer: whose answers a `ResponseStore` keeps; `nil` when
    /// nobody is signed in (or the session names no user).
    public func principal() async throws -> Principal? {
        try await currentSession().flatMap(Self.principal(of:))
    }

    /// The server rejected `credential`: signs the user out with the reason if it is the current session's token and
    /// the error ends the session (the machine's verdict: the `authority`'s
    /// word, or with none, for a provider's session, the catalog's). An expired access token never ends a session.
    public func invalidate(_ credential: Credential, because error: MendError) async {
        guard (try? await currentSession()) != nil,
            let current = machine.invalidated(token: credential.token, error: error, now: clock.now())
        else { return }
        try? await signOut(current, because: .tokenRejected(error))
    }
}
