import Crypto
import Foundation
import MendCore

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
        return (try? ring.jwks()) ?? .object(["keys": .array([])])
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

    /// Whether `secret` is a valid Apple client secret for `client` at `now`.
    func verifyAppleClientSecret(_ secret: String, client: EmulatedIssuerClient, issuer: String, now: Date) -> Bool {
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])),
            let payloadData = Base64URL.decode(String(parts[1])),
            let signatureData = Base64URL.decode(String(parts[2])),
            case .success(let header) = JSONValue.parse(headerData),
            case .success(let claims) = JSONValue.parse(payloadData),
            header["alg"]?.stringValue == "ES256", header["kid"]?.stringValue == client.appleKeyID,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            appleTeamKey.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return false }
        let current = now.timeIntervalSince1970
        guard claims["iss"]?.stringValue == client.appleTeamID, claims["sub"]?.stringValue == client.id,
            claims["aud"]?.stringValue == issuer, let issuedAt = claims["iat"]?.doubleValue,
            let expires = claims["exp"]?.doubleValue
        else { return false }
        return issuedAt <= current + 60 && expires > current && expires - issuedAt <= 15_777_000
    }
}
