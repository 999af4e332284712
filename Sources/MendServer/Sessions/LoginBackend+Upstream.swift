import Logging
import MendCore

extension LoginBackend {
    /// Runs one provider call; a failure becomes a ``ServerFailure`` that keeps the provider's classification, and
    /// is counted and logged (redacted). Cancellation passes through.
    func upstream<T: Sendable>(
        _ operation: String, logger: Logger, _ call: () async throws -> T
    ) async throws -> T {
        do {
            return try await call()
        } catch let error as MendError {
            metrics.upstreamFailure(operation: operation, error: error.shortDescription)
            logger.notice(
                "provider call failed",
                metadata: [
                    "operation": .string(operation), "error": .string(error.shortDescription),
                    "category": .string(error.category.rawValue),
                    "message": .string(redactor.redact(text: error.developerMessage)),
                ])
            throw ServerFailure.upstream(error, operation: operation)
        }
    }
}
