public import Foundation
public import HTTPTypes
public import Logging
public import MendCore

/// Holds requests to a throttled key (an app, a business, a host) until the throttle's wait has passed, because
/// calling while throttled extends the throttle.
public final class RateLimitGate: Sendable {
    /// A throttle in force.
    package struct Hold: Sendable {
        /// Until when requests to the key wait.
        package var until: Date
        /// The error that started the hold.
        package var error: MendError
    }

    private let holds = Locked<[String: Hold]>([:])

    /// Creates an open gate.
    public init() {}

    /// Whether any key is held (a request to an open gate skips naming its key and reading the clock).
    package var isHolding: Bool { holds.withLock { !$0.isEmpty } }

    /// The hold on `key` at `now`, if one is in force.
    package func hold(for key: String, now: Date) -> Hold? {
        holds.withLock { holds in
            guard let hold = holds[key] else { return nil }
            if hold.until <= now {
                holds[key] = nil
                return nil
            }
            return hold
        }
    }

    /// Holds `key` until `until` (a later existing hold is kept).
    package func close(_ key: String, until: Date, because error: MendError) {
        holds.withLock { holds in
            if let existing = holds[key], existing.until >= until { return }
            holds[key] = Hold(until: until, error: error)
        }
    }

    /// Lifts every hold.
    package func reset() {
        holds.withLock { $0.removeAll() }
    }
}

/// The rate-limit step: waits out a hold on the request's key before sending; closes the gate when a throttling
/// error comes back.
///
/// A hold longer than `maximumWait` (or than the request's deadline) is not waited out: the request fails at once
/// with the throttle's error.
package struct RateLimitGateStep: ClientMiddleware {
    let gate: RateLimitGate
    let key: @Sendable (APIRequest) -> String
    let defaultWait: Duration
    let maximumWait: Duration
    let behaviors: LoggingBehaviors

    /// Creates the step. It waits and reads the time on the client's clock.
    ///
    /// - Parameters:
    ///   - gate: The holds (share one gate across the requests of one API).
    ///   - key: The bucket of a request that names none (default: its host).
    ///   - defaultWait: How long to hold a throttled key when the server gave no wait.
    ///   - maximumWait: The longest hold waited out (the retry policy's ``RetryPolicy/maximumHintedWait``).
    ///   - logging: Logs each hold when it contains ``LoggingBehaviors/rateLimits``.
    package init(
        gate: RateLimitGate = RateLimitGate(),
        key: @escaping @Sendable (APIRequest) -> String = { $0.head.authority ?? "" },
        defaultWait: Duration = .seconds(1), maximumWait: Duration = .seconds(60), logging: LoggingBehaviors = []
    ) {
        self.gate = gate
        self.key = key
        self.defaultWait = defaultWait
        self.maximumWait = maximumWait
        self.behaviors = logging
    }

    /// Holds, sends, and closes the gate on a throttle.
    package nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        let clock = context.clock
        if gate.isHolding, case let key = request.options.rateLimitKey ?? self.key(request),
            let hold = gate.hold(for: key, now: clock.now())
        {
            let wait = Duration.seconds(max(0, hold.until.timeIntervalSince(clock.now())))
            let deadlinePassesFirst = context.remaining.map { wait >= $0 } ?? false
            if deadlinePassesFirst || wait > maximumWait {
                // Waiting would pass the deadline, or be longer than any hinted wait the retry policy accepts (a
                // `Retry-After: 86400` must not hold every later request for a day): return the throttle at once,
                // without calling into it; its `notBefore` says when the key opens.
                var error = hold.error
                error.notBefore = hold.until
                error.developerMessage =
                    "Not sent: \(key) is rate limited until the throttle passes. " + error.developerMessage
                throw error
            }
            if behaviors.contains(.rateLimits) {
                context.logger.debug(
                    "Holding a request while rate limited", metadata: ["key": "\(key)", "wait": "\(wait)"])
            }
            context.observation?.waiting(PipelineWait(reason: .rateLimitHold, duration: wait, error: hold.error))
            try await clock.sleep(wait)
        }
        do {
            return try await next(request, context: context)
        } catch let error as MendError where error.recovery.action == .waitForRateLimit {
            let key = request.options.rateLimitKey ?? self.key(request)
            let until =
                error.recovery.notBefore
                ?? clock.now().addingTimeInterval(defaultWait.seconds)
            gate.close(key, until: until, because: error)
            if behaviors.contains(.rateLimits) {
                context.logger.debug("Rate limited: holding the key", metadata: ["key": "\(key)", "until": "\(until)"])
            }
            throw error
        }
    }
}
