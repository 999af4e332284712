public import Foundation
import HTTPTypes
public import Logging
import MendCore

/// Per-request state that every middleware of one `send` shares.
public final class PipelineContext: Sendable {
    /// The client's logger.
    public let logger: Logger
    /// The client's clock: every step waits and reads the time through it.
    package let clock: PipelineClock
    /// When the whole request must be done (on ``clock``), if it has a deadline.
    package let deadline: Date?
    /// What the client's observer hears of this request (`nil` when nobody observes).
    package let observation: (any RequestObservation)?
    private let attemptCount = Locked<Int>(0)

    init(logger: Logger, clock: PipelineClock, deadline: Date?, observation: (any RequestObservation)? = nil) {
        self.logger = logger
        self.clock = clock
        self.deadline = deadline
        self.observation = observation
    }

    /// How many times the request has been handed to the transport so far.
    package var attempts: Int { attemptCount.current }

    /// Counts one more try and returns the new count.
    @discardableResult
    func recordAttempt() -> Int {
        attemptCount.withLock { count in
            count += 1
            return count
        }
    }

    /// The time left before the deadline on `clock` (`nil` when there is none; zero or less when it passed).
    public var remaining: Duration? {
        deadline.map { .seconds($0.timeIntervalSince(clock.now())) }
    }
}
