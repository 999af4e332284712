import Crypto
import Foundation
import JWTKit
import MendCore
import MendSignedRequest

/// Signs session access tokens with the configured keys (jwt-kit), verifies them, and publishes their JWKS.
///
/// The first key signs; every key verifies, so that tokens signed before a rotation stay valid until they expire.
///
/// Verification runs on the caller's thread with swift-crypto's public keys (``VerifyingKey``), not through jwt-kit's
/// key collection: the collection is an actor, and every bearer check hopping onto one (or one of a few) cost more
/// than the signature itself at 64 connections (MendServerBenchmark prints both).
struct SessionSigner: Sendable {
    let keys: JWTKeyCollection
    /// The public keys that verify, by `kid`.
    let verifyingKeys: [String: VerifyingKey]
    /// The exact header segment this server's signer writes for each key, to the key: a token of ours skips decoding
    /// its header (any other header is decoded and checked in full).
    let knownHeaders: [Substring: VerifyingKey]
    let signingKeyID: String
    /// `{"keys": [...]}`: the public keys, signing key first.
    let jwks: JSONValue
    let issuer: String
    let audience: String
    /// The verified tokens of these keys (`nil`: every check verifies the signature).
    let cache: VerifiedTokenCache?

    init(
        configuration: [SigningKeyConfiguration], issuer: String, audience: String, cacheCapacity: Int = 0
    ) async throws {
        precondition(!configuration.isEmpty, "at least one signing key")
        let collection = JWTKeyCollection()
        var verifyingKeys: [String: VerifyingKey] = [:]
        var published: [JSONValue] = []
        for key in configuration {
            guard let raw = Base64URL.decode(key.privateKey.value) else {
                throw ConfigurationError("signing key '\(key.keyID)' is not base64url")
            }
            let kid = JWKIdentifier(string: key.keyID)
            switch key.algorithm {
            case .eddsa:
                let backing = try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
                await collection.add(eddsa: EdDSA.PrivateKey(backing: backing), kid: kid)
                verifyingKeys[key.keyID] = .eddsa(backing.publicKey)
                published.append(
                    .object([
                        "kty": .string("OKP"), "crv": .string("Ed25519"), "use": .string("sig"),
                        "alg": .string("EdDSA"), "kid": .string(key.keyID),
                        "x": .string(Base64URL.encode(backing.publicKey.rawRepresentation)),
                    ]))
            case .es256:
                let backing = try P256.Signing.PrivateKey(rawRepresentation: raw)
                await collection.add(ecdsa: try ES256PrivateKey(backing: backing), kid: kid)
                verifyingKeys[key.keyID] = .es256(backing.publicKey)
                let point = backing.publicKey.x963Representation
                published.append(
                    .object([
                        "kty": .string("EC"), "crv": .string("P-256"), "use": .string("sig"), "alg": .string("ES256"),
                        "kid": .string(key.keyID),
                        "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65])),
                    ]))
            }
        }
        self.keys = collection
        self.verifyingKeys = verifyingKeys
        var knownHeaders: [Substring: VerifyingKey] = [:]
        for key in configuration {
            let probe = try await collection.sign(
                AccessTokenClaims(
                    issuer: "", audience: "", subject: "", sessionID: "", scope: "", issuedAt: 0, expiresAt: 0,
                    tokenID: ""), kid: JWKIdentifier(string: key.keyID))
            if let header = probe.split(separator: ".").first, let verifying = verifyingKeys[key.keyID] {
                knownHeaders[Substring(String(header))] = verifying
            }
        }
        self.knownHeaders = knownHeaders
        self.signingKeyID = configuration[0].keyID
        self.jwks = .object(["keys": .array(published)])
        self.issuer = issuer
        self.audience = audience
        self.cache = cacheCapacity > 0 ? VerifiedTokenCache(capacity: cacheCapacity) : nil
    }

