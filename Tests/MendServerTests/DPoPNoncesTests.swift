import Foundation
import Testing

@testable import MendServer

/// Stateless DPoP nonces and the per-instance replay cache.
@Suite("DPoP nonces and replays")
struct DPoPNoncesTests {
    static let nonces = DPoPNonces(secret: Data("a shared secret of every instance".utf8), step: 60)

    @Test("A nonce is valid in its step and the next, and in no other; every instance with the key accepts it")
    func validity() {
        let now: Int64 = 1_800_000_030
        let nonce = Self.nonces.current(now: now)
        #expect(nonce.count == 32)
        #expect(Self.nonces.current(now: 1_800_000_000) == nonce, "one nonce per step")
        #expect(Self.nonces.current(now: 1_800_000_060) != nonce)
        #expect(Self.nonces.isValid(nonce, now: now))
        #expect(Self.nonces.isValid(nonce, now: 1_800_000_119), "the next step")
        #expect(!Self.nonces.isValid(nonce, now: 1_800_000_120), "two steps on")
        #expect(!Self.nonces.isValid(nonce, now: 1_799_999_999), "a nonce from the future")
        let sameKey = DPoPNonces(secret: Data("a shared secret of every instance".utf8), step: 60)
        #expect(sameKey.isValid(nonce, now: now), "another instance")
        let otherKey = DPoPNonces(secret: Data("another deployment".utf8), step: 60)
        #expect(!otherKey.isValid(nonce, now: now))
        #expect(Self.nonces.freshness == 120)
    }

    @Test("A forged, altered or malformed nonce is refused")
    func forgeries() {
        let now: Int64 = 1_800_000_030
        let nonce = Self.nonces.current(now: now)
        var altered = Array(nonce)
        altered[30] = altered[30] == "A" ? "B" : "A"
        // The step of another nonce with this one's MAC: the MAC covers the step.
        let later = Self.nonces.current(now: now + 60)
        let spliced = String(later.prefix(11)) + String(nonce.dropFirst(11))
        for bad in [
            String(altered), spliced, "", "short", String(repeating: "A", count: 32), nonce + "A",
            "+" + nonce.dropFirst(),
        ] {
            #expect(!Self.nonces.isValid(bad, now: now), "\(bad)")
        }
    }

    @Test("A proof is accepted once per key and jti until its window ends; the cache stays within its capacity")
    func replays() {
        let cache = DPoPReplayCache(capacity: 10)
        #expect(cache.firstUse(thumbprint: "k1", jti: "a", expiresAt: 100, now: 0))
        #expect(!cache.firstUse(thumbprint: "k1", jti: "a", expiresAt: 100, now: 50), "a replay")
        #expect(cache.firstUse(thumbprint: "k2", jti: "a", expiresAt: 100, now: 50), "another key's jti")
        #expect(cache.firstUse(thumbprint: "k1", jti: "a", expiresAt: 200, now: 100), "past its window")
        for index in 0..<50 {
            #expect(cache.firstUse(thumbprint: "k3", jti: "\(index)", expiresAt: 1000 + Int64(index), now: 150))
        }
        #expect(cache.count <= 10)
        #expect(!cache.firstUse(thumbprint: "k3", jti: "49", expiresAt: 1049, now: 150), "the newest are kept")
    }

    @Test("Proofs whose window has ended are dropped as time passes, before any live one; a jti reused later is new")
    func replaysEndInTime() {
        let cache = DPoPReplayCache(capacity: 1000)
        for index in 0..<600 {
            #expect(cache.firstUse(thumbprint: "k", jti: "old-\(index)", expiresAt: 100, now: 0))
        }
        #expect(cache.firstUse(thumbprint: "k", jti: "live", expiresAt: 300, now: 50))
        #expect(cache.count == 601)
        // Past the old ones' end: they go, the live one stays a replay.
        #expect(cache.firstUse(thumbprint: "k", jti: "new", expiresAt: 400, now: 150))
        #expect(cache.count == 2)
        #expect(!cache.firstUse(thumbprint: "k", jti: "live", expiresAt: 300, now: 200), "still in its window")
        #expect(cache.firstUse(thumbprint: "k", jti: "old-7", expiresAt: 500, now: 200), "its window ended")
        // Accepted again, the old queue entry of "old-7" does not take its new entry with it.
        #expect(!cache.firstUse(thumbprint: "k", jti: "old-7", expiresAt: 500, now: 250))
        // A flood far past the capacity keeps it bounded, the newest kept.
        for index in 0..<10_000 {
            _ = cache.firstUse(thumbprint: "f", jti: "\(index)", expiresAt: 9_000, now: 300)
        }
        #expect(cache.count <= 1000)
        #expect(!cache.firstUse(thumbprint: "f", jti: "9999", expiresAt: 9_000, now: 300))
    }
}
