public import Foundation
public import MendCore

/// Decides whether, and when, a failed request is tried again. A pure function of its inputs.
///
/// A request is retried only when all of these hold:
/// - the error is `transient` and the catalog allows automatic retries for it (a policy block of hours does not);
/// - the request is safe to repeat: an idempotent method, an idempotency key, an explicit opt-in, or a failure that
///   proves the server never processed it (the connection was never made, or a 429);
/// - attempts remain (`maximumAttempts` counts the first try);
/// - the retry budget has a token;
/// - the wait fits before the deadline, and is no longer than `maximumHintedWait` when the server asked for it.
///
/// The wait is the backoff delay (full jitter), or the server's hint (`Retry-After`, usage headers) when that is
/// later.
public struct RetryPolicy: Sendable, Hashable {
    /// The most tries of one request, the first included.
    package var maximumAttempts: Int
    /// The backoff between tries.
    package var backoff: Backoff
    /// The longest server-requested wait the pipeline sits out; a longer one is returned to the caller as is.
    package var maximumHintedWait: Duration

    /// Creates a policy.
    public init(maximumAttempts: Int = 3, backoff: Backoff = Backoff(), maximumHintedWait: Duration = .seconds(60)) {
        self.maximumAttempts = maximumAttempts
        self.backoff = backoff
        self.maximumHintedWait = maximumHintedWait
    }

    /// Never retries.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// What the policy decided.
    package enum Decision: Sendable, Hashable {
        /// Wait this long, then try again.
        case retry(after: Duration)
        /// Give up, for this reason.
        case giveUp(GiveUpReason)
    }

    /// Why the policy gave up.
    package enum GiveUpReason: String, Sendable, Hashable {
        /// The error is not transient, or the catalog forbids automatic retries for it.
        case notRetryable
        /// The request is not safe to repeat.
        case notIdempotent
        /// All attempts are used.
        case attemptsExhausted
        /// The retry budget is empty (an outage must not multiply the load).
        case budgetExhausted
        /// The wait would pass the deadline.
        case deadlineExceeded
        /// The server asked for a longer wait than the policy sits out.
        case waitTooLong
    }

    /// The facts one decision depends on.
    package struct Situation: Sendable {
        /// The classified error of the last try.
        package var error: MendError
        /// How many tries were made so far (≥ 1).
        package var attempts: Int
        /// Whether the request may be repeated (idempotent, keyed, or opted in).
        package var isRepeatable: Bool
        /// The current time.
        package var now: Date
        /// The time left before the request's deadline, if it has one.
        package var remaining: Duration?
        /// Whether the retry budget can pay for one more retry.
        package var budgetAvailable: Bool
        /// A uniform random number in `0 ..< 1` for the jitter.
        package var unitRandom: Double

        /// Creates a situation.
        package init(
            error: MendError, attempts: Int, isRepeatable: Bool, now: Date, remaining: Duration? = nil,
            budgetAvailable: Bool = true, unitRandom: Double
        ) {
            self.error = error
            self.attempts = attempts
            self.isRepeatable = isRepeatable
            self.now = now
            self.remaining = remaining
            self.budgetAvailable = budgetAvailable
            self.unitRandom = unitRandom
        }
    }

    /// Decides.
    package func decide(_ situation: Situation) -> Decision {
        let error = situation.error
        guard error.category == .transient, error.isAutomaticallyRetryable else { return .giveUp(.notRetryable) }
        guard situation.isRepeatable || Self.provesNotProcessed(error) else { return .giveUp(.notIdempotent) }
        guard situation.attempts < maximumAttempts else { return .giveUp(.attemptsExhausted) }
        var delay = backoff.delay(forRetry: situation.attempts, unitRandom: situation.unitRandom)
        if let notBefore = error.recovery.notBefore {
            let hinted = Duration.seconds(max(0, notBefore.timeIntervalSince(situation.now)))
            guard hinted <= maximumHintedWait else { return .giveUp(.waitTooLong) }
            delay = max(delay, hinted)
        }
        if let remaining = situation.remaining, delay >= remaining { return .giveUp(.deadlineExceeded) }
        guard situation.budgetAvailable else { return .giveUp(.budgetExhausted) }
        return .retry(after: delay)
    }

    /// Failures that prove the server never processed the request, so that even a POST may be repeated.
    static func provesNotProcessed(_ error: MendError) -> Bool {
        switch error.code {
        case .Transport.cannotConnect, .Transport.cannotFindHost, .Transport.notConnected, .HTTP.tooManyRequests:
            true
        default:
            false
        }
    }
}
