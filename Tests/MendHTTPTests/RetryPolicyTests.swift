import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendGraphAPI
import MendHTTP
import Testing

@Suite("Retry policy (a pure function)")
struct RetryPolicyTests {
    @Test(
        "Backoff ceilings double from the base and stop at the cap",
        arguments: [
            (1, 0.2), (2, 0.4), (3, 0.8), (4, 1.6), (5, 3.2), (6, 6.4), (7, 12.8), (8, 20.0), (40, 20.0), (200, 20.0),
        ])
    func ceilings(retry: Int, seconds: Double) {
        let backoff = Backoff(base: .milliseconds(200), cap: .seconds(20))
        #expect(abs(backoff.ceiling(forRetry: retry).seconds - seconds) < 1e-9)
    }

    @Test("Full jitter spans zero to the ceiling", arguments: [(0.0, 0.0), (0.5, 0.4), (0.999, 0.7992), (7.0, 0.8)])
    func jitter(unitRandom: Double, seconds: Double) {
        let delay = Backoff(base: .milliseconds(200), cap: .seconds(20)).delay(forRetry: 3, unitRandom: unitRandom)
        #expect(abs(delay.seconds - seconds) < 1e-9)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func situation(
        _ code: MendError.Code, subcode: MendError.Subcode? = nil, attempts: Int = 1, repeatable: Bool = true,
        notBefore: TimeInterval? = nil, remaining: Duration? = nil, budget: Bool = true
    ) -> RetryPolicy.Situation {
        var error = MendError(code: code, subcode: subcode, catalog: .everyClientSpace)
        error.notBefore = notBefore.map { now.addingTimeInterval($0) }
        return RetryPolicy.Situation(
            error: error, attempts: attempts, isRepeatable: repeatable, now: now, remaining: remaining,
            budgetAvailable: budget, unitRandom: 0.5)
    }

    @Test(
        "Decisions",
        arguments: [
            (situation(.HTTP.serviceUnavailable), RetryPolicy.Decision.retry(after: .milliseconds(100))),
            (situation(.HTTP.serviceUnavailable, attempts: 2), .retry(after: .milliseconds(200))),
            (situation(.HTTP.serviceUnavailable, attempts: 3), .giveUp(.attemptsExhausted)),
            (situation(.HTTP.badRequest), .giveUp(.notRetryable)),
            (situation(.Graph.accessTokenInvalid, subcode: .tokenExpired), .giveUp(.notRetryable)),
            (situation(.Graph.temporarilyBlocked), .giveUp(.notRetryable)),
            (situation(.HTTP.serviceUnavailable, repeatable: false), .giveUp(.notIdempotent)),
            (situation(.Transport.cannotConnect, repeatable: false), .retry(after: .milliseconds(100))),
            (situation(.HTTP.tooManyRequests, repeatable: false), .retry(after: .milliseconds(100))),
            (situation(.Transport.connectionLost, repeatable: false), .giveUp(.notIdempotent)),
            (situation(.HTTP.serviceUnavailable, notBefore: 30), .retry(after: .seconds(30))),
            (situation(.HTTP.serviceUnavailable, notBefore: -5), .retry(after: .milliseconds(100))),
            (situation(.HTTP.serviceUnavailable, notBefore: 61), .giveUp(.waitTooLong)),
            (situation(.HTTP.serviceUnavailable, notBefore: 30, remaining: .seconds(10)), .giveUp(.deadlineExceeded)),
            (situation(.HTTP.serviceUnavailable, remaining: .milliseconds(50)), .giveUp(.deadlineExceeded)),
            (situation(.HTTP.serviceUnavailable, budget: false), .giveUp(.budgetExhausted)),
            (situation(.Graph.appRateLimit, notBefore: 300), .giveUp(.waitTooLong)),
            (situation(.Graph.unknown), .retry(after: .milliseconds(100))),
        ] as [(RetryPolicy.Situation, RetryPolicy.Decision)])
    func decisions(situation: RetryPolicy.Situation, expected: RetryPolicy.Decision) {
        let policy = RetryPolicy(maximumAttempts: 3, backoff: Backoff(base: .milliseconds(200), cap: .seconds(20)))
        switch (policy.decide(situation), expected) {
        case (.retry(let actual), .retry(let wanted)):
            #expect(abs(actual.seconds - wanted.seconds) < 1e-6, "\(situation.error.shortDescription)")
        case (let actual, let wanted):
            #expect(actual == wanted, "\(situation.error.shortDescription)")
        }
    }

    @Test("is_transient makes an otherwise permanent Graph error retryable")
    func isTransient() {
        var situation = Self.situation(.Graph.invalidParameter)
        situation.error = MendError(code: .Graph.invalidParameter, isTransient: true, catalog: .everyClientSpace)
        #expect(RetryPolicy().decide(situation) == .retry(after: .milliseconds(100)))
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
