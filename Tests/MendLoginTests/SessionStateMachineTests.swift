import Foundation
import MendCore
import Testing

@testable import MendLogin

/// ``SessionStateMachine``'s states and events, by themselves: what each event does to the state, what it reports,
/// whom it resumes and what the manager must do next.
@Suite("The session state machine")
struct SessionStateMachineTests {
    typealias Machine = SessionStateMachine<String>

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let backendRules = Machine.Rules(endsSession: { MendError.Code.Session.endsSession($0.code) })

    /// A backend session issued `age` seconds before ``now``, its token valid for `lifetime` seconds from then.
    static func session(
        _ token: String = "EAAfirstTokenAAAAAAAAAAAAAAAAA", refresh: String? = "refresh-1", user: String = "u1",
        family: String? = "ses_1", age: TimeInterval = 600, lifetime: TimeInterval = 900,
        issuer: Session.Issuer = .backend
    ) -> Session {
        Session(
            issuer: issuer,
            accessToken: AccessToken(
                tokenString: token, userID: user, expirationDate: now.addingTimeInterval(lifetime - age),
                refreshDate: now.addingTimeInterval(-age)),
            refreshToken: refresh, user: .init(id: user, name: "Ada"), familyID: family)
    }

    static let first = session()
    static let expired = session(age: 1000)
    static let refreshed = session("EAAsecondTokenBBBBBBBBBBBBBBBB", refresh: "refresh-2", age: 0)
    static let otherUser = session("EAAotherUserCCCCCCCCCCCCCCCCCC", refresh: "refresh-9", user: "u2", family: "ses_9")

    static func loaded(_ session: Session?, rules: Machine.Rules = backendRules) -> Machine {
        var machine = Machine(rules: rules)
        _ = machine.storeRead(session)
        return machine
    }

    static func error(_ code: MendError.Code) -> MendError {
        MendError(code: code, developerMessage: "test", catalog: .login)
    }

    func isSignedOut(_ machine: Machine) -> Bool {
        if case .signedOut = machine.state { true } else { false }
    }

    // MARK: Loading

    @Test("The first read of the store reports nothing; a login seen after a sign-out is reported")
    func loading() {
        var machine = Machine(rules: Self.backendRules)
        #expect(machine.needsStoreRead)
        let event1 = machine.storeRead(nil)
        #expect(event1 == nil)
        #expect(isSignedOut(machine) && machine.lastSignOut == nil)
        #expect(machine.needsStoreRead, "a login elsewhere is looked for again")
        let event2 = machine.storeRead(Self.first)
        #expect(event2?.session?.isSameIssue(as: Self.first) == true)
        #expect(!machine.needsStoreRead)

        var fresh = Machine(rules: Self.backendRules)
        let event3 = fresh.storeRead(Self.first)
        #expect(event3 == nil, "the first read is not a sign-in")
        #expect(fresh.session?.isSameIssue(as: Self.first) == true)
        let event4 = fresh.storeRead(Self.otherUser)
        #expect(event4 == nil, "a read that is no longer needed changes nothing")
        #expect(fresh.session?.isSameIssue(as: Self.first) == true)
    }

    @Test("A store that changed: emptied, refreshed elsewhere, another user, or the same issue")
    func storeChanged() {
        var machine = Self.loaded(Self.first)
        let event5 = machine.storeChanged(Self.first)
        #expect(event5 == nil)
        let event6 = machine.storeChanged(Self.refreshed)
        #expect(event6?.name == "refreshed")
        let event7 = machine.storeChanged(Self.otherUser)
        #expect(event7?.name == "signedIn")
        let out = machine.storeChanged(nil)
        #expect(out?.name == "signedOut")
        #expect(machine.lastSignOut?.error == nil && machine.lastSignOut != nil)
        let event8 = machine.storeChanged(nil)
        #expect(event8 == nil)
        let event9 = machine.storeChanged(Self.first)
        #expect(event9?.name == "signedIn")

        var unloaded = Machine(rules: Self.backendRules)
        let event10 = unloaded.storeChanged(nil)
        #expect(event10 == nil)
        #expect(isSignedOut(unloaded))
    }

    // MARK: Tokens and refreshes

