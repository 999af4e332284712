public import Foundation
public import MendCore

/// Where a session is kept between launches.
///
/// Every operation can throw: a store that cannot be read (a locked keychain, an unreadable file) throws
/// `login/320` (`MendError.Code.Login.tokenStoreUnavailable`), which is retryable and
/// never means "logged out" — only ``read()`` returning `nil` does.
public protocol TokenStore: Sendable {
    /// The stored session, or `nil` when nobody is logged in.
    func read() async throws -> Session?
    /// Replaces the stored session.
    func write(_ session: Session) async throws
    /// Removes the stored session.
    func delete() async throws
    /// Runs `body` while holding the store's lock — across processes where the store is shared between processes
    /// (a file, a Keychain item an app shares with its extensions), and always across the managers and tasks of this
    /// process — so that no two refreshes, logins or logouts of one stored session ever overlap.
    ///
    /// Re-entrant within the task that holds it. A store without a lock of its own can use a ``StoreLock``.
    func withExclusiveAccess<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result
    /// Compare-and-swap: writes `session` only if the store still holds `expected` (`nil`: holds nothing), and says
    /// whether it wrote. Call it inside ``withExclusiveAccess(_:)``.
    ///
    /// The default reads, compares with ``Session/isSameIssue(as:)`` and writes.
    func write(_ session: Session, replacing expected: Session?) async throws -> Bool
}

extension TokenStore {
    /// Reads, compares with ``Session/isSameIssue(as:)``, and writes only when the store holds `expected`.
    public func write(_ session: Session, replacing expected: Session?) async throws -> Bool {
        let stored = try await read()
        switch (stored, expected) {
        case (nil, nil): break
        case (let stored?, let expected?) where stored.isSameIssue(as: expected): break
        default: return false
        }
        try await write(session)
        return true
    }
}

extension MendError {
    /// A `login/320` error: the store is unavailable (retryable, not "logged out").
    static func storeUnavailable(_ detail: String) -> MendError {
        MendError(
            code: .Login.tokenStoreUnavailable, developerMessage: "The token store is unavailable: \(detail).",
            catalog: .login)
    }
}

/// A store in memory, for tests and for apps that log in every launch.
///
/// Managers that share one instance exclude each other as managers sharing a file do (``withExclusiveAccess(_:)``
/// is a lock of this instance's own), so they converge on one session.
public actor InMemoryTokenStore: TokenStore {
    private var session: Session?
    private nonisolated let lock = StoreLock(owning: AsyncLock())

    /// Creates a store, optionally holding a session.
    public init(_ session: Session? = nil) { self.session = session }

    /// Runs `body` while holding this store's lock.
    public nonisolated func withExclusiveAccess<Result: Sendable>(
        _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        try await lock.withLock(body)
    }

    /// The session.
    public func read() async throws -> Session? { session }
    /// Replaces the session.
    public func write(_ session: Session) async throws { self.session = session }
    /// Removes the session.
    public func delete() async throws { session = nil }
}
