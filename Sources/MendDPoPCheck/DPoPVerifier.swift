package import Foundation
import MendCore
package import MendJOSE

/// Verifies a DPoP proof (RFC 9449 §4.3) for one request: what a bound session's every use must carry. The servers'
/// side of DPoP (mend-server and the emulator): no client module links it.
///
/// The checks, in order: the JWS as MendJOSE reads every JWS (three canonical base64url parts, the header's and the
/// claims' members each once, no `crit`, no `b64`); the header's `typ` (`dpop+jwt`), `alg` on the allow-list (ES256)
/// and `jwk` (an EC P-256 public key, no private member, read by MendJOSE's one JWK reader); the signature over the
/// first two parts; the claims' `htm`
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
    package var keys: DPoPKeyCache?

    /// A verifier whose window is `maximumAge` back and `skew` ahead, keeping keys in `keys`.
    package init(maximumAge: Int64 = 300, skew: Int64 = 60, keys: DPoPKeyCache? = nil) {
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
    /// accepted however old its `iat`: the nonce is the server's own timestamp of the proof (RFC 9449 §4.3, step 11),
    /// so a client whose clock is behind gets one nonce challenge. An `iat` or `nbf` ahead of `now` by more than
    /// `skew` is refused even with a nonce (a client whose clock is ahead learns the server's from the refusal's
    /// `Date`, as Mend's does).
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
    /// `accessTokenHash` is `accessToken`'s `ath` when the caller knows it already (a cache keeps it), else it is
    /// hashed here.
    package func verify(
        _ proof: String, method: String, htu expected: String, accessToken: String?,
        accessTokenHash: String? = nil, now: Int64,
        nonceIsValid: ((String) -> Bool)? = nil, requiresNonce: Bool? = nil
    ) throws(Refusal) -> Verified {
        let requiresNonce = requiresNonce ?? (nonceIsValid != nil)
        let parsed: Result<(CompactJWS, DPoPKeyCache.Header?), JOSEError>
        var text = proof
        parsed = text.withUTF8 { bytes in
            do throws(JOSEError) {
                let parts = try CompactJWS.split(bytes, maximumLength: Self.maximumLength)
                // The header of the last proof accepted, byte for byte: read and checked then, not again.
                if let known = keys?.header(matching: UnsafeBufferPointer(rebasing: bytes[..<parts.first])) {
                    return .success((CompactJWS(bytes: bytes, parts: parts, header: known.header), known))
                }
                return .success((try CompactJWS(bytes: bytes, parts: parts), nil))
            } catch {
                return .failure(error)
            }
        }
        let jws: CompactJWS
        let known: DPoPKeyCache.Header?
        switch parsed {
        case .success(let parsed): (jws, known) = parsed
        case .failure(let error) where error.kind == .malformed && error.reason.hasPrefix("it is longer"):
            throw .invalid("the proof is too long")
        case .failure(let error) where error.kind == .malformed:
            throw .invalid("not a JWT of JSON objects (each member once)")
        case .failure(.unsupportedAlgorithm):
            throw .invalid("alg is not one this server accepts (ES256)")
        case .failure(let error):
            throw .invalid(error.reason)
        }
        let key: JWSPublicKey
        let thumbprint: String
        if let known {
            (key, thumbprint) = (known.key, known.thumbprint)
        } else {
            (key, thumbprint) = try Self.checkHeader(jws.header, keys: keys)
            keys?.remember(proof, header: jws.header, key: key, thumbprint: thumbprint)
        }
        let claims: JWTClaims
        do {
            claims = try jws.verified(with: key, allowed: .dpop).claims()
        } catch {
            throw .invalid(error.kind == .signature ? "the signature does not verify with its jwk" : error.reason)
        }

        guard claims["htm"]?.stringValue == method.uppercased() else {
            throw .invalid("htm is not the request's method")
        }
        guard let htu = claims["htu"]?.stringValue,
            htu == expected || URL(string: htu).map(DPoPProof.htu) == expected
        else { throw .invalid("htu is not the request's URL") }
        guard let times = try? claims.times(), let seconds = times.issuedAt else {
            throw .invalid("iat is missing or not a number")
        }
        let issuedAt = Int64(seconds.rounded(.down))
        let nonceIsFresh = claims["nonce"]?.stringValue.map { nonce in nonceIsValid?(nonce) ?? false } ?? false
        if requiresNonce, !nonceIsFresh { throw .nonceRequired }
        let window = JWTTimeRule(skew: Double(skew), requiresExpiry: false, maximumAge: Double(maximumAge))
        // A fresh nonce stands for the proof's age (RFC 9449 §11.1), not for a time ahead of the server's: nbf or iat
        // beyond the skew is refused with or without one, as at every other use of a JWT.
        if nonceIsFresh,
            (try? JWTTimeRule(skew: Double(skew), requiresExpiry: false).check(times, now: Double(now))) == nil
        {
            throw .invalid("iat or nbf is ahead of the server's clock")
        }
        guard nonceIsFresh || (try? window.check(times, now: Double(now))) != nil else {
            // Without a nonce the window is the only bound on the proof's age; with none to give, refuse.
            guard nonceIsValid != nil else { throw .invalid("iat is outside the accepted window") }
            throw .nonceRequired
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.count <= 128 else {
            throw .invalid("jti is missing or longer than 128 characters")
        }
        if let accessToken {
            guard let ath = claims["ath"]?.stringValue,
                ConstantTime.equal(ath, accessTokenHash ?? DPoPProof.ath(accessToken))
            else { throw .invalid("ath is not the presented access token's hash") }
        }
        return Verified(thumbprint: thumbprint, jti: jti, issuedAt: issuedAt, hasNonce: nonceIsFresh)
    }

    /// The checks of a proof's header (`typ`, `alg`, `jwk`), and its key and the key's thumbprint.
    private static func checkHeader(
        _ header: JWSHeader, keys: DPoPKeyCache?
    ) throws(Refusal) -> (JWSPublicKey, String) {
        guard header.type == DPoPProof.type else { throw .invalid("typ is not dpop+jwt") }
        guard JWSAlgorithms.dpop.allowed.contains(header.algorithm) else {
            throw .invalid("alg is not one this server accepts (ES256)")
        }
        guard case .object(let jwk)? = header.members["jwk"], jwk["kty"] == .string("EC"),
            jwk["crv"] == .string("P-256")
        else { throw .invalid("jwk is not an EC P-256 public key") }
        guard jwk["d"] == nil else { throw .invalid("jwk holds a private key") }
        guard let read = keys?.key(jwk) ?? Self.key(jwk) else {
            throw .invalid("jwk is not an EC P-256 public key")
        }
        return read
    }

    /// The key of a proof's `jwk` (MendJOSE's JWK reader), and its RFC 7638 thumbprint; `nil` when it is not a P-256
    /// public key that may verify.
    static func key(_ jwk: [String: JSONValue]) -> (JWSPublicKey, String)? {
        guard let key = try? JWK.publicKey(jwk), key.algorithm == .es256 else { return nil }
        return (key, JWK.thumbprint(of: key))
    }
}

/// The public keys of the proofs a verifier saw, by their coordinates: a session proves the same key on every
/// request, and reading a point and hashing its thumbprint once is enough. Only a `jwk` of exactly the four required
/// members is cached (any other is read in full each time, so that no member escapes the reader's checks). Bounded:
/// full, it starts again.
///
/// It also keeps the headers of the proofs accepted, by their base64url text (bounded alike): a client sends the same
/// header (`typ`, `alg`, `jwk`) on every request, and a proof whose header part is such a text byte for byte was read
/// and checked before — it is neither decoded nor checked again. The last one is found without building a key.
package final class DPoPKeyCache: Sendable {
    /// A proof header that passed every check, its key and the key's thumbprint.
    package struct Header: Sendable {
        /// The header part as sent (base64url).
        let segment: [UInt8]
        let header: JWSHeader
        let key: JWSPublicKey
        let thumbprint: String
    }

    private let keys = Locked<[String: (JWSPublicKey, String)]>([:])
    /// The headers of the proofs accepted, by their part's bytes.
    private let headers = Locked<[[UInt8]: Header]>([:])
    /// The header of the last proof accepted.
    private let last = Locked<Header?>(nil)
    let capacity: Int

    /// A cache of at most `capacity` keys.
    package init(capacity: Int = 10_000) { self.capacity = max(1, capacity) }

    /// The key of `jwk` (and its thumbprint), read once.
    func key(_ jwk: [String: JSONValue]) -> (JWSPublicKey, String)? {
        guard JWK.isBareP256(jwk), case .string(let x)? = jwk["x"], case .string(let y)? = jwk["y"] else {
            return DPoPVerifier.key(jwk)
        }
        let id = x + "." + y
        if let known = keys.withLock({ $0[id] }) { return known }
        guard let made = DPoPVerifier.key(jwk) else { return nil }
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[id] = made
        }
        return made
    }

    /// An accepted header whose part is `segment` byte for byte: the last one, else any kept.
    func header(matching segment: UnsafeBufferPointer<UInt8>) -> Header? {
        let latest = last.withLock { last -> Header? in
            guard let last, last.segment.count == segment.count,
                last.segment.withUnsafeBufferPointer({ $0.elementsEqual(segment) })
            else { return nil }
            return last
        }
        if let latest { return latest }
        let key = Array(segment)
        guard let known = headers.withLock({ $0[key] }) else { return nil }
        last.withLock { $0 = known }
        return known
    }

    /// Keeps the header part of `proof`, read as `header` and passing every check (the last accepted, and among the
    /// kept ones).
    func remember(_ proof: String, header: JWSHeader, key: JWSPublicKey, thumbprint: String) {
        let segment = Array(proof.utf8.prefix { $0 != UInt8(ascii: ".") })
        let accepted = Header(segment: segment, header: header, key: key, thumbprint: thumbprint)
        headers.withLock { headers in
            if headers.count >= capacity { headers.removeAll(keepingCapacity: true) }
            headers[segment] = accepted
        }
        last.withLock { $0 = accepted }
    }
}
