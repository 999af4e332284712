import Crypto
import Foundation
import MendCore

/// mend-server's DPoP nonces (RFC 9449 §8), stateless: a nonce is its time step and a MAC over it, so that every
/// instance sharing the key accepts every instance's nonce with no shared state, and a valid nonce bounds how old
/// the proof that carries it can be (``freshness``).
///
/// A nonce is valid during its own step and the next one: a client that took one at the end of a step has a full
/// step to use it. Past that, the server answers `use_dpop_nonce` with the current one, and the client retries once.
///
/// Several secrets: the first issues, every one is accepted (as with signing keys, so that instances on different steps
/// of a key rotation accept each other's nonces).
struct DPoPNonces: Sendable {
    /// The key that issues, then the others that are accepted.
    private let keys: [SymmetricKey]
    /// The length of a step, in seconds.
    let step: Int64

    /// Nonces under a key derived from `secret` (HKDF-SHA256, its own `info`: the secret's other uses never meet
    /// these MACs).
    init(secret: some DataProtocol, step: Int64 = 60) {
        self.init(secrets: [Data(secret)], step: step)
    }

    /// Nonces issued under a key derived from the first of `secrets`, and accepted under any of them.
    init(secrets: [Data], step: Int64 = 60) {
        precondition(step > 0, "a nonce step is at least a second")
        precondition(!secrets.isEmpty, "a nonce secret at least")
        keys = secrets.map { secret in
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: secret), info: Data("mend-server DPoP nonce v1".utf8),
                outputByteCount: 32)
        }
        self.step = step
    }

    /// The longest a proof with a valid nonce can have been made before it is checked: two steps.
    var freshness: Int64 { 2 * step }

    /// The nonce of `now`'s step (unix seconds).
    func current(now: Int64) -> String { nonce(ofStep: now.floorDivided(by: step)) }

    /// Whether `nonce` is this server's, of `now`'s step or the one before.
    func isValid(_ nonce: String, now: Int64) -> Bool {
        guard nonce.utf8.count == 32, let bytes = Base64URL.decode(nonce), bytes.count == 24 else { return false }
        let stepOfNonce = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let current = now.floorDivided(by: step)
        guard stepOfNonce == current || stepOfNonce == current - 1 else { return false }
        return keys.contains { ConstantTime.equal(nonce, self.nonce(ofStep: stepOfNonce, key: $0)) }
    }

    /// base64url(the step, 8 bytes big-endian ‖ the first 16 bytes of its HMAC-SHA256): 32 characters.
    private func nonce(ofStep step: Int64, key: SymmetricKey? = nil) -> String {
        let stepBytes = (0..<8).map { UInt8(truncatingIfNeeded: step >> (8 * (7 - $0))) }
        var mac = HMAC<SHA256>(key: key ?? keys[0])
        mac.update(data: Data("step".utf8) + stepBytes)
        return Base64URL.encode(stepBytes + Data(mac.finalize()).prefix(16))
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// The `jti`s of the DPoP proofs this instance accepted, each kept until no proof with it could be accepted again
/// (its `iat` plus the window): a replay to this instance is refused without a database read.
///
/// A proof is kept as a 64-bit hash of its key's thumbprint and `jti` (the process's randomly seeded `Hasher`: no
/// string is stored, and a collision, which nobody outside can aim for, refuses a fresh proof — never takes a replay)
/// beside the time its window ends, and in a queue in the order accepted. Each use first drops, from the queue's
/// head, the proofs whose window has ended — windows are about as long as each other, so the oldest end first — and
/// past `capacity` the oldest go: every use costs the same however full the cache is (a dictionary of strings that
/// was filtered and sorted whole under its lock once full stalled every request behind it). A dropped entry could be
/// replayed only within what was left of its window, the bound ``DPoPNonces`` keeps short.
final class DPoPReplayCache: Sendable {
    private struct State {
        /// A proof's id → when its window ends.
        var ends: [UInt64: Int64] = [:]
        /// The proofs in the order accepted, from `head` on.
        var queue: [(id: UInt64, end: Int64)] = []
        var head = 0

        /// Drops the proof at the queue's head (and its entry, unless the id was accepted again since).
        mutating func dropHead() {
            let (id, end) = queue[head]
            if ends[id] == end { ends[id] = nil }
            head += 1
            if head >= 4096, head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }

    private let state: Locked<State>
    let capacity: Int

    init(capacity: Int = 100_000) {
        precondition(capacity > 0, "the cache holds at least one proof")
        self.capacity = capacity
        var state = State()
        state.ends.reserveCapacity(capacity)
        self.state = Locked(state)
    }

    /// Records the proof of key `thumbprint` with `jti`, kept until `expiresAt`; `false` when it was already there
    /// (a replay).
    func firstUse(thumbprint: String, jti: String, expiresAt: Int64, now: Int64) -> Bool {
        var hasher = Hasher()
        hasher.combine(thumbprint)
        hasher.combine(jti)
        let id = UInt64(bitPattern: Int64(hasher.finalize()))
        return state.withLock { state in
            while state.head < state.queue.count, state.queue[state.head].end <= now { state.dropHead() }
            if let end = state.ends[id], end > now { return false }
            while state.ends.count >= capacity, state.head < state.queue.count { state.dropHead() }
            state.ends[id] = expiresAt
            state.queue.append((id, expiresAt))
            return true
        }
    }

    /// How many proofs are held.
    var count: Int { state.withLock { $0.ends.count } }
}
