import Foundation
import Logging
import MendCore
import MendHTTP

/// What one pass of the provider-token validity check did.
public struct ValidityCheckReport: Sendable, Hashable {
    /// Tokens checked with `debug_token`.
    public var checked: Int
    /// Tokens found invalid (their users' sessions ended).
    public var invalidated: Int
    /// Tokens whose check failed (the provider was unreachable); checked again on the next pass.
    public var failed: Int

    /// Creates a report.
    public init(checked: Int = 0, invalidated: Int = 0, failed: Int = 0) {
        self.checked = checked
        self.invalidated = invalidated
        self.failed = failed
    }
}

/// The periodic work: the provider-token validity check and the purge of what expired.
struct Housekeeping: BackendPart {
    let services: BackendServices
    /// The identities whose kept tokens are checked.
    let identities: any IdentityStore
    /// The sessions and refresh tokens purged.
    let sessionRecords: any SessionStore
    /// The shared rate-limit buckets purged.
    let rateLimits: any RateLimitStore
    /// How long the audit log keeps an event (`MEND_AUDIT_RETENTION`).
    let auditRetention: Duration
    /// How long the revocation log keeps an ending.
    let revocationRetention: Int64
    /// Ends the sessions of a dead provider token.
    let accounts: Accounts
    /// Where background work logs.
    let logger: Logger

    var facebook: ProviderGateway? { accounts.facebook }

    /// The period of the validity check and purge: the Facebook app's, else daily (there is no token to check, only
    /// what expired to purge).
    var validityCheckInterval: Duration { facebook?.app.validityCheckInterval ?? .seconds(86400) }

    /// Re-checks every stored provider token not checked within half the interval (all of them when `force`) with
    /// `debug_token`; an invalid one ends the user's sessions, with the provider's reason. Also purges expired
    /// tokens, sessions, old login codes and the audit events older than `MEND_AUDIT_RETENTION`.
    @discardableResult
    func checkProviderTokens(force: Bool = false) async -> ValidityCheckReport {
        var report = ValidityCheckReport()
        let horizon = force ? now + 1 : now - Int64(validityCheckInterval.seconds / 2)
        var visited: Set<String> = []
        while !Task.isCancelled {
            let due: [IdentityRecord]
            do {
                due = try await identities.identitiesDueForCheck(
                    provider: "facebook", checkedBefore: horizon, limit: 100 + visited.count
                ).filter { !visited.contains($0.subject) }
            } catch {
                logger.error("validity check: the database failed", metadata: ["error": .string("\(type(of: error))")])
                break
            }
            if due.isEmpty { break }
            for identity in due {
                visited.insert(identity.subject)
                guard let token = identity.providerToken, let facebook else { continue }
                report.checked += 1
                do {
                    let inspection = try await facebook.inspect(token)
                    switch inspection.verdict(appID: facebook.appID, requiredScopes: facebook.app.requiredScopes) {
                    case .success:
                        try await identities.recordTokenCheck(
                            provider: identity.provider, subject: identity.subject, now: now, invalidReason: nil)
                        metrics.validityCheck(outcome: "valid")
                    case .failure(let error):
                        report.invalidated += 1
                        metrics.validityCheck(outcome: "invalid")
                        try await accounts.endProviderAccess(
                            identity: identity,
                            detail:
                                "provider token invalid (\(error.shortDescription)): "
                                + redactor.redact(text: error.developerMessage),
                            logger: logger)
                    }
                } catch {
                    report.failed += 1
                    metrics.validityCheck(outcome: "failed")
                    let summary = (error as? MendError)?.shortDescription ?? "\(type(of: error))"
                    logger.notice(
                        "validity check failed for a user",
                        metadata: ["user_id": .string(identity.userID), "error": .string(summary)])
                }
            }
        }
        try? await sessionRecords.purge(now: now, revocationRetention: revocationRetention)
        try? await rateLimits.purgeRateLimits(now: clock.now().timeIntervalSince1970)
        try? await services.auditLog.pruneAudit(before: now - Int64(auditRetention.seconds))
        logger.info(
            "validity check done",
            metadata: [
                "checked": .stringConvertible(report.checked), "invalidated": .stringConvertible(report.invalidated),
                "failed": .stringConvertible(report.failed),
            ])
        return report
    }
}