    @Test("A token valid for the margin is used; an expired one starts one refresh that later callers join")
    func oneRefresh() throws {
        var valid = Self.loaded(Self.first)
        guard case .token(let token) = valid.tokenRequested(minTTL: 60, now: Self.now) else {
            Issue.record("a valid token was not used")
            return
        }
        #expect(token.tokenString == Self.first.accessToken.tokenString)

        var machine = Self.loaded(Self.expired)
        guard case .refresh(let ticket) = machine.tokenRequested(minTTL: 60, now: Self.now),
            case .refresh(let second) = machine.tokenRequested(minTTL: 60, now: Self.now),
            let third = machine.refreshRequested(now: Self.now)
        else {
            Issue.record("an expired token did not ask for a refresh")
            return
        }
        let started = try #require(ticket.starts)
        #expect(started.start.isSameIssue(as: Self.expired))
        #expect(started.need == .validFor(60))
        #expect(second.id == ticket.id && second.starts == nil)
        #expect(third.id == ticket.id && third.starts == nil, "a forced refresh joins the one in flight")
        let joined1 = machine.wait("a", for: ticket.id)
        let joined2 = machine.wait("b", for: ticket.id)
        #expect(joined1 && joined2)

        let end = machine.refreshEnded(ticket.id, .success(.session(Self.refreshed)))
        #expect(end.event?.name == "refreshed")
        #expect(end.waiters == ["a", "b"])
        #expect(try end.answer.get().isSameIssue(as: Self.refreshed))
        #expect(machine.session?.isSameIssue(as: Self.refreshed) == true)
        let joined3 = machine.wait("late", for: ticket.id)
        #expect(!joined3, "an ended refresh takes no more waiters")
    }

    @Test("A token's margin is capped at half its lifetime: no refresh gives more")
    func cappedMargin() {
        let short = Self.session(age: 0, lifetime: 20)
        #expect(Machine.cappedTTL(60, for: short.accessToken) == 10)
        #expect(Machine.cappedTTL(5, for: short.accessToken) == 5)
        var machine = Self.loaded(short)
        guard case .token = machine.tokenRequested(minTTL: 60, now: Self.now) else {
            Issue.record("a token with its whole short lifetime ahead was refreshed")
            return
        }
    }

    @Test("Nobody signed in: no token and no refresh")
    func nobody() {
        var machine = Self.loaded(nil)
        guard case .nobody = machine.tokenRequested(minTTL: 60, now: Self.now) else {
            Issue.record("a token without a session")
            return
        }
        let forced1 = machine.refreshRequested(now: Self.now)
        #expect(forced1 == nil)
    }

    @Test("A refresh that ends after a sign-in changes nothing; its callers still get its answer")
    func lateRefresh() throws {
        var machine = Self.loaded(Self.expired)
        guard case .refresh(let ticket) = machine.tokenRequested(minTTL: 60, now: Self.now) else {
            Issue.record("no refresh")
            return
        }
        _ = machine.wait("caller", for: ticket.id)
        let event11 = machine.signedIn(Self.otherUser, now: Self.now)
        #expect(event11.name == "signedIn")
        let end = machine.refreshEnded(ticket.id, .success(.session(Self.refreshed)))
        #expect(end.event == nil)
        #expect(end.waiters == ["caller"])
        #expect(machine.session?.isSameIssue(as: Self.otherUser) == true)

        let ended = machine.refreshEnded(ticket.id, .success(.loggedOut))
        #expect(ended.waiters.isEmpty && ended.event == nil, "a refresh ends once")
    }

