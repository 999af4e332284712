package import Foundation
package import MendCore

/// The session's rules as a value: the state a ``CredentialsManager`` is in, what each event does to it, and what
/// the manager must do next. No `async` and no I/O — the manager reads and writes the store, calls the issuer and
/// resumes its callers as the machine says (swift-nio's `…+StateMachine` shape).
///
/// **What signs a user out** — only these:
/// - a logout, here or in another process sharing the store (the store is then empty);
/// - an answer that the issuer says ends the session (``SessionAuthority/endsSession(_:)``: for `mend-server` the
///   `session/10`–`19` codes), to a refresh, a validity check or a request;
/// - with no issuer, a rejection of a token nothing can refresh, or (a provider's session) one the catalog says only
///   a new login helps.
///
/// **What never does**: an expired or invalid access token (it is refreshed), a transient failure (a 5xx, a timeout,
/// a dropped connection: thrown, the session kept), an unreadable store, a refresh whose answer was lost, a refresh
/// that nothing can do (`session/18`) while the access token still works. One rule of the machine's own says so; the
/// manager reports each outcome as an event and does what the event returns.
package struct SessionStateMachine<Waiter: Sendable>: Sendable {
    /// The issuer's word and the manager's settings: everything the rules need besides the state.
    package struct Rules: Sendable {
        /// Whether an answer of the issuer ends the session (``SessionAuthority/endsSession(_:)``); `nil` when no
        /// issuer can refresh, check or revoke the session.
        package var endsSession: (@Sendable (MendError) -> Bool)?
        /// How long a token must still be valid to be used without a refresh first.
        package var refreshMargin: TimeInterval
        /// How often a validity check really asks the issuer.
        package var validityCheckInterval: TimeInterval

        package init(
            endsSession: (@Sendable (MendError) -> Bool)?, refreshMargin: TimeInterval = 60,
            validityCheckInterval: TimeInterval = 86_400
        ) {
            self.endsSession = endsSession
            self.refreshMargin = refreshMargin
            self.validityCheckInterval = validityCheckInterval
        }
    }

    /// When a failure is judged.
    package enum Occasion: Sendable, Hashable, CaseIterable {
        /// An API rejected the session's token, and the request asks for a fresh one.
        case rejected
        /// An API rejected the session's token, and the request does not renew it (``CredentialsManager/invalidate(_:because:)``).
        case invalidated
        /// The issuer answered a refresh, or the manager could not refresh (what a caller of a refresh sees).
        case refreshAnswer
        /// The issuer answered a validity check.
        case checkAnswer
    }

    /// What a failure means for the session.
    package enum Verdict: Sendable, Hashable {
        /// A new access token helps: refresh the session.
        case refresh
        /// Throw the failure and keep the session (a transient failure, or one that says nothing about the session).
        case keep
        /// Keep the session (its token still works, or nothing says it ended), but only a new login gives what was
        /// asked: ``SessionCredentials`` logs in again.
        case logInAgain
        /// The session is over: sign the user out; only a new login helps.
        case signOut
    }

    /// Where the manager stands.
    package enum State: Sendable {
        /// The store has not been read.
        case unloaded
        /// Nobody is signed in here; the reason when this manager saw the sign-out.
        case signedOut(SignOutReason?)
        /// A session, and no refresh of it in flight.
        case active(Session)
        /// A refresh of the session in flight.
        case refreshing(Refresh)
    }

    /// What a refresh must produce.
    package enum Need: Sendable, Hashable {
        /// An access token valid for this long.
        case validFor(TimeInterval)
        /// A session issued after the need arose.
        case fresh

        /// Whether `session`, found in the store, already meets the need — it does when it was refreshed after the
        /// need arose (another refresh is as good as this one would be), or when its token lasts long enough.
        package func isMet(by session: Session, at now: Date, askedAt: Date) -> Bool {
            if session.accessToken.refreshDate >= askedAt { return true }
            switch self {
            case .validFor(let ttl): return session.accessToken.isValid(for: ttl, at: now)
            case .fresh: return false
            }
        }
    }

    /// A refresh in flight: what it started from and what asked for it.
    package struct Refresh: Sendable {
        package var id: Int
        package var start: Session
        package var need: Need
        package var askedAt: Date
    }

    /// How a refresh ended, under the store's lock.
    package enum RefreshOutcome: Sendable {
        /// The session to use: refreshed, or adopted from the store.
        case session(Session)
        /// The store is empty: someone logged out.
        case loggedOut
        /// The issuer said the session is over; the store no longer holds it.
        case ended(MendError)
    }

    /// A caller's place in a refresh: the refresh to join, and whether the manager must start it.
    package struct Ticket: Sendable {
        package var id: Int
        /// The refresh to start; `nil` when it is already in flight.
        package var starts: Refresh?
    }

    package let rules: Rules
    package private(set) var state: State = .unloaded
    /// When the issuer last confirmed the session.
    package private(set) var lastValidityCheck: Date?
    /// The callers waiting for each refresh, with the session it started from (a refresh outlives the state that
    /// started it: a sign-in meanwhile leaves its callers waiting for its answer).
    private var waiting: [Int: (start: Session, waiters: [Waiter])] = [:]
    private var lastRefreshID = 0

    package init(rules: Rules) { self.rules = rules }

    /// The current session, if any.
    package var session: Session? {
        switch state {
        case .unloaded, .signedOut: nil
        case .active(let session): session
        case .refreshing(let refresh): refresh.start
        }
    }

    /// Why the last sign-out happened, if this manager saw one.
    package var lastSignOut: SignOutReason? {
        if case .signedOut(let reason) = state { reason } else { nil }
    }

    // MARK: The store

    /// Whether the store must be read first: nothing was read yet, or nobody is signed in here (a login in another
    /// manager or process is then seen at once).
    package var needsStoreRead: Bool { session == nil }

    /// The store was read because ``needsStoreRead``: takes what it holds (a login seen here for the first time is
    /// reported; the first read is not).
    package mutating func storeRead(_ stored: Session?) -> SessionEvent? {
        guard needsStoreRead else { return nil }  // a sign-in or a refresh came first
        guard let stored else {
            if case .unloaded = state { state = .signedOut(nil) }
            return nil
        }
        let reported = if case .signedOut = state { true } else { false }
        state = .active(stored)
        return reported ? .signedIn(stored) : nil
    }

    /// The store was read again (another manager or process may have refreshed, replaced or ended the session):
    /// takes what it holds, and says what changed.
    package mutating func storeChanged(_ stored: Session?) -> SessionEvent? {
        switch (session, stored) {
        case (nil, let stored?):
            state = .active(stored)
            return .signedIn(stored)
        case (_?, nil):
            return signOut(.userLoggedOut)
        case (let previous?, let stored?) where !previous.isSameIssue(as: stored):
            state = .active(stored)
            return stored.isSameFamily(as: previous) ? .refreshed(stored) : .signedIn(stored)
        case (_, nil):
            if case .unloaded = state { state = .signedOut(nil) }
            return nil
        default:
            return nil  // the same issue: a refresh in flight stays in flight
        }
    }

    // MARK: Sign-in and sign-out

    /// A new session was stored (a login).
    package mutating func signedIn(_ session: Session, now: Date) -> SessionEvent {
        state = .active(session)
        lastValidityCheck = now
        return .signedIn(session)
    }

    /// The store no longer holds `ended` (deleted under the lock, or replaced): signs out if it is still current.
    package mutating func ended(_ ended: Session, because reason: SignOutReason) -> SessionEvent? {
        guard let current = session, current.isSameIssue(as: ended) else { return nil }
        return signOut(reason)
    }

    /// The user logged out here (the store is empty); reported when a session was signed in.
    package mutating func loggedOut(hadSession: Bool) -> SessionEvent? {
        let event = signOut(.userLoggedOut)
        return hadSession ? event : nil
    }

    private mutating func signOut(_ reason: SignOutReason) -> SessionEvent {
        state = .signedOut(reason)
        lastValidityCheck = nil
        return .signedOut(reason)
    }

    // MARK: Tokens and refreshes

    /// What a caller that needs a token valid for `minTTL` gets: the current one, none, or a place in a refresh.
    package enum TokenDecision: Sendable {
        case token(AccessToken)
        case nobody
        case refresh(Ticket)
    }

    /// A token good for at least `minTTL` (capped at half its lifetime: no refresh gives more), else a refresh.
    package mutating func tokenRequested(minTTL: TimeInterval, now: Date) -> TokenDecision {
        guard let current = session else { return .nobody }
        let need = Self.cappedTTL(minTTL, for: current.accessToken)
        if current.accessToken.isValid(for: need, at: now) { return .token(current.accessToken) }
        return .refresh(refresh(from: current, need: .validFor(need), now: now))
    }

    /// A refresh now, whatever the token's expiry; `nil` when nobody is signed in.
    package mutating func refreshRequested(now: Date) -> Ticket? {
        session.map { refresh(from: $0, need: .fresh, now: now) }
    }

    /// Joins the refresh of the current session in flight, or starts one.
    private mutating func refresh(from start: Session, need: Need, now: Date) -> Ticket {
        if case .refreshing(let refresh) = state, refresh.start.isSameIssue(as: start) {
            return Ticket(id: refresh.id, starts: nil)
        }
        lastRefreshID += 1
        let refresh = Refresh(id: lastRefreshID, start: start, need: need, askedAt: now)
        state = .refreshing(refresh)
        waiting[refresh.id] = (start, [])
        return Ticket(id: refresh.id, starts: refresh)
    }

    /// `waiter` waits for refresh `id`; `false` when that refresh is over (it never is within the turn that handed
    /// out its ticket).
    package mutating func wait(_ waiter: Waiter, for id: Int) -> Bool {
        guard waiting[id] != nil else { return false }
        waiting[id]?.waiters.append(waiter)
        return true
    }

    /// What the end of a refresh does: the change to report, the callers to resume and what each gets.
    package struct RefreshEnd: Sendable {
        package var event: SessionEvent?
        package var waiters: [Waiter]
        package var answer: Result<Session, any Error>
    }

    /// Refresh `id` ended: its outcome applies only if the session it started from is still the current one, so a
    /// late refresh never overwrites the next user's session; its callers get the outcome either way.
    package mutating func refreshEnded(_ id: Int, _ result: Result<RefreshOutcome, any Error>) -> RefreshEnd {
        guard let (start, waiters) = waiting.removeValue(forKey: id) else {
            // Each refresh ends once (the manager's task reports it once): a second end answers no one and changes
            // nothing (SessionStateMachineTests.lateRefresh).
            return RefreshEnd(event: nil, waiters: [], answer: .failure(CancellationError()))
        }
        let isCurrent = if case .refreshing(let refresh) = state, refresh.id == id { true } else { false }
        switch result {
        case .failure(let error):
            if isCurrent { state = .active(start) }
            return RefreshEnd(event: nil, waiters: waiters, answer: .failure(error))
        case .success(.session(let fresh)):
            var event: SessionEvent?
            if isCurrent {
                state = .active(fresh)
                if !fresh.isSameIssue(as: start) {
                    event = fresh.isSameFamily(as: start) ? .refreshed(fresh) : .signedIn(fresh)
                }
            }
            return RefreshEnd(event: event, waiters: waiters, answer: .success(fresh))
        case .success(.loggedOut):
            let error = MendError.login(
                .Login.missingAccessToken, "Nobody is logged in: the session was ended elsewhere.")
            return RefreshEnd(
                event: isCurrent ? signOut(.userLoggedOut) : nil, waiters: waiters, answer: .failure(error))
        case .success(.ended(let error)):
            return RefreshEnd(
                event: isCurrent ? signOut(.refreshFailed(error)) : nil, waiters: waiters, answer: .failure(error))
        }
    }

    /// What a refresh does under the store's lock, with what the store holds.
    package enum LockedStep: Sendable {
        /// The store is empty: someone logged out.
        case loggedOut
        /// Another manager or process already refreshed (or logged in): use what the store holds.
        case adopt(Session)
        /// Nothing can refresh the stored session.
        case cannotRefresh
        /// Ask the issuer to refresh the stored session.
        case refresh(Session)
    }

    /// The step of `refresh` under the lock: the store is the truth (another manager or process may have refreshed,
    /// logged out or logged in).
    package func lockedStep(for refresh: Refresh, stored: Session?, now: Date) -> LockedStep {
        guard let base = stored else { return .loggedOut }
        if !base.isSameIssue(as: refresh.start), refresh.need.isMet(by: base, at: now, askedAt: refresh.askedAt) {
            return .adopt(base)
        }
        guard rules.endsSession != nil, base.refreshToken != nil || base.issuer == .provider else {
            return .cannotRefresh
        }
        return .refresh(base)
    }

    // MARK: Rejections and checks

    /// What a rejection of a token gets from the manager.
    package enum RejectionDecision: Sendable {
        /// The token was already replaced: use the current one.
        case replaced(AccessToken)
        /// Sign out of this session (if the store still holds it), and throw the rejection.
        case signOut(Session)
        /// Throw the rejection; the session is kept.
        case rethrow
        /// Refresh the session.
        case refresh(Ticket)
    }

    /// An API rejected `token` with `error`, and the request asks for a fresh one (``Occasion/rejected``).
    package mutating func rejected(token: String, error: MendError, now: Date) -> RejectionDecision {
        guard let current = session else { return .rethrow }
        guard current.accessToken.tokenString == token else { return .replaced(current.accessToken) }
        switch rules.verdict(on: error, when: .rejected, session: current, now: now) {
        case .signOut: return .signOut(current)
        case .refresh: return .refresh(refresh(from: current, need: .fresh, now: now))
        case .keep, .logInAgain: return .rethrow
        }
    }

    /// An API rejected `token` with `error`, and the request does not renew it (``Occasion/invalidated``): the
    /// session to sign out of, or `nil` to keep it. It never starts a refresh.
    package func invalidated(token: String, error: MendError, now: Date) -> Session? {
        guard let current = session, current.accessToken.tokenString == token,
            rules.verdict(on: error, when: .invalidated, session: current, now: now) == .signOut
        else { return nil }
        return current
    }

    /// What a failed validity check does.
    package enum CheckFailure: Sendable {
        /// Refresh the session: the token expired on the way, or the issuer's clock runs ahead.
        case refresh
        /// Sign out of this session, when there is one: the issuer's answer ended it.
        case signOut(Session?)
        /// Throw the failure; the session is kept.
        case rethrow
    }

    /// A validity check, or the reload and refresh before it, failed with `error` (``Occasion/checkAnswer``).
    package func checkFailed(_ error: MendError, now: Date) -> CheckFailure {
        switch rules.verdict(on: error, when: .checkAnswer, session: session, now: now) {
        case .refresh: .refresh
        case .signOut: .signOut(session)
        case .keep, .logInAgain: .rethrow
        }
    }

    /// The issuer answered the refresh of `base` with `error`, under the store's lock (``Occasion/refreshAnswer``):
    /// whether the answer ends the session, which is then deleted from the store.
    package func refreshFailedEndsSession(_ error: MendError, base: Session, now: Date) -> Bool {
        rules.verdict(on: error, when: .refreshAnswer, session: base, now: now) == .signOut
    }

    /// A refresh a caller asked for failed with `error` (``Occasion/refreshAnswer``): whether only a new login gives
    /// what was asked (the session is over, or nothing can renew its token) — what ``SessionCredentials`` acts on.
    package func refreshFailedNeedsLogin(_ error: MendError, now: Date) -> Bool {
        switch rules.verdict(on: error, when: .refreshAnswer, session: session, now: now) {
        case .logInAgain, .signOut: true
        case .keep, .refresh: false
        }
    }

    /// Whether a validity check is due (`force`, or none within the interval).
    package func validityCheckDue(force: Bool, now: Date) -> Bool {
        guard !force, let last = lastValidityCheck else { return true }
        return now.timeIntervalSince(last) >= rules.validityCheckInterval
    }

    /// The issuer confirmed the session.
    package mutating func validityConfirmed(at now: Date) { lastValidityCheck = now }

    /// `minTTL`, capped at half the token's lifetime.
    package static func cappedTTL(_ minTTL: TimeInterval, for token: AccessToken) -> TimeInterval {
        guard let expiration = token.expirationDate else { return minTTL }
        let lifetime = expiration.timeIntervalSince(token.refreshDate)
        return lifetime > 0 ? min(minTTL, lifetime / 2) : minTTL
    }
}