    func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await keys.sign(claims, kid: JWKIdentifier(string: signingKeyID))
    }

    /// Why an access token was refused.
    enum Rejection: Error, Sendable, Equatable {
        case malformed
        case badSignature
        case expired
        case wrongAudience
    }

    /// The claims of a valid token: signature by a known key, issuer and audience ours, not expired at `now`.
    func verify(_ token: String, now: Date) -> Result<AccessTokenClaims, Rejection> {
        switch verifyIgnoringExpiry(token) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let claims):
            guard Int64(now.timeIntervalSince1970) < claims.expiresAt else { return .failure(.expired) }
            return .success(claims)
        }
    }

    /// ``verify(_:now:)`` through the cache: a token verified before answers from it — its `exp` checked against
    /// `now` as ever — and one that verifies now is cached; a refusal never is. `cacheHit` is `nil` without a cache.
    func verifyCached(_ token: String, now: Date) -> (result: Result<AccessTokenClaims, Rejection>, cacheHit: Bool?) {
        guard let cache else { return (verify(token, now: now), nil) }
        let seconds = Int64(now.timeIntervalSince1970)
        if let claims = cache.claims(for: token) {
            guard seconds < claims.expiresAt else {
                cache.remove(token)
                return (.failure(.expired), true)
            }
            return (.success(claims), true)
        }
        let result = verify(token, now: now)
        if case .success(let claims) = result { cache.admit(token, claims: claims) }
        return (result, false)
    }

    /// The claims of a token signed by a known key for our issuer and audience, expired or not: what token
    /// revocation (RFC 7009) accepts, since an expired access token still names its session.
    ///
    /// A compact JWS of three base64url parts; the header names a known `kid` and exactly that key's algorithm, and
    /// carries no `crit`; the signature is checked before the claims are decoded.
    func verifyIgnoringExpiry(_ token: String) -> Result<AccessTokenClaims, Rejection> {
        var text = token
        return text.withUTF8 { verifyIgnoringExpiry(bytes: $0, token: token) }
    }

    /// ``verifyIgnoringExpiry(_:)`` over the token's bytes: its parts found by two searches for a dot (`split` over a
    /// string's UTF-8 view, generic and a byte at a time, cost about 25,000 instructions: as much as the rest of the
    /// check around the signature).
    private func verifyIgnoringExpiry(bytes: UnsafeBufferPointer<UInt8>, token: String) -> Verdict {
        guard bytes.count <= 8192 else { return .failure(.malformed) }
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot), first > 0,
            let second = bytes[(first + 1)...].firstIndex(of: dot), second > first + 1,
            !bytes[(second + 1)...].contains(dot)
        else { return .failure(.malformed) }
        let headerPart = UnsafeBufferPointer(rebasing: bytes[..<first])
        guard let payload = Base64URL.decodeBytes(UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
            let signature = Base64URL.decodeBytes(UnsafeBufferPointer(rebasing: bytes[(second + 1)...]))
        else { return .failure(.malformed) }
        let key: VerifyingKey
        let utf8 = token.utf8
        if let known = knownHeaders[Substring(utf8[..<utf8.index(utf8.startIndex, offsetBy: first)])] {
            key = known
        } else {
            // jwt-kit writes a header's members in its dictionary's order, which changes from token to token: most
            // tokens of ours are found above, the rest are parsed here (without Foundation's decoder, as the claims).
            guard let headerBytes = Base64URL.decodeBytes(headerPart), let header = Header(headerBytes) else {
                return .failure(.malformed)
            }
            guard let kid = header.kid, let named = verifyingKeys[kid], header.alg == named.algorithm else {
                return .failure(.badSignature)
            }
            key = named
        }
        let signingInput = Data(UnsafeBufferPointer(rebasing: bytes[..<second]))
        guard key.isValidSignature(Data(signature), for: signingInput) else { return .failure(.badSignature) }
        guard let claims = AccessTokenClaims(payload: payload) else { return .failure(.malformed) }
        guard claims.issuer == issuer, claims.audience == audience else { return .failure(.wrongAudience) }
        return .success(claims)
    }

    /// What a verification finds.
    private typealias Verdict = Result<AccessTokenClaims, Rejection>

    /// A JWS header's fields that verification reads.
    private struct Header {
        var alg: String?
        var kid: String?

        /// `nil` for a header that is not a JSON object, whose `alg` or `kid` is not a string, or that has `crit`
        /// (no extension is understood here, RFC 7515 §4.1.11).
        init?(_ bytes: [UInt8]) {
            guard let members = JSONValue.parseObject(bytes) else { return nil }
            switch members["crit"] {
            case nil, .null?: break
            default: return nil
            }
            switch members["alg"] {
            case nil, .null?: alg = nil
            case .string(let value)?: alg = value
            default: return nil
            }
            switch members["kid"] {
            case nil, .null?: kid = nil
            case .string(let value)?: kid = value
            default: return nil
            }
        }
    }
}

/// A public key that verifies session access tokens, without an actor.
enum VerifyingKey: Sendable {
    case eddsa(Curve25519.Signing.PublicKey)
    case es256(P256.Signing.PublicKey)

    /// The JWS `alg` of the key.
    var algorithm: String {
        switch self {
        case .eddsa: "EdDSA"
        case .es256: "ES256"
        }
    }

    /// Whether `signature` (JWS form: Ed25519's 64 bytes, or ES256's `r‖s`) signs `data`.
    func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        switch self {
        case .eddsa(let key):
            return key.isValidSignature(signature, for: data)
        case .es256(let key):
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        }
    }
}

extension Substring {
    /// `nil` when empty.
    fileprivate var nonEmpty: Substring? { isEmpty ? nil : self }
}
