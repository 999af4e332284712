import Foundation
import MendCore

/// Makes re-authentication single-flight: any number of concurrent rejections of one credential cause exactly one
/// call to ``CredentialProvider/refreshCredential(rejected:)``, and every waiter gets its result.
actor ReauthenticationCoordinator {
    private let provider: any CredentialProvider
    private var inFlight: (rejected: Credential, task: Task<Credential, any Error>)?
    /// The last refresh: a rejection of a credential older than this one is answered with it, without refreshing.
    private var lastRefresh: (rejected: Credential, result: Credential)?

    init(provider: any CredentialProvider) {
        self.provider = provider
    }

    /// A credential to replay with after `rejected` was refused.
    func freshCredential(after rejected: Credential, error: MendError) async throws -> Credential {
        if let lastRefresh, lastRefresh.rejected == rejected {
            return lastRefresh.result
        }
        if let inFlight, inFlight.rejected == rejected {
            return try await inFlight.task.value
        }
        let provider = self.provider
        let task = Task {
            await provider.invalidate(rejected, because: error)
            return try await provider.refreshCredential(rejected: rejected, error: error)
        }
        inFlight = (rejected, task)
        defer { if inFlight?.rejected == rejected { inFlight = nil } }
        let result = try await task.value
        lastRefresh = (rejected, result)
        return result
    }

    /// How many refreshes are running (for tests).
    var isRefreshing: Bool { inFlight != nil }
}
