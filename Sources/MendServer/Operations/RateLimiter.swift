import Foundation

/// A token bucket: holds up to `rule.requests` tokens, refilled continuously at `requests / per`. A pure value.
struct TokenBucket: Sendable, Hashable {
    var tokens: Double
    var updatedAt: Double

    init(rule: RateLimitRule, now: Double) {
        self.tokens = Double(rule.requests)
        self.updatedAt = now
    }

    /// Takes one token; `nil` when allowed, else the seconds until a token is available.
    mutating func take(rule: RateLimitRule, now: Double) -> Double? {
        let capacity = Double(rule.requests)
        let rate = capacity / max(rule.per.seconds, 0.001)
        tokens = min(capacity, tokens + max(0, now - updatedAt) * rate)
        updatedAt = now
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return (1 - tokens) / rate
    }

    func isFull(rule: RateLimitRule, now: Double) -> Bool {
        let rate = Double(rule.requests) / max(rule.per.seconds, 0.001)
        return tokens + max(0, now - updatedAt) * rate >= Double(rule.requests)
    }
}

/// The per-instance buckets of every rate-limited key (`login:ip:…`, `refresh:user:…`).
///
/// Limits are per instance: behind a load balancer with N instances a client gets up to N times the rule.
actor RateLimiter {
    private var buckets: [String: (bucket: TokenBucket, rule: RateLimitRule)] = [:]

    /// `nil` when the request may go on, else whole seconds to wait (for `Retry-After`).
    func check(key: String, rule: RateLimitRule, now: Date) -> Int? {
        let time = now.timeIntervalSince1970
        var entry = buckets[key] ?? (TokenBucket(rule: rule, now: time), rule)
        let wait = entry.bucket.take(rule: rule, now: time)
        buckets[key] = entry
        if buckets.count > 50_000 { prune(now: time) }
        return wait.map { max(1, Int($0.rounded(.up))) }
    }

    private func prune(now: Double) {
        buckets = buckets.filter { !$0.value.bucket.isFull(rule: $0.value.rule, now: now) }
    }
}
