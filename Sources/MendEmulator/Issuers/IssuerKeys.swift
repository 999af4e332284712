import Crypto
import Foundation
import MendCore
import MendJOSE

/// The emulated issuers' keys: each issuer's id_token signing keys (RS256, created on first use, rotated on command)
/// and Apple's team key, with which clients sign their client secrets.
struct IssuerKeys: Sendable {
    var signingKeys: [EmulatedIssuerKind: SigningKeyRing] = [:]
    /// Apple's team signing key (P-256), from the seed: clients sign their client secrets with it.
    let appleTeamKey: P256.Signing.PrivateKey

    init(seed: UInt64) {
        var generator = SeededGenerator(seed: seed ^ 0x4150_504C_454B_4559)
        var bytes = [UInt8]()
        while bytes.count < 32 {
            withUnsafeBytes(of: generator.next().bigEndian) { bytes.append(contentsOf: $0) }
        }
        // A P-256 scalar from 32 seeded bytes; the one-in-2^32 that is out of range falls back to a random key.
        appleTeamKey = (try? P256.Signing.PrivateKey(rawRepresentation: bytes)) ?? P256.Signing.PrivateKey()
    }

    /// An issuer's key set (its current key created on first use).
    mutating func jwks(_ kind: EmulatedIssuerKind, random: inout SeededGenerator) -> JSONValue {
        var ring = signingKeys[kind] ?? SigningKeyRing()
        _ = try? ring.current(random: &random)
        signingKeys[kind] = ring
        return ring.jwks()
    }

    /// Rotates an issuer's signing key (the JWKS keeps the previous one).
    mutating func rotate(_ kind: EmulatedIssuerKind, random: inout SeededGenerator) throws {
        var ring = signingKeys[kind] ?? SigningKeyRing()
        try ring.rotate(random: &random)
        signingKeys[kind] = ring
    }

    /// A signed id_token in the issuer's shape.
    mutating func idToken(
        kind: EmulatedIssuerKind, clientID: String, userID: String, nonce: String?, scopes: [String], issuer: String,
        code: String?, accessToken: String?, users: UserDirectory, context: inout EmulatorContext
    ) throws -> String {
        guard let user = users[userID]?.profile else { throw GraphFailure.catalog(code: 100, subcode: 33) }
        var ring = signingKeys[kind] ?? SigningKeyRing()
        let key = try ring.current(random: &context.random)
        signingKeys[kind] = ring
        let claims = IssuerClaims.idToken(
            kind: kind, clientID: clientID, user: user, nonce: nonce, scopes: scopes, issuer: issuer, code: code,
            accessToken: accessToken, issuedAt: Int(context.now.timeIntervalSince1970), users: users)
        return try SigningKeyRing.sign(claims: JSONValue.object(claims), with: key)
    }

    /// The rule of a client secret's times: at most six months valid (Apple's limit), issued no later than a minute
    /// ahead of now, not expired (to the second), `nbf` (if any) passed.
    static let clientSecretTimes = JWTTimeRule(skew: 60, expiryLeeway: 0, maximumLifetime: 15_777_000)

    /// Whether `secret` is a valid Apple client secret for `client` at `now`: an ES256 JWS of the team key naming the
    /// client's key id, read by MendJOSE (canonical parts, each member once, no `crit`), `iss` the team, `sub` the
    /// client, `aud` the issuer, times as numbers under ``clientSecretTimes``.
    func verifyAppleClientSecret(_ secret: String, client: EmulatedIssuerClient, issuer: String, now: Date) -> Bool {
        do {
            let jws = try CompactJWS(secret)
            guard jws.header.keyID == client.appleKeyID else { return false }
            let claims = try jws.verified(
                with: JWSPublicKey(.p256(appleTeamKey.publicKey)), allowed: .appleClientSecret
            )
            .claims()
            guard try claims.requiredString("iss") == client.appleTeamID, try claims.requiredString("sub") == client.id,
                try claims.audience() == [issuer]
            else { return false }
            try Self.clientSecretTimes.check(try claims.times(), now: now.timeIntervalSince1970)
            return true
        } catch {
            return false
        }
    }
}
