import Foundation
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendTesting

/// Records waits instead of waiting, so that throttles and backoff cost no time in tests.
final class Waits: Sendable {
    private let recorded = Locked<[Duration]>([])
    var all: [Duration] { recorded.withLock { $0 } }
    var sleep: @Sendable (Duration) async throws -> Void {
        { duration in
            try Task.checkCancellation()
            self.recorded.withLock { $0.append(duration) }
        }
    }
}

/// The app's tokens, as a `CredentialProvider` written with public API: a fixed token that a rejection renews by
/// "logging in again" (asking the emulator for a fresh token) — once for any number of concurrent rejections
/// (`CredentialRenewal`) — counting the logins.
final class EmulatorLogin: CredentialProvider {
    let emulator: RunningEmulator
    let tokens: StaticCredential
    let calls = Locked<Int>(0)
    let succeeds: Bool
    let renewal = CredentialRenewal()

    init(emulator: RunningEmulator, tokens: StaticCredential, succeeds: Bool = true) {
        self.emulator = emulator
        self.tokens = tokens
        self.succeeds = succeeds
    }

    func currentCredential() async throws -> Credential? { try await tokens.currentCredential() }

    func invalidate(_ credential: Credential, because error: MendError) async {
        await tokens.invalidate(credential, because: error)
    }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        try await renewal.renew(after: rejected) {
            self.calls.withLock { $0 += 1 }
            guard self.succeeds, let token = try? await self.emulator.token() else { throw error }
            self.tokens.set(Credential(token: token))
            return Credential(token: token)
        }
    }
}

func graphClient(
    _ emulator: RunningEmulator, tokens: StaticCredential?, attempter: EmulatorLogin? = nil,
    waits: Waits = Waits(), recovery: Bool = true, limit: Int = 10 << 20
) -> GraphClient {
    let configuration = GraphClient.Configuration(
        graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion,
        appID: emulator.emulator.configuration.defaultApp.id, maximumResponseBodySize: limit,
        clock: PipelineClock(sleep: waits.sleep))
    // Recovery off, as an app turns it off: a fixed token and no retries (a token error only clears the token).
    let credentials: (any CredentialProvider)? = (recovery ? attempter : nil) ?? tokens
    return GraphClient(
        transport: AsyncHTTPClientTransport(), configuration: configuration,
        steps: .graph(
            for: configuration, credentials: credentials,
            retryPolicy: recovery ? RetryPolicy(maximumAttempts: 3) : .never))
}

/// A decodable profile.
struct Profile: Decodable, Sendable, Equatable {
    var id: String
    var name: String?
}

/// A decodable post.
struct Post: Decodable, Sendable, Hashable {
    var id: String
    var message: String?
}
