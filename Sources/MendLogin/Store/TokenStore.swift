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
    /// The lock must exclude **every** writer of the stored session: what a holder read under it is what the store
    /// holds until the holder writes (the credentials manager reads once, refreshes, and writes without reading
    /// again). Re-entrant within the task that holds it. A store without a lock of its own can use a ``StoreLock``.
    func withExclusiveAccess<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result
}

extension MendError {
    /// A `login/320` error: the store is unavailable (retryable, not "logged out").
    static func storeUnavailable(_ detail: String) -> MendError {
        MendError(
            code: .Login.tokenStoreUnavailable, developerMessage: "The token store is unavailable: \(detail).",
            catalog: .login)
    }

    /// `login/324`: the store's folder is the setup's problem (it cannot be created or written, or others can write
    /// to it); `detail` names the folder and the system's reason.
    static func storeMisconfigured(_ detail: String) -> MendError {
        MendError(
            code: .Login.tokenStoreMisconfigured, developerMessage: "The token store cannot be used: \(detail).",
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
