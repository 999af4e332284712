import Foundation
import HTTPTypes
public import Logging
public import MendCore

/// The retry step, the pipeline's one loop that sends a request again: it retries transient failures as the
/// ``RetryPolicy`` decides, paying each retry from a ``RetryBudget`` (share one budget across the requests of one
/// API), and answers a DPoP-proved request's server (RFC 9449 §8, §9) once for its nonce and once for its clock, at
/// once and free of the policy and the budget: the server refused the proof before doing anything, and the next
/// attempt carries a new proof, with the nonce or the time the answer gave.
package struct RetryStep: ClientMiddleware {
    let policy: RetryPolicy
    let budget: RetryBudget
    let behaviors: LoggingBehaviors

    /// Creates the step. It waits, reads the time and draws the jitter on the client's clock.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry.
    ///   - budget: The budget each retry is paid from.
    ///   - logging: Logs each retry decision when it contains ``LoggingBehaviors/retries``.
    package init(
        policy: RetryPolicy = RetryPolicy(), budget: RetryBudget = RetryBudget(), logging: LoggingBehaviors = []
    ) {
        self.policy = policy
        self.budget = budget
        self.behaviors = logging
    }

    /// Sends, and retries while the policy says so.
    package nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        let repeatable = request.options.allowsRetry ?? (request.isIdempotent || request.options.idempotencyKey != nil)
        let clock = context.clock
        var tries = 0
        var dpopResends: Set<DPoPResend> = []
        while true {
            tries += 1
            do {
                let response = try await next(request, context: context)
                budget.recordSuccess()
                return response
            } catch let error as MendError {
                if let binding = request.dpop,
                    let resend = binding.resend(after: error, of: request.head, now: clock.now()),
                    dpopResends.insert(resend).inserted
                {
                    // Not a try of the policy's: the server never acted on the request.
                    tries -= 1
                    continue
                }
                // An explicit `allowsRetry: false` is never retried, not even after a failure that proves the server
                // never saw the request (a single-use authorization code).
                guard request.options.allowsRetry != false else { throw error }
                let now = clock.now()
                var decision = policy.decide(
                    RetryPolicy.Situation(
                        error: error, attempts: tries, isRepeatable: repeatable, now: now, remaining: context.remaining,
                        budgetAvailable: true, unitRandom: clock.random()))
                // The budget is asked once, last, as the policy orders its reasons: a retry it cannot pay for is a
                // budget give-up.
                if case .retry = decision, !budget.tryWithdraw(now: now) { decision = .giveUp(.budgetExhausted) }
                guard case .retry(let delay) = decision else {
                    if behaviors.contains(.retries), error.category == .transient,
                        case .giveUp(let reason) = decision
                    {
                        context.logger.debug(
                            "Not retrying",
                            metadata: [
                                "reason": "\(reason.rawValue)", "error": "\(error.shortDescription)",
                                "attempts": "\(context.attempts)",
                            ])
                    }
                    throw error
                }
                if behaviors.contains(.retries) {
                    context.logger.debug(
                        "Retrying",
                        metadata: [
                            "after": "\(delay)", "error": "\(error.shortDescription)", "attempt": "\(tries + 1)",
                        ])
                }
                if let observation = context.observation {
                    // A server's own wait (Retry-After, a throttle's reset) decides the delay whenever it gave one.
                    let reason: PipelineWait.Reason = error.recovery.notBefore == nil ? .backoff : .retryAfter
                    observation.waiting(PipelineWait(reason: reason, duration: delay, error: error))
                }
                try await clock.sleep(delay)
            }
        }
    }
}
