import Crypto
import Foundation
import MendCore
import MendJOSE
import _CryptoExtras

/// Structural redaction of JWTs, and their re-signing at replay.
///
/// In a recording, a JWT (an id_token, a JWT access token) becomes a placeholder, `<mend:jwt:N>`, and the entry keeps
/// its template in `_mend.jwts`: the header as it was (`alg`, `kid`, `typ`), the claim names with their values —
/// personal claims (`email`, `name`, `picture`, `phone_number`, …) and `nonce` replaced by placeholders, `at_hash`
/// and `c_hash` dropped, the signature gone. At replay the placeholder becomes a JWT again, signed with a fixture key
/// made for the replay (one per recorded `kid`), whose JWKS replaces every recorded JWKS answer; its time claims
/// (`iat`, `exp`, `nbf`, `auth_time`) moved by the time between the recording and the replay, its `nonce` the one
/// the replayed client sent, its `at_hash` computed over the access token of the same answer. So an id_token
/// validates at replay — issuer, audience, signature through the JWKS, expiry, nonce — with nothing of the
/// recorded user's beyond the ids.
enum JWTTemplate {
    /// Claims replaced by a placeholder of their name.
    static let personalClaims: Set<String> = [
        "email", "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "picture",
        "profile", "website", "phone_number", "address", "birthdate", "gender", "nonce", "sid", "jti",
    ]

    /// Claims that are hashes of other tokens: computed again at replay.
    static let hashClaims: Set<String> = ["at_hash", "c_hash", "s_hash"]

    /// The template of `jwt`, its personal claims made placeholders in `placeholders`; `nil` when it does not decode.
    static func make(_ jwt: String, placeholders: PlaceholderTable) -> JSONValue? {
        // Read, not verified (the recording keeps what the token says), by MendJOSE's strict reader.
        guard let (header, claims) = CompactJWS.unverifiedContents(of: jwt) else { return nil }
        var redacted: [String: JSONValue] = [:]
        for (name, value) in claims {
            if hashClaims.contains(name) { continue }
            if personalClaims.contains(name), case .string(let text) = value {
                redacted[name] = .string(placeholders.placeholder(for: text, kind: name))
            } else if case .string(let text) = value, SecretVocabulary.hasShape(text) {
                // A token inside a claim (a custom claim carrying one): replaced like any other.
                redacted[name] = .string(placeholders.placeholder(for: text, kind: name))
            } else {
                redacted[name] = value
            }
        }
        var kept: [String: JSONValue] = [:]
        for name in ["alg", "kid", "typ"] { if let value = header[name] { kept[name] = value } }
        return .object([
            "header": .object(kept), "claims": .object(redacted),
            "hashes": .array(claims.keys.filter(hashClaims.contains).sorted().map(JSONValue.string)),
        ])
    }
}

/// The keys a replay signs JWTs with, made when the replay starts: one per recorded key id, of the recorded
/// algorithm (RS256, ES256 or EdDSA; any other is RS256), signing with Mend's one JWS signer (MendJOSE).
final class FixtureKeys: Sendable {
    /// The keys made so far, by key id.
    private let keys = Locked<[String: SoftwareSigningKey]>([:])

    /// The key of `kid` for `algorithm`, made on first use.
    func key(kid: String, algorithm: String) throws -> SoftwareSigningKey {
        try keys.withLock { keys in
            if let key = keys[kid] { return key }
            let key = try SoftwareSigningKey.generate(JWSAlgorithm(headerValue: algorithm) ?? .rs256)
            keys[kid] = key
            return key
        }
    }

    /// A JWT of `header` and `claims`, signed with the fixture key of its `kid`.
    func sign(header: JSONValue, claims: JSONValue) throws -> String {
        let kid = header["kid"]?.stringValue ?? "mend-replay"
        let key = try key(kid: kid, algorithm: header["alg"]?.stringValue ?? "RS256")
        var extra = header.objectValue ?? [:]
        for name in ["alg", "kid", "typ"] { extra[name] = nil }
        return try JWSSigner.sign(
            claims: claims.objectValue ?? [:], with: key, keyID: kid, type: header["typ"]?.stringValue,
            extraHeader: extra)
    }

    /// The JWKS of the fixture keys standing for `recorded`'s keys (same `kid`, `use` and algorithm family).
    func jwks(replacing recorded: JSONValue) throws -> JSONValue {
        var list: [JSONValue] = []
        for jwk in recorded["keys"]?.arrayValue ?? [] {
            let kid = jwk["kid"]?.stringValue ?? "mend-replay"
            let algorithm =
                jwk["alg"]?.stringValue
                ?? (jwk["kty"]?.stringValue == "EC" ? "ES256" : jwk["kty"]?.stringValue == "OKP" ? "EdDSA" : "RS256")
            let use = jwk["use"].map { $0.stringValue ?? "sig" } ?? "sig"
            list.append(JWK.publicJSON(of: try key(kid: kid, algorithm: algorithm).publicKey, keyID: kid, use: use))
        }
        return .object(["keys": .array(list)])
    }

    /// The JWT of `template` at replay: times moved to now, placeholders bound to the replayed client's values,
    /// hash claims computed over `accessToken` (and `code`).
    func materialize(
        _ template: JSONValue, now: Date, bind: (String) -> String, accessToken: String?
    ) throws -> String {
        var claims = template["claims"]?.objectValue ?? [:]
        if let issued = claims["iat"]?.intValue {
            let offset = Int(now.timeIntervalSince1970) - issued
            for name in ["iat", "exp", "nbf", "auth_time"] {
                if let value = claims[name]?.intValue { claims[name] = .int(value + offset) }
            }
        }
        for (name, value) in claims {
            if case .string(let text) = value, text.contains("<mend:") { claims[name] = .string(bind(text)) }
        }
        let hashes = template["hashes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if hashes.contains("at_hash"), let accessToken {
            let digest = Data(SHA256.hash(data: Data(accessToken.utf8)))
            claims["at_hash"] = .string(Base64URL.encode(digest.prefix(16)))
        }
        return try sign(header: template["header"] ?? .object([:]), claims: .object(claims))
    }
}
