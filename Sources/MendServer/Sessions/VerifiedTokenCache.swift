import Foundation
import MendCore

/// A bounded cache of access tokens whose signature, issuer and audience were verified: the claims of a token this
/// server signed, kept until its `exp`, so that a token presented many times (every API call of its lifetime) is
/// verified twice: ``admit(_:claims:)`` takes a token the second time it verifies, so that tokens presented once never
/// take the place of tokens in use.
///
/// It never holds a refusal, and it decides nothing about time or sessions: a hit is still checked against `exp`
/// and, by the caller, against the revocation view — a logout is refused exactly as fast as without the cache. It
/// belongs to the ``SessionSigner`` of the keys that verified its entries, so a change of `MEND_SIGNING_KEYS`
/// (a restart with other keys) starts it empty.
///
/// Bounded by ``capacity`` entries in all, in 16 shards, each with its own lock and CLOCK eviction (a recently used
/// entry survives one sweep of the hand). The capacity is the whole cache's: tokens fall on the shards unevenly (of
/// 10,000, some shards get 700 where the average is 625), so a shard grows past its sixteenth while the cache has
/// room — up to twice its share — and evicts only when the cache is full or it reaches that bound. Keyed by the
/// token itself, hashed by its last 8 bytes (``Key``).
final class VerifiedTokenCache: Sendable {
    /// The most entries it holds.
    let capacity: Int
    private let shards: [Locked<Shard>]
    /// How many entries the shards hold in all: a shard grows only after reserving one here.
    private let held = Locked(0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        let share = (self.capacity + Self.shardCount - 1) / Self.shardCount
        self.shards = (0..<Self.shardCount).map { _ in Locked(Shard(limit: 2 * share)) }
    }

    static let shardCount = 16

    /// The cached claims of `token`, marking it used; `nil` when it is not cached.
    func claims(for token: String) -> AccessTokenClaims? { entry(for: token)?.claims }

    /// The cached claims of `token` and its `ath` (a bound token's), marking it used; `nil` when it is not cached.
    func entry(for token: String) -> (claims: AccessTokenClaims, proofHash: String?)? {
        shard(for: token).withLock { $0.entry(for: token) }
    }

    /// Caches the claims of a token that verified (never a refusal), and its `ath` when it is bound: in a new entry
    /// while the cache has room, else in place of one its shard's hand picks.
    func insert(_ token: String, claims: AccessTokenClaims, proofHash: String? = nil) {
        insert(Key(token: token), Shard.Value(claims: claims, proofHash: proofHash))
    }

    private func insert(_ key: Key, _ value: Shard.Value) {
        let capacity = capacity
        let mayGrow = held.withLock { held in
            guard held < capacity else { return false }
            held += 1
            return true
        }
        let grew = shard(for: key.token).withLock { $0.insert(key, value, mayGrow: mayGrow) }
        if mayGrow && !grew { held.withLock { $0 -= 1 } }
    }

    /// Caches the claims of a token that verified, if it verified before: a token seen for the first time is only
    /// marked (a bit in its shard's doorkeeper), so that a token presented once — a load of tokens never seen again,
    /// whose every insert would evict a token in use — costs the cache a bit, not an entry and an eviction. A token
    /// presented again is verified a second time and cached; a client presents its token on every call of its
    /// lifetime, so the hits lost are one per token. (TinyLFU's doorkeeper.)
    func admit(_ token: String, claims: AccessTokenClaims, proofHash: String? = nil) {
        let key = Key(token: token)
        if shard(for: token).withLock({ $0.admits(key) }) {
            insert(key, Shard.Value(claims: claims, proofHash: proofHash))
        }
    }

    /// Forgets `token` (its `exp` passed).
    func remove(_ token: String) {
        if shard(for: token).withLock({ $0.remove(token) }) { held.withLock { $0 -= 1 } }
    }

    /// How many tokens it holds.
    var count: Int { shards.reduce(0) { $0 + $1.withLock { $0.entries.count } } }

    /// The shard of a token: by the two characters before its last, which carry 12 uniformly distributed bits of the
    /// signature. (The last character of a base64url signature carries only 2 or 4 bits: sharding by it used 2 of
    /// the 16 shards.)
    private func shard(for token: String) -> Locked<Shard> {
        let tail = token.utf8.suffix(3)
        guard tail.count == 3 else { return shards[0] }
        let first = Int(tail[tail.startIndex]), second = Int(tail[tail.index(after: tail.startIndex)])
        return shards[(first * 31 + second) % Self.shardCount]
    }

    /// A token as a dictionary key: equal when the whole tokens are, hashed by its last 8 bytes — a signature's,
    /// uniformly distributed for the tokens this server signs, which are all the cache holds — which the key also
    /// keeps beside the token. Hashing the whole token (hundreds of bytes) on every lookup, insert and eviction cost
    /// as much as the signature check the cache saves; and a lookup compares the keys of every occupied bucket it
    /// probes (Swift's dictionary keeps no hashes), which for tokens that all share their first hundred bytes (the
    /// same header, issuer and audience) meant reading each of those tokens — cold memory, on a miss, once per bucket.
    /// The kept tail settles nearly every such comparison without touching the token. A presented token that is not
    /// ours only looks up; the hasher's per-process seed keeps its collisions unpredictable.
    struct Key: Hashable {
        let token: String
        /// The token's last 8 bytes (fewer, zero-filled, for a shorter token).
        let tail: UInt64

