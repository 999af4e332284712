public import Foundation
import HTTPTypes
import Logging
public import MendCore

/// Holds requests to a throttled key (an app, a business, a host) until the throttle's wait has passed, because
/// calling while throttled extends the throttle.
public final class RateLimitGate: Sendable {
    /// A throttle in force.
    public struct Hold: Sendable {
        /// Until when requests to the key wait.
        public var until: Date
        /// The error that started the hold.
        public var error: MendError
    }

    private let holds = Locked<[String: Hold]>([:])

    /// Creates an open gate.
    public init() {}

    /// The hold on `key` at `now`, if one is in force.
    public func hold(for key: String, now: Date) -> Hold? {
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
    public func close(_ key: String, until: Date, because error: MendError) {
        holds.withLock { holds in
            if let existing = holds[key], existing.until >= until { return }
            holds[key] = Hold(until: until, error: error)
        }
    }

    /// Lifts every hold.
    public func reset() {
        holds.withLock { $0.removeAll() }
    }
}

/// Waits out a hold on the request's key before sending; closes the gate when a throttling error comes back.
///
/// A hold longer than the retry policy's ``RetryPolicy/maximumHintedWait`` (or than the request's deadline) is not
/// waited out: the request fails at once with the throttle's error.
struct RateLimitGateMiddleware: ClientMiddleware {
    let gate: RateLimitGate
    let configuration: APIClient.Configuration

    func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        let key = request.options.rateLimitKey ?? configuration.rateLimitKey(request)
        if let hold = gate.hold(for: key, now: configuration.now()) {
            let wait = Duration.seconds(max(0, hold.until.timeIntervalSince(configuration.now())))
            let deadlinePassesFirst = context.remaining.map { wait >= $0 } ?? false
            if deadlinePassesFirst || wait > configuration.retryPolicy.maximumHintedWait {
                // Waiting would pass the deadline, or be longer than any hinted wait the retry policy accepts (a
                // `Retry-After: 86400` must not hold every later request for a day): return the throttle at once,
                // without calling into it; its `notBefore` says when the key opens.
                var error = hold.error
                error.notBefore = hold.until
                error.developerMessage =
                    "Not sent: \(key) is rate limited until the throttle passes. " + error.developerMessage
                throw error
            }
            if configuration.loggingBehaviors.contains(.rateLimits) {
                context.logger.debug(
                    "Holding a request while rate limited", metadata: ["key": "\(key)", "wait": "\(wait)"])
            }
            try await configuration.sleep(wait)
        }
        do {
            return try await next(request)
        } catch let error as MendError where error.recovery.action == .waitForRateLimit {
            let until =
                error.recovery.notBefore
                ?? configuration.now().addingTimeInterval(configuration.defaultThrottleWait.seconds)
            gate.close(key, until: until, because: error)
            if configuration.loggingBehaviors.contains(.rateLimits) {
                context.logger.debug("Rate limited: holding the key", metadata: ["key": "\(key)", "until": "\(until)"])
            }
            throw error
        }
    }
}
