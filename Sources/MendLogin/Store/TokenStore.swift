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
    /// Runs `body` while holding the store's lock across processes, so that two processes never refresh or write
    /// at once. Stores without processes to coordinate run `body` directly.
    func withExclusiveAccess<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result
}

extension TokenStore {
    /// Runs `body` directly.
    public func withExclusiveAccess<Result: Sendable>(
        _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        try await body()
    }
}

extension MendError {
    /// A `login/320` error: the store is unavailable (retryable, not "logged out").
    static func storeUnavailable(_ detail: String) -> MendError {
        MendError(code: .Login.tokenStoreUnavailable, developerMessage: "The token store is unavailable: \(detail).")
    }
}

/// A store in memory, for tests and for apps that log in every launch.
public actor InMemoryTokenStore: TokenStore {
    private var session: Session?

    /// Creates a store, optionally holding a session.
    public init(_ session: Session? = nil) { self.session = session }

    /// The session.
    public func read() async throws -> Session? { session }
    /// Replaces the session.
    public func write(_ session: Session) async throws { self.session = session }
    /// Removes the session.
    public func delete() async throws { session = nil }
}
