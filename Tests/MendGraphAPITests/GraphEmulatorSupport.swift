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

/// An attempter that "logs in again" by asking the emulator for a fresh token, counting its calls.
final class EmulatorLogin: ErrorRecoveryAttempter {
    let emulator: RunningEmulator
    let tokens: StaticGraphToken
    let calls = Locked<Int>(0)
    let succeeds: Bool

    init(emulator: RunningEmulator, tokens: StaticGraphToken, succeeds: Bool = true) {
        self.emulator = emulator
        self.tokens = tokens
        self.succeeds = succeeds
    }

    func attemptRecovery(from error: MendError, optionIndex: Int) async -> Bool {
        calls.withLock { $0 += 1 }
        guard succeeds, let token = try? await emulator.token() else { return false }
        await tokens.set(token)
        return true
    }
}

func graphClient(
    _ emulator: RunningEmulator, tokens: StaticGraphToken?, attempter: (any ErrorRecoveryAttempter)? = nil,
    waits: Waits = Waits(), recovery: Bool = true, limit: Int = 10 << 20
) -> GraphClient {
    let configuration = GraphClient.Configuration(
        graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion,
        appID: emulator.emulator.configuration.defaultApp.id, maximumResponseBodySize: limit)
    // Recovery off, as an app turns it off: no attempter and no retries (a token error only clears the token).
    return GraphClient(
        transport: AsyncHTTPClientTransport(), configuration: configuration,
        steps: .graph(
            for: configuration, tokens: tokens, recoveryAttempter: recovery ? attempter : nil,
            retryPolicy: recovery ? RetryPolicy(maximumAttempts: 3) : .never, clock: PipelineClock(sleep: waits.sleep)))
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
