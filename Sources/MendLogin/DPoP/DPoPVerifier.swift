import Crypto
package import Foundation
import MendCore

/// Verifies a DPoP proof (RFC 9449 §4.3) for one request: what a bound session's every use must carry.
///
/// The checks, in order: the JWT's three parts; the header's `typ` (`dpop+jwt`), `alg` on the allow-list (ES256) and
/// `jwk` (an EC P-256 public key, no private member); the signature over the first two parts; the claims' `htm`
/// (the request's method), `htu` (the request's public URL, both normalised alike: see `DPoPProof.htu`), `iat` within
/// the window (`maximumAge` back, `skew` ahead), `jti` (present, at most 128 characters), `ath` (the access token's
/// SHA-256, when the request presents one) and `nonce` (when one is expected). The replay check of `jti` is the
/// caller's: it needs a store. mend-server's session check and the emulator's issuers both verify with it.
package struct DPoPVerifier: Sendable {
    /// How old a proof may be (`iat` in the past).
    package var maximumAge: Int64 = 300
    /// How far ahead of the server's clock a proof's `iat` may be.
    package var skew: Int64 = 60
    /// The largest proof accepted, in bytes: a proof is a header, small claims and a 64-byte signature.
    package static let maximumLength = 4096

    /// Where the keys of proofs seen before are kept (`nil`: each proof's key is read anew).
    package var keys: ProofKeyCache?

    /// A verifier whose window is `maximumAge` back and `skew` ahead, keeping keys in `keys`.
    package init(maximumAge: Int64 = 300, skew: Int64 = 60, keys: ProofKeyCache? = nil) {
        self.maximumAge = maximumAge
        self.skew = skew
        self.keys = keys
    }

    /// A verified proof: the thumbprint of its key, its `jti`, its `iat`, and whether a fresh nonce of this server
    /// vouched for its time.
    package struct Verified: Sendable, Hashable {
        package var thumbprint: String
        package var jti: String
        package var issuedAt: Int64
        package var hasNonce = false
    }

    /// Why a proof was refused (the `error_description` of a 401 with `error="invalid_dpop_proof"`), or that a nonce
    /// is needed (`error="use_dpop_nonce"`).
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case invalid(String)
        case nonceRequired

        package var description: String {
            switch self {
            case .invalid(let reason): "invalid DPoP proof: \(reason)"
            case .nonceRequired: "a DPoP nonce is required"
            }
        }
    }

    /// Verifies `proof` for a request of `method` to `url` (the public URL), presenting `accessToken` (`nil` at the
    /// token endpoints), at `now` (unix seconds).
    ///
    /// `nonceIsValid` decides whether a nonce is this server's and fresh; `requiresNonce` makes one necessary. A proof
    /// whose `iat` is outside the window is asked for a nonce (`use_dpop_nonce`), and one with a valid nonce is
    /// accepted whatever its `iat`: the nonce is the server's own timestamp of the proof (RFC 9449 §4.3, step 11), so
    /// a client whose clock is off gets one nonce challenge, never a refusal.
    package func verify(
        _ proof: String, method: String, url: URL, accessToken: String?, now: Int64,
        nonceIsValid: ((String) -> Bool)? = nil, requiresNonce: Bool? = nil
    ) throws(Refusal) -> Verified {
        try verify(
            proof, method: method, htu: DPoPProof.htu(url), accessToken: accessToken, now: now,
            nonceIsValid: nonceIsValid, requiresNonce: requiresNonce)
    }

    /// ``verify(_:method:url:accessToken:now:nonceIsValid:requiresNonce:)`` for a request whose URL is already in
    /// `htu`'s form (``DPoPProof/htu(_:)``): a proof whose `htu` is that very text needs no URL parsing.
    package func verify(
        _ proof: String, method: String, htu expected: String, accessToken: String?, now: Int64,
        nonceIsValid: ((String) -> Bool)? = nil, requiresNonce: Bool? = nil
    ) throws(Refusal) -> Verified {
        let requiresNonce = requiresNonce ?? (nonceIsValid != nil)
        let bytes = Array(proof.utf8)
        guard bytes.count <= Self.maximumLength else { throw .invalid("the proof is too long") }
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2, let headerBytes = Base64URL.decodeBytes(bytes[..<dots[0]]),
            let claimsBytes = Base64URL.decodeBytes(bytes[(dots[0] + 1)..<dots[1]]),
            let signature = Base64URL.decodeBytes(bytes[(dots[1] + 1)...]),
            let header = JSONValue.parseObject(headerBytes), let claims = JSONValue.parseObject(claimsBytes)
        else { throw .invalid("not a JWT of JSON objects (each member once)") }

        guard header["typ"]?.stringValue == "dpop+jwt" else { throw .invalid("typ is not dpop+jwt") }
        guard header["alg"]?.stringValue == "ES256" else {
            throw .invalid("alg is not one this server accepts (ES256)")
        }
        guard case .object(let jwk)? = header["jwk"], jwk["kty"]?.stringValue == "EC",
            jwk["crv"]?.stringValue == "P-256", let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue
        else { throw .invalid("jwk is not an EC P-256 public key") }
        guard jwk["d"] == nil else { throw .invalid("jwk holds a private key") }
        guard let (key, thumbprint) = keys?.key(x: x, y: y) ?? Self.key(x: x, y: y) else {
            throw .invalid("jwk is not an EC P-256 public key")
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data(bytes[..<dots[1]]))
        else { throw .invalid("the signature does not verify with its jwk") }

        guard claims["htm"]?.stringValue == method.uppercased() else {
            throw .invalid("htm is not the request's method")
        }
        guard let htu = claims["htu"]?.stringValue,
            htu == expected || URL(string: htu).map(DPoPProof.htu) == expected
        else { throw .invalid("htu is not the request's URL") }
        guard case .int(let seconds)? = claims["iat"] else { throw .invalid("iat is missing or not a number") }
        let issuedAt = Int64(seconds)
        let nonceIsFresh = claims["nonce"]?.stringValue.map { nonce in nonceIsValid?(nonce) ?? false } ?? false
        if requiresNonce, !nonceIsFresh { throw .nonceRequired }
        guard nonceIsFresh || (issuedAt <= now + skew && issuedAt >= now - maximumAge - skew) else {
            // Without a nonce the window is the only bound on the proof's age; with none to give, refuse.
            guard nonceIsValid != nil else { throw .invalid("iat is outside the accepted window") }
            throw .nonceRequired
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.count <= 128 else {
            throw .invalid("jti is missing or longer than 128 characters")
        }
        if let accessToken {
            guard let ath = claims["ath"]?.stringValue,
                ConstantTime.equal(ath, DPoPProof.ath(accessToken))
            else { throw .invalid("ath is not the presented access token's hash") }
        }
        return Verified(thumbprint: thumbprint, jti: jti, issuedAt: issuedAt, hasNonce: nonceIsFresh)
    }

    /// The key a `jwk`'s coordinates name, and its RFC 7638 thumbprint; `nil` when they are not a P-256 point.
    static func key(x: String, y: String) -> (P256.Signing.PublicKey, String)? {
        guard let xBytes = Base64URL.decodeBytes(x.utf8), let yBytes = Base64URL.decodeBytes(y.utf8),
            xBytes.count == 32, yBytes.count == 32,
            let key = try? P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)
        else { return nil }
        return (key, ProofPublicKey(x: x, y: y).thumbprint)
    }
}

/// The public keys of the proofs a verifier saw, by their coordinates: a session proves the same key on every
/// request, and reading a point and hashing its thumbprint once is enough. Bounded: full, it starts again.
package final class ProofKeyCache: Sendable {
    private let keys = Locked<[String: (P256.Signing.PublicKey, String)]>([:])
    let capacity: Int

    /// A cache of at most `capacity` keys.
    package init(capacity: Int = 10_000) { self.capacity = max(1, capacity) }

    /// The key of `x` and `y` (and its thumbprint), read once.
    func key(x: String, y: String) -> (P256.Signing.PublicKey, String)? {
        let id = x + "." + y
        if let known = keys.withLock({ $0[id] }) { return known }
        guard let read = DPoPVerifier.key(x: x, y: y) else { return nil }
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[id] = read
        }
        return read
    }
}
