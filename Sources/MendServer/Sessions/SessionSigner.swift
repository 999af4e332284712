import Crypto
import Foundation
import JWTKit
import MendCore
import MendSignedRequest

/// Signs and verifies session access tokens with the configured keys (jwt-kit), and publishes their JWKS.
///
/// The first key signs; every key verifies, so that tokens signed before a rotation stay valid until they expire.
struct SessionSigner: Sendable {
    let keys: JWTKeyCollection
    /// Copies of the collection that verify: a key collection is an actor, so one alone would verify every request's
    /// token on one thread at a time.
    let verifiers: [JWTKeyCollection]
    let signingKeyID: String
    /// `{"keys": [...]}`: the public keys, signing key first.
    let jwks: JSONValue
    let issuer: String
    let audience: String

    init(configuration: [SigningKeyConfiguration], issuer: String, audience: String) async throws {
        precondition(!configuration.isEmpty, "at least one signing key")
        let collection = JWTKeyCollection()
        let verifiers = (0..<max(2, ProcessInfo.processInfo.activeProcessorCount * 2)).map { _ in JWTKeyCollection() }
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
                for verifier in verifiers {
                    await verifier.add(eddsa: EdDSA.PublicKey(backing: backing.publicKey), kid: kid)
                }
                published.append(
                    .object([
                        "kty": .string("OKP"), "crv": .string("Ed25519"), "use": .string("sig"),
                        "alg": .string("EdDSA"), "kid": .string(key.keyID),
                        "x": .string(Base64URL.encode(backing.publicKey.rawRepresentation)),
                    ]))
            case .es256:
                let backing = try P256.Signing.PrivateKey(rawRepresentation: raw)
                await collection.add(ecdsa: try ES256PrivateKey(backing: backing), kid: kid)
                for verifier in verifiers {
                    await verifier.add(ecdsa: try ES256PublicKey(backing: backing.publicKey), kid: kid)
                }
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
        self.verifiers = verifiers
        self.signingKeyID = configuration[0].keyID
        self.jwks = .object(["keys": .array(published)])
        self.issuer = issuer
        self.audience = audience
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
    func verify(_ token: String, now: Date) async -> Result<AccessTokenClaims, Rejection> {
        switch await verifyIgnoringExpiry(token) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let claims):
            guard Int64(now.timeIntervalSince1970) < claims.expiresAt else { return .failure(.expired) }
            return .success(claims)
        }
    }

    /// The claims of a token signed by a known key for our issuer and audience, expired or not: what token
    /// revocation (RFC 7009) accepts, since an expired access token still names its session.
    func verifyIgnoringExpiry(_ token: String) async -> Result<AccessTokenClaims, Rejection> {
        let claims: AccessTokenClaims
        do {
            claims = try await verifiers[Int.random(in: 0..<verifiers.count)].verify(token, as: AccessTokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            return .failure(.badSignature)
        } catch {
            return .failure(.malformed)
        }
        guard claims.issuer == issuer, claims.audience == audience else { return .failure(.wrongAudience) }
        return .success(claims)
    }
}