extension SessionStateMachine.Rules {
    /// The rules of a manager whose sessions `authority` issues (`nil`: nobody can refresh, check or revoke them).
    init(authority: (any SessionAuthority)?, refreshMargin: TimeInterval, validityCheckInterval: TimeInterval) {
        var endsSession: (@Sendable (MendError) -> Bool)?
        if let authority { endsSession = { authority.endsSession($0) } }
        self.init(
            endsSession: endsSession, refreshMargin: refreshMargin, validityCheckInterval: validityCheckInterval)
    }

    /// **The one decision**: what `error`, met on `occasion`, means for `session` — refresh, keep, log in again or
    /// sign out. Private to the machine: the manager reports each outcome as an event of the machine (a rejection, a
    /// failed check, a failed refresh), and the event applies this rule.
    ///
    /// - An expired or invalid access token (`session/1`, `session/2`) asks for a refresh, never a sign-out.
    /// - The issuer's word (``SessionAuthority/endsSession(_:)``) ends the session; with no issuer, a rejection ends
    ///   a session nothing can refresh, and (a provider's session, when the request does not renew) one the catalog
    ///   says only a new login helps.
    /// - `session/18` (nothing can refresh it) while the access token still works keeps the session: it lasts until
    ///   the token expires.
    /// - Anything else is kept; a failure whose recovery is to re-authenticate asks ``SessionCredentials`` for a new
    ///   login.
    fileprivate func verdict(
        on error: MendError, when occasion: SessionStateMachine.Occasion, session: Session?, now: Date
    )
        -> SessionStateMachine.Verdict
    {
        let asksForRefresh = error.matches(.Session.accessTokenExpired) || error.matches(.Session.accessTokenInvalid)
        let reauthenticates = error.category == .recoverable && error.recovery.action == .reauthenticate
        let issuerEnds = endsSession?(error) ?? false
        switch occasion {
        case .rejected:
            if issuerEnds { return .signOut }
            guard let session else { return .keep }
            if session.refreshToken != nil { return .refresh }
            if endsSession == nil { return .signOut }  // nothing can refresh it, and no issuer says otherwise
            return reauthenticates ? .logInAgain : .keep
        case .invalidated:
            guard endsSession == nil else { return issuerEnds ? .signOut : .keep }
            guard session?.issuer == .provider, !asksForRefresh else { return .keep }
            let endedByCatalog =
                MendError.Code.Session.endsSession(error.code)
                || (error.category == .recoverable
                    && (error.recovery.action == .reauthenticate || error.recovery.action == .visitProvider))
            return endedByCatalog ? .signOut : .keep
        case .refreshAnswer:
            if issuerEnds {
                let tokenWorks = session.map { $0.accessToken.isValid(for: 0, at: now) } ?? false
                return error.matches(.Session.notRefreshable) && tokenWorks ? .logInAgain : .signOut
            }
            return reauthenticates ? .logInAgain : .keep
        case .checkAnswer:
            if asksForRefresh { return .refresh }
            return issuerEnds ? .signOut : .keep
        }
    }
}
