import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP

/// Records every wait instead of waiting.
final class SleepRecorder: Sendable {
    private let waits = Locked<[Duration]>([])
    var recorded: [Duration] { waits.withLock { $0 } }

    var sleep: @Sendable (Duration) async throws -> Void {
        { duration in
            try Task.checkCancellation()
            self.waits.withLock { $0.append(duration) }
        }
    }
}

let testNow = Date(timeIntervalSince1970: 1_800_000_000)
let apiURL = URL(string: "https://api.example/v1/items/1")!

func makeClient(
    _ transport: InMemoryTransport, sleeper: SleepRecorder = SleepRecorder(), provider: (any CredentialProvider)? = nil,
    policy: RetryPolicy = RetryPolicy(maximumAttempts: 3), decoder: any ErrorDecoder = HTTPStatusErrorDecoder(),
    logging: LoggingBehaviors = [], capture: LogCapture? = nil, limit: Int = 10 << 20, reauthentication: Bool = true
) -> APIClient {
    // Re-authentication switched off for the whole client: no error counts as a rejected credential.
    let isRejection: @Sendable (MendError) -> Bool = { error in
        reauthentication && AuthorizationStep.isAuthenticationRejection(error)
    }
    let clock = PipelineClock(sleep: sleeper.sleep, now: { testNow }, random: { 0.5 })
    return APIClient(
        transport: transport,
        configuration: .init(errorDecoder: decoder, maximumResponseBodySize: limit, clock: clock),
        steps: .standard(
            credentialProvider: provider, isCredentialRejection: isRejection, retryPolicy: policy,
            retryBudget: RetryBudget(configuration: .unlimited), logging: logging),
        logger: capture?.logger() ?? .init(label: "test", factory: { _ in SwiftLogNoOpLogHandlerShim() }))
}

typealias SwiftLogNoOpLogHandlerShim = SwiftLogNoOpLogHandler

/// A provider whose token changes on every refresh, counting refreshes; written as an app would, sharing its refresh
/// among concurrent rejections through `CredentialRenewal`.
final class RotatingProvider: CredentialProvider {
    let refreshes = Locked<Int>(0)
    let current = Locked<Credential>(Credential(token: "EAAtokenAAAAAAAAAAAAAAAAA1", placement: .bearerHeader))
    let failure: MendError?
    let placement: Credential.Placement
    /// The refresh does not finish before this says so (a test waits for every request to be rejected first).
    let holdUntil: @Sendable () -> Bool
    let renewal = CredentialRenewal()

    init(
        failure: MendError? = nil, placement: Credential.Placement = .bearerHeader,
        holdUntil: @escaping @Sendable () -> Bool = { true }
    ) {
        self.failure = failure
        self.placement = placement
        self.holdUntil = holdUntil
        current.withLock { $0 = Credential(token: "EAAtokenAAAAAAAAAAAAAAAAA1", placement: placement) }
    }

    func currentCredential() async throws -> Credential? { current.withLock { $0 } }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        try await renewal.renew(after: rejected) { try await self.rotate() }
    }

    private func rotate() async throws -> Credential {
        refreshes.withLock { $0 += 1 }
        // Let every concurrent request reach the renewal before the refresh completes.
        for _ in 0..<50 { await Task.yield() }
        while !holdUntil() { await Task.yield() }
        for _ in 0..<50 { await Task.yield() }
        if let failure { throw failure }
        return current.withLock { credential in
            credential = Credential(token: "EAAtokenBBBBBBBBBBBBBBBBB2", placement: placement)
            return credential
        }
    }
}
