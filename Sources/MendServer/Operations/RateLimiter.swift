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

/// The in-memory buckets of every rate-limited key (`login:ip:…`, `refresh:user:…`): what a server on SQLite (one
/// instance) uses. On PostgreSQL the buckets are rows every instance shares instead, so that N instances allow what
/// one would (`SQLRateLimitStore.takeRateLimitToken`). The map
/// holds at most `capacity` keys: past it, the least recently used tenth is dropped (a dropped key starts again with
/// a full bucket, so a flood of new keys costs memory and time in proportion to the capacity, never more).
actor RateLimiter {
    private struct Entry {
        var bucket: TokenBucket
        var rule: RateLimitRule
        var lastUse: UInt64
    }

    private var buckets: [String: Entry] = [:]
    private var uses: UInt64 = 0
    /// The most keys kept.
    let capacity: Int

    /// A limiter that keeps at most `capacity` keys (100,000 by default: a few megabytes).
    init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// How many keys are held now.
    var count: Int { buckets.count }

    /// `nil` when the request may go on, else whole seconds to wait (for `Retry-After`).
    func check(key: String, rule: RateLimitRule, now: Date) -> Int? {
        let time = now.timeIntervalSince1970
        uses &+= 1
        var entry = buckets[key] ?? Entry(bucket: TokenBucket(rule: rule, now: time), rule: rule, lastUse: uses)
        let wait = entry.bucket.take(rule: rule, now: time)
        entry.lastUse = uses
        buckets[key] = entry
        if buckets.count > capacity { evict(now: time) }
        return wait.map { max(1, Int($0.rounded(.up))) }
    }

    /// Drops the buckets that are full again (they hold nothing a new bucket would not), then, if still over the
    /// capacity, the least recently used tenth.
    private func evict(now: Double) {
        buckets = buckets.filter { !$0.value.bucket.isFull(rule: $0.value.rule, now: now) }
        guard buckets.count > capacity else { return }
        let excess = buckets.count - capacity + capacity / 10
        let oldest = buckets.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(excess).map(\.key)
        for key in oldest { buckets[key] = nil }
    }

    /// The rate-limit key of a client address: an IPv6 client is keyed by its /64 (one subscriber holds at least a
    /// /64, so per-address keys would let it rotate through 2^64 allowances), an IPv4-mapped IPv6 address by its IPv4
    /// address, anything else as it is.
    static func addressKey(_ address: String) -> String {
        var text = address.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<end])
        }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        if let colon = text.firstIndex(of: ":"), text.firstIndex(of: ".").map({ $0 < colon }) == true,
            text.filter({ $0 == ":" }).count == 1
        {
            // IPv4 with a port (`203.0.113.5:51234`, as some proxies write it): the port changes per connection.
            return String(text[..<colon])
        }
        guard text.contains(":"), let bytes = ipv6Bytes(text) else { return text.isEmpty ? address : text }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    private static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}
