import Crypto
import Foundation
import MendCore
import MendJOSE
import MendSignedRequest

/// Signs session access tokens with the configured keys, verifies them, and publishes their JWKS — all through
/// MendJOSE, Mend's one JOSE implementation.
///
/// The current key signs (the first one, should a list built in code have several); every key verifies — next,
/// current and retired — so that tokens signed before a rotation stay valid until they expire, and an instance that
/// has not yet made a key current accepts the tokens of one that has.
/// Tokens signed before MendJOSE (by jwt-kit, their header's members in any order) verify as well: the header is
/// read in full whenever it is not the exact text this server writes.
struct SessionSigner: Sendable {
    /// The key that signs.
    private let signingKey: SoftwareSigningKey
    let signingKeyID: String
    /// The public keys that verify, by `kid` (MendJOSE's verifier of an issuer's own tokens).
    private let ring: JWSKeyRing
    /// `{"keys": [...]}`: the public keys, signing key first, then the others in their order.
    let jwks: JSONValue
    let issuer: String
    let audience: String
    /// The verified tokens of these keys (`nil`: every check verifies the signature).
    let cache: VerifiedTokenCache?

    /// The times of a session token: the server's own expiry to the second; a token issued (or valid from) up to a
    /// minute ahead of this instance's clock is another instance's, whose clock is ahead.
    static let timeRule = JWTTimeRule(skew: 60, expiryLeeway: 0)
    /// The longest token accepted, in bytes.
    static let maximumLength = 8192
    /// The `typ` of a session token's header.
    static let type = "JWT"

    init(
        configuration: [SigningKeyConfiguration], issuer: String, audience: String, cacheCapacity: Int = 0
    ) throws {
        precondition(!configuration.isEmpty, "at least one signing key")
        var signingKeys: [SoftwareSigningKey] = []
        var verifyingKeys: [JWSPublicKey] = []
        var published: [JSONValue] = []
        for key in configuration {
            guard let raw = Base64URL.decode(key.privateKey.value) else {
                throw ConfigurationError("signing key '\(key.keyID)' is not base64url")
            }
            let signing: SoftwareSigningKey =
                switch key.algorithm {
                case .eddsa: .edDSA(try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
                case .es256: .es256(try P256.Signing.PrivateKey(rawRepresentation: raw))
                }
            var verifying = signing.publicKey
            verifying.keyID = key.keyID
            signingKeys.append(signing)
            verifyingKeys.append(verifying)
            published.append(JWK.publicJSON(of: verifying))
        }
        guard let signing = configuration.firstIndex(where: { $0.state == .current }) else {
            throw ConfigurationError("MEND_SIGNING_KEYS: no key is current (one must sign)")
        }
        self.signingKey = signingKeys[signing]
        self.signingKeyID = configuration[signing].keyID
        self.ring = JWSKeyRing(
            keys: verifyingKeys, allowed: .session, maximumLength: Self.maximumLength, type: Self.type)
        published.insert(published.remove(at: signing), at: 0)
        self.jwks = JWKSet.document(published)
        self.issuer = issuer
        self.audience = audience
        self.cache = cacheCapacity > 0 ? VerifiedTokenCache(capacity: cacheCapacity) : nil
    }

    func sign(_ claims: AccessTokenClaims) throws -> String {
        try JWSSigner.sign(claims: claims.members, with: signingKey, keyID: signingKeyID, type: Self.type)
    }

    /// Why an access token was refused.
    enum Rejection: Error, Sendable, Equatable {
        case malformed
        case badSignature
        case expired
        case notYetValid
        case wrongAudience
    }

    /// The claims of a valid token: signature by a known key, issuer and audience ours, not expired at `now`.
    func verify(_ token: String, now: Date) -> Result<AccessTokenClaims, Rejection> {
        switch verifyIgnoringExpiry(token, now: now) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let claims):
            guard !Self.isExpired(claims, now: now) else { return .failure(.expired) }
            return .success(claims)
        }
    }

    /// Whether verified claims have expired at `now`.
    static func isExpired(_ claims: AccessTokenClaims, now: Date) -> Bool {
        timeRule.isExpired(expiresAt: Double(claims.expiresAt), now: now.timeIntervalSince1970.rounded(.down))
    }

    /// ``verify(_:now:)`` through the cache: a token verified before answers from it — its `exp` checked against
    /// `now` as ever — and one that verifies now is cached; a refusal never is. `cacheHit` is `nil` without a cache.
    /// `proofHash` is a bound token's `ath` (the SHA-256 every proof presenting it names), hashed once, when the token
    /// verifies, and kept beside its claims in the cache; `nil` for a bearer token, or without a cache.
    func verifyCached(
        _ token: String, now: Date
    ) -> (result: Result<AccessTokenClaims, Rejection>, proofHash: String?, cacheHit: Bool?) {
        guard let cache else { return (verify(token, now: now), nil, nil) }
        if let (claims, proofHash) = cache.entry(for: token) {
            guard !Self.isExpired(claims, now: now) else {
                cache.remove(token)
                return (.failure(.expired), nil, true)
            }
            return (.success(claims), proofHash, true)
        }
        let result = verify(token, now: now)
        guard case .success(let claims) = result else { return (result, nil, false) }
        let proofHash = claims.confirmation == nil ? nil : DPoPProof.ath(token)
        cache.admit(token, claims: claims, proofHash: proofHash)
        return (result, proofHash, false)
    }

    /// The claims of a token signed by a known key for our issuer and audience, expired or not: what token
    /// revocation (RFC 7009) accepts, since an expired access token still names its session. Its `nbf` and `iat` are
    /// checked at `now` all the same.
    ///
    /// A compact JWS as MendJOSE reads one (three canonical base64url parts, the header's members once, no `crit`);
    /// the header names a known `kid` and exactly that key's algorithm; the signature is checked before the claims are
    /// read (``JWSKeyRing``).
    func verifyIgnoringExpiry(_ token: String, now: Date) -> Result<AccessTokenClaims, Rejection> {
        var text = token
        return text.withUTF8 { verifyIgnoringExpiry(bytes: $0, now: now) }
    }

    /// ``verifyIgnoringExpiry(_:now:)`` over the token's bytes.
    private func verifyIgnoringExpiry(bytes: UnsafeBufferPointer<UInt8>, now: Date) -> Verdict {
        let payload: [UInt8]
        do {
            payload = try ring.verify(bytes)
        } catch {
            switch error.kind {
            case .malformed, .header: return .failure(.malformed)
            default: return .failure(.badSignature)
            }
        }
        guard let claims = AccessTokenClaims(payload: payload), !claims.subject.isEmpty else {
            return .failure(.malformed)
        }
        do {
            try Self.timeRule.check(claims.times, now: now.timeIntervalSince1970, checkExpiry: false)
        } catch {
            return .failure(.notYetValid)
        }
        guard claims.issuer == issuer, claims.audience == audience else { return .failure(.wrongAudience) }
        return .success(claims)
    }

    /// What a verification finds.
    private typealias Verdict = Result<AccessTokenClaims, Rejection>
}
