import Foundation
import HTTPTypes
public import Logging
public import MendCore

/// The logging step: logs each try at debug level: the redacted request line, the status and duration, or the classified error.
/// Cancellation is logged at trace level as what it is, never as a failure. Headers and bodies are never logged.
package struct LoggingStep: ClientMiddleware {
    let behaviors: LoggingBehaviors

    /// Creates the step; it logs what `behaviors` contains of ``LoggingBehaviors/networkRequests`` and
    /// ``LoggingBehaviors/developerErrors``.
    package init(behaviors: LoggingBehaviors) { self.behaviors = behaviors }

    /// Logs the try and its outcome.
    package nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        guard !behaviors.isDisjoint(with: [.networkRequests, .developerErrors]) else {
            return try await next(request, context: context)
        }
        let start = ContinuousClock.now  // a measurement for the log line, not a wait: real time
        let summary = request.redactedSummary
        if behaviors.contains(.networkRequests) {
            context.logger.debug("→ \(summary)", metadata: ["attempt": "\(context.attempts + 1)"])
        }
        do {
            let response = try await next(request, context: context)
            if behaviors.contains(.networkRequests) {
                context.logger.debug(
                    "← \(response.head.status.code) \(summary)",
                    metadata: ["duration": "\(ContinuousClock.now - start)", "bytes": "\(response.body.count)"])
            }
            return response
        } catch let error as MendError {
            if behaviors.contains(.developerErrors) {
                context.logger.debug(
                    "✗ \(summary): \(error.description)",
                    metadata: [
                        "error": "\(error.shortDescription)", "category": "\(error.category)",
                        "recovery": "\(error.recovery)", "reference": "\(error.referenceIDOrNone)",
                        "duration": "\(ContinuousClock.now - start)",
                    ])
            }
            throw error
        } catch is CancellationError {
            context.logger.trace("Cancelled: \(summary)")
            throw CancellationError()
        }
    }
}
