import Foundation
import MendCore
import MendTesting
import Testing

@testable import MendServer

/// The rate limiter's keys and memory: IPv6 clients are one key per /64 (a client owns at least that many
/// addresses), and the map of buckets is bounded, the least recently used key going first.
@Suite struct RateLimiterTests {
    @Test(
        "Client addresses become rate-limit keys: IPv6 by /64, IPv4-mapped IPv6 as IPv4, others as they are",
        arguments: [
            ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"), ("2001:DB8:1:2:bbbb:cccc:dddd:2", "2001:db8:1:2::/64"),
            ("[2001:db8:1:3::1]", "2001:db8:1:3::/64"), ("fe80::1%eth0", "fe80:0:0:0::/64"), ("::1", "0:0:0:0::/64"),
            ("::ffff:203.0.113.5", "203.0.113.5"), ("203.0.113.5", "203.0.113.5"), ("203.0.113.5:51234", "203.0.113.5"),
            ("[2001:db8:1:2::7]:443", "2001:db8:1:2::/64"), ("unknown", "unknown"),
        ])
    func addressKeys(_ address: String, _ key: String) {
        #expect(RateLimiter.addressKey(address) == key)
    }

    @Test("The bucket map never grows past its capacity; the least recently used keys are dropped first")
    func boundedLeastRecentlyUsed() async {
        let limiter = RateLimiter(capacity: 100)
        let rule = RateLimitRule(requests: 1, per: .seconds(3600))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(await limiter.check(key: "kept", rule: rule, now: now) == nil)
        for index in 0..<1000 {
            _ = await limiter.check(key: "flood-\(index)", rule: rule, now: now)
            if index.isMultiple(of: 10) {
                // The key in use stays limited however many others come and go.
                #expect(await limiter.check(key: "kept", rule: rule, now: now) != nil)
            }
            #expect(await limiter.count <= 100)
        }
    }
}