        init(token: String) {
            self.token = token
            var tail: UInt64 = 0
            for byte in token.utf8.suffix(8) { tail = tail << 8 | UInt64(byte) }
            self.tail = tail
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(tail)
        }

        /// Byte for byte, not `String`'s canonical equivalence: a token that only reads the same (a KELVIN SIGN for a
        /// `K`) is another token, never a hit for the one verified.
        static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.tail == rhs.tail else { return false }
            let (left, right) = (lhs.token.utf8, rhs.token.utf8)
            guard left.count == right.count else { return false }
            let compared = left.withContiguousStorageIfAvailable { leftBytes in
                right.withContiguousStorageIfAvailable { rightBytes in
                    leftBytes.count == 0
                        || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0
                }
            }
            return (compared ?? nil) ?? left.elementsEqual(right)
        }
    }

    /// One shard: a dictionary and a ring of its keys, swept by a CLOCK hand when it may not grow.
    private struct Shard {
        /// What an entry keeps: the claims, and a bound token's `ath`.
        struct Value {
            var claims: AccessTokenClaims
            var proofHash: String?
        }

        struct Entry {
            var value: Value
            var slot: Int
            var used: Bool
        }

        /// The most entries it holds, however much room the cache has.
        let limit: Int
        var entries: [Key: Entry] = [:]
        var ring: [Key?] = []
        /// Slots of the ring whose entries were removed.
        var free: [Int] = []
        var hand = 0

        /// The doorkeeper: one bit per hash of a token verified once and not cached, 64 per entry the shard may hold
        /// (16 bytes per entry of the cache's capacity, beside an entry's kilobyte), so that kept at most an eighth
        /// full, it takes a token never seen for one seen at most one time in eight.
        var seen: [UInt64]
        var seenCount = 0

        init(limit: Int) {
            self.limit = limit
            self.seen = Array(repeating: 0, count: limit)
        }

        /// Whether `token` was seen before (its bit set, now cleared); else marks it. All bits are cleared when an
        /// eighth are set — the first sightings of eight times the shard's entries — so that a stream of tokens seen
        /// once does not fill the doorkeeper.
        mutating func admits(_ token: Key) -> Bool {
            let bit = Int(UInt(bitPattern: token.hashValue) % UInt(seen.count * 64))
            let (word, mask) = (bit >> 6, UInt64(1) << UInt64(bit & 63))
            if seen[word] & mask != 0 {
                seen[word] &= ~mask
                seenCount -= 1
                return true
            }
            seen[word] |= mask
            seenCount += 1
            if seenCount > seen.count * 8 {
                for index in seen.indices { seen[index] = 0 }
                seenCount = 0
            }
            return false
        }

        mutating func entry(for token: String) -> (claims: AccessTokenClaims, proofHash: String?)? {
            let token = Key(token: token)
            guard let entry = entries[token] else { return nil }
            if !entry.used { entries[token]?.used = true }
            return (entry.value.claims, entry.value.proofHash)
        }

        /// Inserts `token` in a new entry when `mayGrow` (and the shard is under its limit), else in place of the
        /// entry the hand picks; whether the shard holds one entry more.
        mutating func insert(_ token: Key, _ value: Value, mayGrow: Bool) -> Bool {
            if entries[token] != nil { return false }
            if mayGrow && entries.count < limit {
                let slot: Int
                if let reused = free.popLast() {
                    slot = reused
                } else {
                    slot = ring.count
                    ring.append(nil)
                }
                ring[slot] = token
                entries[token] = Entry(value: value, slot: slot, used: false)
                return true
            }
            // Full: the hand sweeps past free slots, and past entries used since its last sweep, to one that was not.
            // When every entry was (a shard of tokens in use, while the cache's room went to other shards), the
            // newcomer is turned away rather than one of them: the sweep cleared their marks, so the next newcomer
            // takes the place of one not used since.
            guard !entries.isEmpty else { return false }
            var passed = 0
            while true {
                if let resident = ring[hand], let entry = entries[resident] {
                    if !entry.used { break }
                    entries[resident]?.used = false
                }
                hand = (hand + 1) % ring.count
                passed += 1
                if passed == ring.count { return false }
            }
            entries[ring[hand]!] = nil
            ring[hand] = token
            entries[token] = Entry(value: value, slot: hand, used: false)
            hand = (hand + 1) % ring.count
            return false
        }

        /// Forgets `token`; whether it was held.
        mutating func remove(_ token: String) -> Bool {
            guard let entry = entries.removeValue(forKey: Key(token: token)) else { return false }
            ring[entry.slot] = nil
            free.append(entry.slot)
            return true
        }
    }
}