    @Test("A refresh that finds the store empty signs out as logged out; its callers get login/310")
    func refreshFindsLoggedOut() {
        var machine = Self.loaded(Self.expired)
        guard case .refresh(let ticket) = machine.tokenRequested(minTTL: 60, now: Self.now) else { return }
        _ = machine.wait("caller", for: ticket.id)
        let end = machine.refreshEnded(ticket.id, .success(.loggedOut))
        #expect(end.event?.name == "signedOut")
        #expect(machine.lastSignOut != nil && machine.lastSignOut?.error == nil)
        #expect(throws: MendError.self) { try end.answer.get() }
        if case .failure(let error as MendError) = end.answer { #expect(error.code == .Login.missingAccessToken) }
    }

    @Test("A refresh the issuer ended signs out with its error; a failed one keeps the session for the next try")
    func refreshEndedOrFailed() {
        var machine = Self.loaded(Self.expired)
        guard case .refresh(let ticket) = machine.tokenRequested(minTTL: 60, now: Self.now) else { return }
        let reused = Self.error(.Session.refreshTokenReused)
        let end = machine.refreshEnded(ticket.id, .success(.ended(reused)))
        #expect(end.event?.name == "signedOut")
        #expect(machine.lastSignOut?.error?.code == .Session.refreshTokenReused)

        var failing = Self.loaded(Self.expired)
        guard case .refresh(let first) = failing.tokenRequested(minTTL: 60, now: Self.now) else { return }
        let down = MendError(code: .Transport.cannotConnect, developerMessage: "refused", catalog: .core)
        let failed = failing.refreshEnded(first.id, .failure(down))
        #expect(failed.event == nil)
        #expect(failing.session?.isSameIssue(as: Self.expired) == true, "the session is kept")
        guard case .refresh(let again) = failing.tokenRequested(minTTL: 60, now: Self.now) else {
            Issue.record("no second refresh")
            return
        }
        #expect(again.id != first.id && again.starts != nil, "the next caller starts a new refresh")
    }

    @Test("A refresh of the same issue stays in flight when the store is read again")
    func reloadDuringRefresh() {
        var machine = Self.loaded(Self.expired)
        guard case .refresh(let ticket) = machine.tokenRequested(minTTL: 60, now: Self.now) else { return }
        let event12 = machine.storeChanged(Self.expired)
        #expect(event12 == nil)
        guard case .refresh(let joined) = machine.tokenRequested(minTTL: 60, now: Self.now) else { return }
        #expect(joined.id == ticket.id && joined.starts == nil)
    }

    // MARK: Under the store's lock

    @Test("Under the lock: the store is the truth")
    func underTheLock() throws {
        var machine = Self.loaded(Self.expired)
        guard case .refresh(let ticket) = machine.tokenRequested(minTTL: 60, now: Self.now) else { return }
        let refresh = try #require(ticket.starts)
        func step(_ stored: Session?, _ machine: Machine = machine) -> String {
            switch machine.lockedStep(for: refresh, stored: stored, now: Self.now) {
            case .loggedOut: "loggedOut"
            case .adopt(let session): "adopt \(session.refreshToken ?? "-")"
            case .cannotRefresh: "cannotRefresh"
            case .refresh(let session): "refresh \(session.refreshToken ?? "-")"
            }
        }
        #expect(step(nil) == "loggedOut")
        #expect(step(Self.expired) == "refresh refresh-1")
        #expect(step(Self.refreshed) == "adopt refresh-2", "another process refreshed first")
        // Refreshed elsewhere before this need arose, and too old for it: refreshed again, from what the store holds.
        let stale = Self.session("EAAstaleTokenDDDDDDDDDDDDDDDDD", refresh: "refresh-3", age: 950)
        #expect(step(stale) == "refresh refresh-3")
        #expect(step(Self.session(refresh: nil, age: 1000)) == "cannotRefresh", "no refresh token")
        #expect(step(Self.session(refresh: nil, age: 1000, issuer: .provider)) == "refresh -", "a provider re-exchange")
        let noIssuer = Self.loaded(Self.expired, rules: Machine.Rules(endsSession: nil))
        #expect(step(Self.expired, noIssuer) == "cannotRefresh")
    }

    @Test("A forced refresh adopts only a session refreshed after it was asked for")
    func forcedRefreshUnderTheLock() throws {
        var machine = Self.loaded(Self.first)
        let forced2 = machine.refreshRequested(now: Self.now)
        let ticket = try #require(forced2)
        let refresh = try #require(ticket.starts)
        #expect(refresh.need == .fresh)
        let earlier = Self.session("EAAearlierTokenEEEEEEEEEEEEEEE", refresh: "refresh-4", age: 5)
        guard case .refresh = machine.lockedStep(for: refresh, stored: earlier, now: Self.now) else {
            Issue.record("a session refreshed before the need arose was adopted")
            return
        }
        let later = Self.session("EAAlaterTokenFFFFFFFFFFFFFFFFFF", refresh: "refresh-5", age: -1)
        guard case .adopt = machine.lockedStep(for: refresh, stored: later, now: Self.now) else {
            Issue.record("a session refreshed after the need arose was not adopted")
            return
        }
    }

    // MARK: Rejections, checks, sign-out

    @Test("A rejection of a token already replaced gets the new one; a request that does not renew gets nothing")
    func replaced() {
        var machine = Self.loaded(Self.first)
        let stale = "EAAoldTokenGGGGGGGGGGGGGGGGGGGG"
        guard
            case .replaced(let current) = machine.rejected(
                token: stale, error: Self.error(.Session.accessTokenExpired), now: Self.now)
        else {
            Issue.record("a replaced token was not answered with the current one")
            return
        }
        #expect(current.tokenString == Self.first.accessToken.tokenString)
        #expect(
            machine.invalidated(token: stale, error: Self.error(.Session.loggedOut), now: Self.now) == nil,
            "an old token's rejection signed the current session out")
    }

