import Foundation
import Logging
import MendCore
import MendHTTP

/// What every part of the backend is lent beside its own stores and its slice of the configuration — the clock, the
/// metrics, the redactor, the audit log and the rate limits — made once when the backend opens. It holds no store but
/// the audit log's and the rate limits', and no configuration.
struct BackendServices: Sendable {
    let clock: PipelineClock
    let metrics: ServerMetrics
    /// Redacts the app secret (and the usual token shapes) from anything logged.
    let redactor: Redactor
    /// Where the events without a database write of their own go.
    let auditLog: any AuditStore
    /// Where rate-limit buckets live: the database's on PostgreSQL (shared by every instance, `shared`), in memory on
    /// SQLite (`shared` is `nil`).
    let sharedRateLimits: (any RateLimitStore)?
    let rateLimiter = RateLimiter()
}

extension BackendServices {
    /// Runs one provider call; a failure becomes a ``ServerFailure`` that keeps the provider's classification, and
    /// is counted and logged (redacted). Cancellation passes through.
    func upstream<T: Sendable>(
        _ operation: String, logger: Logger, _ call: () async throws -> T
    ) async throws -> T {
        do {
            return try await call()
        } catch let error as MendError {
            metrics.upstreamFailure(operation: operation, error: error.shortDescription)
            // Redacted once, here: the log line and the response show the same message.
            let failure = ServerFailure.upstream(error, operation: operation).redacted(with: redactor)
            logger.notice(
                "provider call failed",
                metadata: [
                    "operation": .string(operation), "error": .string(error.shortDescription),
                    "category": .string(error.category.rawValue), "message": .string(failure.error.developerMessage),
                ])
            throw failure
        }
    }
}

/// A part of the backend: it holds the stores it uses, by their protocols, and its slice of the configuration; what
/// every part uses it is lent through ``services``.
protocol BackendPart: Sendable {
    /// What every part is lent.
    var services: BackendServices { get }
}

extension BackendPart {
    var clock: PipelineClock { services.clock }
    var metrics: ServerMetrics { services.metrics }
    var redactor: Redactor { services.redactor }

    /// The current time, as unix seconds.
    var now: Int64 { Int64(clock.now().timeIntervalSince1970) }

    /// Runs one provider call: see ``BackendServices/upstream(_:logger:_:)``.
    func upstream<T: Sendable>(
        _ operation: String, logger: Logger, _ call: () async throws -> T
    ) async throws -> T {
        try await services.upstream(operation, logger: logger, call)
    }

    /// Writes an event that has no database write of its own — a refused login, a session past its lifetime, a
    /// provider callback — best effort: a failure to write is counted (`mend_audit_write_failures_total`) and
    /// logged, never answered. Every event also goes to the log as one structured `audit` line.
    func audit(_ event: AuditRecord.Event, _ record: AuditRecord, logger: Logger) async {
        var record = record
        record.event = event.rawValue
        record.log(to: logger)
        do {
            try await services.auditLog.recordAudit(record)
        } catch {
            metrics.auditWriteFailed()
            logger.warning("audit event not written", metadata: ["event": .string(record.event)])
        }
    }

    /// Takes a token from the rate-limit bucket or throws 429.
    ///
    /// On PostgreSQL the buckets are shared by every instance (one row per key, see
    /// ``RateLimitStore/takeRateLimitToken(key:rule:now:)``); on SQLite (one instance) they are kept in memory.
    func enforce(_ rule: RateLimitRule, key: String, scope: String) async throws {
        let wait: Int?
        if let shared = services.sharedRateLimits {
            wait = try await shared.takeRateLimitToken(
                key: key, rule: rule, now: clock.now().timeIntervalSince1970
            ).map { max(1, Int($0.rounded(.up))) }
        } else {
            wait = await services.rateLimiter.check(key: key, rule: rule, now: clock.now())
        }
        if let wait {
            metrics.rateLimited(scope: scope)
            throw ServerFailure.rateLimited(retryAfter: wait, scope: scope, now: clock.now())
        }
    }

    /// Takes a token from the per-address bucket of `rule`, if there is one.
    func enforce(_ rule: RateLimitRule?, address: String, action: String) async throws {
        guard let rule else { return }
        try await enforce(rule, key: "\(action):ip:\(RateLimiter.addressKey(address))", scope: "\(action) per address")
    }
}
