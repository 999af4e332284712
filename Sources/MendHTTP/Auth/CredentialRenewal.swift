import MendCore

/// One renewal for any number of concurrent rejections of a credential: the single flight a
/// ``CredentialProvider`` shares its refresh or login through.
///
/// Every request rejected with the same credential calls ``renew(after:_:)``; the first starts `renewal`, the others
/// wait for its result. A rejection of the credential the last renewal replaced is answered with that renewal's
/// result at once, without renewing again. A renewal that fails fails its waiters and is forgotten, so the next
/// rejection tries again. The renewal runs to its end even when every waiter is cancelled (a waiter that is cancelled
/// stops waiting).
///
/// ```swift
/// struct AppTokens: CredentialProvider {
///     let renewal = CredentialRenewal()
///     func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
///         try await renewal.renew(after: rejected) { try await refreshAtMyServer() }
///     }
///     …
/// }
/// ```
public actor CredentialRenewal {
    private var inFlight: (rejected: Credential, task: Task<Credential, any Error>)?
    private var last: (rejected: Credential, result: Credential)?

    /// Creates an idle renewal.
    public init() {}

    /// The credential that replaces `rejected`: the result of the renewal in flight for it, of the last one, or of
    /// `renewal`, started now.
    public func renew(
        after rejected: Credential, _ renewal: @escaping @Sendable () async throws -> Credential
    ) async throws -> Credential {
        if let last, last.rejected == rejected { return last.result }
        if let inFlight, inFlight.rejected == rejected { return try await inFlight.task.value }
        let task = Task { try await renewal() }
        inFlight = (rejected, task)
        defer { if inFlight?.task == task { inFlight = nil } }
        let result = try await task.value
        last = (rejected, result)
        return result
    }
}
