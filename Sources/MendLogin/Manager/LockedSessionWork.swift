import Foundation
import MendCore
import MendHTTP

/// What a ``CredentialsManager`` does under the store's lock (``TokenStore/withExclusiveAccess(_:)``), which excludes
/// the other managers of this process and, for a file or a shared Keychain item, other processes: each operation reads
/// the store first (the truth: another manager or process may have refreshed, logged out or logged in) and decides as
/// ``SessionStateMachine`` says. The manager applies the outcome to its state.
struct LockedSessionWork: Sendable {
    let store: any TokenStore
    let authority: (any SessionAuthority)?
    /// Hears each refresh that goes to the issuer.
    let observer: (any PipelineObserver)?
    let clock: PipelineClock

    /// Runs `refresh` to its outcome, each step as `machine` (the manager's, when the refresh started) says: adopts what the store holds, or asks the issuer and writes the result — or
    /// deletes the session when the issuer's answer ends it. One read and one write of the store per refresh; the
    /// lock excludes every other writer, so the store still holds what the refresh started from when it writes.
    ///
    /// - Throws: `session/18` when nothing can refresh the stored session; the issuer's error when its answer does
    ///   not end the session (a transient failure: the session is kept); `login/320` when the store fails.
    func run(
        _ refresh: SessionStateMachine<CredentialsManager.Waiter>.Refresh,
        deciding machine: SessionStateMachine<CredentialsManager.Waiter>
    ) async throws -> SessionStateMachine<CredentialsManager.Waiter>.RefreshOutcome {
        try await store.withExclusiveAccess {
            switch machine.lockedStep(for: refresh, stored: try await store.read(), now: clock.now()) {
            case .loggedOut: return .loggedOut
            case .adopt(let stored): return .session(stored)
            case .cannotRefresh:
                throw MendError.login(
                    .Session.notRefreshable, "The session expired and nothing can refresh it: log in again.")
            case .refresh(let base):
                guard let authority else { preconditionFailure("the machine refreshes only with an issuer") }
                do {
                    let fresh =
                        if let observer {
                            try await observer.observeRefresh { try await authority.refresh(base) }
                        } else {
                            try await authority.refresh(base)
                        }
                    try await store.write(fresh)
                    return .session(fresh)
                } catch let error as MendError {
                    guard machine.refreshFailedEndsSession(error, base: base, now: clock.now()) else { throw error }
                    try await store.delete()  // still `base`, under the same lock
                    return .ended(error)
                }
            }
        }
    }

    /// Stores a login's session: exchanges `code` at `authority`, refuses another user than the stored one when
    /// `sameUser` (a re-authentication: `login/304`, nothing stored), and writes the session.
    func signIn(
        exchanging code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?,
        at authority: (any SessionAuthority)?, sameUser: Bool
    ) async throws -> Session {
        guard let authority = authority ?? self.authority else {
            throw MendError.login(
                .Login.unknown,
                "This LoginManager's CredentialsManager has no SessionAuthority to exchange the code with: create it "
                    + "with CredentialsManager(store:authority:).")
        }
        let session = try await authority.exchange(
            code: code, transaction: transaction, granted: granted, denied: denied)
        // The check and the write under one lock: no other process's login slips in between.
        try await store.withExclusiveAccess {
            if sameUser, let current = try? await store.read()?.user?.id, let new = session.user?.id, current != new {
                throw MendError.login(.Login.userMismatch, "The re-authentication logged in a different user.")
            }
            try await store.write(session)
        }
        return session
    }

    /// Ends the stored session (or `cached`, when the store holds none) at the issuer when `revoke`, with whatever
    /// credential still works, then clears the store — locally always, even when revocation fails.
    func logout(cached: Session?, revoke: Bool) async throws -> LogoutOutcome {
        try await store.withExclusiveAccess {
            var outcome = LogoutOutcome(revoked: false, revocationError: nil)
            guard let stored = try await store.read() ?? cached else { return outcome }
            if revoke, let authority {
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
    }

    /// Deletes the stored session if it is still `ended` (another process may have replaced it).
    func delete(ifStill ended: Session) async throws {
        try await store.withExclusiveAccess {
            if let stored = try await store.read(), stored.isSameIssue(as: ended) { try await store.delete() }
        }
    }
}
