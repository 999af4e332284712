import Foundation
import HTTPTypes
import Logging
import MendCore

/// Retries transient failures as the ``RetryPolicy`` decides, paying each retry from the client's ``RetryBudget``.
struct RetryMiddleware: ClientMiddleware {
    let budget: RetryBudget
    let configuration: APIClient.Configuration

    func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        let policy = configuration.retryPolicy
        let repeatable = request.options.allowsRetry ?? (request.isIdempotent || request.options.idempotencyKey != nil)
        var tries = 0
        while true {
            tries += 1
            do {
                let response = try await next(request)
                budget.recordSuccess()
                return response
            } catch let error as MendError {
                let now = configuration.now()
                let decision = policy.decide(
                    RetryPolicy.Situation(
                        error: error, attempts: tries, isRepeatable: repeatable, now: now, remaining: context.remaining,
                        budgetAvailable: budget.canWithdraw(now: now), unitRandom: configuration.random()))
                guard case .retry(let delay) = decision, budget.tryWithdraw(now: now) else {
                    if configuration.loggingBehaviors.contains(.retries), error.category == .transient,
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
                if configuration.loggingBehaviors.contains(.retries) {
                    context.logger.debug(
                        "Retrying",
                        metadata: [
                            "after": "\(delay)", "error": "\(error.shortDescription)", "attempt": "\(tries + 1)",
                        ])
                }
                try await configuration.sleep(delay)
            }
        }
    }
}
