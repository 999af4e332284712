import Foundation
import SQLKit

/// The rate-limit buckets every instance shares (PostgreSQL).
struct SQLRateLimitStore: RateLimitStore, SQLStore {
    let connection: StoreConnection

    /// Takes one token from the shared bucket of `key` (PostgreSQL: every instance draws on the same row, so N
    /// instances allow what one would); `nil` when allowed, else the seconds until a token is available.
    ///
    /// One conditional upsert refills the bucket for the time since its last use and takes a token only if one is
    /// there, atomically; the key is stored as its SHA-256 (client addresses and user ids stay out of the table).
    func takeRateLimitToken(key: String, rule: RateLimitRule, now: Double) async throws -> Double? {
        let capacity = Double(rule.requests)
        let rate = capacity / max(rule.per.seconds, 0.001)
        let hashed = OpaqueToken.hash(key)
        let taken = try await sql.raw(
            """
            INSERT INTO mend_rate_limits AS b (key, tokens, updated_at)
            VALUES (\(bind: hashed), \(bind: capacity - 1), \(bind: now))
            ON CONFLICT (key) DO UPDATE SET
                tokens = LEAST(\(bind: capacity), b.tokens + GREATEST(0, \(bind: now) - b.updated_at) * \(bind: rate)) - 1,
                updated_at = GREATEST(b.updated_at, \(bind: now))
            WHERE LEAST(\(bind: capacity), b.tokens + GREATEST(0, \(bind: now) - b.updated_at) * \(bind: rate)) >= 1
            RETURNING tokens
            """
        ).all()
        guard taken.isEmpty else { return nil }
        guard
            let row = try await sql.raw(
                "SELECT tokens, updated_at FROM mend_rate_limits WHERE key = \(bind: hashed)"
            ).first()
        else { return nil }
        let tokens = try row.decode(column: "tokens", as: Double.self)
        let updatedAt = try row.decode(column: "updated_at", as: Double.self)
        let available = min(capacity, tokens + max(0, now - updatedAt) * rate)
        return max(0, 1 - available) / rate
    }

    /// Drops shared buckets unused for a day (a bucket left that long is full again: the same as none).
    func purgeRateLimits(now: Double) async throws {
        try await sql.raw("DELETE FROM mend_rate_limits WHERE updated_at < \(bind: now - 86400)").run()
    }
}