    @Test("A rejection that ends the session signs out of it, once; one of another session changes nothing")
    func rejectionEnds() {
        var machine = Self.loaded(Self.first)
        let revoked = Self.error(.Session.revoked)
        guard
            case .signOut(let ended) = machine.rejected(
                token: Self.first.accessToken.tokenString, error: revoked, now: Self.now)
        else {
            Issue.record("session/17 did not sign out")
            return
        }
        let event13 = machine.ended(Self.otherUser, because: .tokenRejected(revoked))
        #expect(event13 == nil)
        let event14 = machine.ended(ended, because: .tokenRejected(revoked))
        #expect(event14?.name == "signedOut")
        #expect(machine.lastSignOut?.error?.code == .Session.revoked)
        let event15 = machine.ended(ended, because: .tokenRejected(revoked))
        #expect(event15 == nil)
    }

    @Test("An expired token's rejection starts a refresh; a timeout on a request that does not renew is thrown")
    func rejectionRefreshes() {
        var machine = Self.loaded(Self.first)
        let token = Self.first.accessToken.tokenString
        guard
            case .refresh(let ticket) = machine.rejected(
                token: token, error: Self.error(.Session.accessTokenExpired), now: Self.now)
        else {
            Issue.record("no refresh")
            return
        }
        #expect(ticket.starts?.need == .fresh)
        let other = Self.loaded(Self.first)
        let timeout = MendError(code: .Transport.timedOut, developerMessage: "slow", catalog: .core)
        #expect(other.invalidated(token: token, error: timeout, now: Self.now) == nil, "a timeout signed out")
        // The same request's rejection for a reason that ends the session signs out of it, and starts nothing.
        let ended = other.invalidated(token: token, error: Self.error(.Session.revoked), now: Self.now)
        #expect(ended?.isSameIssue(as: Self.first) == true)
        #expect(other.session?.isSameIssue(as: Self.first) == true)
    }

    @Test("A validity check is due when forced, never made, or older than the interval")
    func validityChecks() {
        var machine = Machine(rules: Machine.Rules(endsSession: nil, validityCheckInterval: 100))
        #expect(machine.validityCheckDue(force: false, now: Self.now))
        _ = machine.signedIn(Self.first, now: Self.now)
        #expect(!machine.validityCheckDue(force: false, now: Self.now.addingTimeInterval(99)))
        #expect(machine.validityCheckDue(force: true, now: Self.now))
        #expect(machine.validityCheckDue(force: false, now: Self.now.addingTimeInterval(100)))
        machine.validityConfirmed(at: Self.now.addingTimeInterval(100))
        #expect(!machine.validityCheckDue(force: false, now: Self.now.addingTimeInterval(150)))
        _ = machine.loggedOut(hadSession: true)
        #expect(machine.validityCheckDue(force: false, now: Self.now.addingTimeInterval(150)), "a sign-out forgets")
    }

    @Test("A logout reports a sign-out only when someone was signed in")
    func logout() {
        var machine = Self.loaded(nil)
        let event16 = machine.loggedOut(hadSession: false)
        #expect(event16 == nil)
        var signedIn = Self.loaded(Self.first)
        let event17 = signedIn.loggedOut(hadSession: true)
        #expect(event17?.name == "signedOut")
        #expect(signedIn.session == nil && signedIn.needsStoreRead)
    }
}

extension SessionEvent {
    /// The case's name, for comparisons.
    var name: String {
        switch self {
        case .signedIn: "signedIn"
        case .refreshed: "refreshed"
        case .signedOut: "signedOut"
        }
    }

    /// The session it carries, if any.
    var session: Session? {
        switch self {
        case .signedIn(let session), .refreshed(let session): session
        case .signedOut: nil
        }
    }
}
