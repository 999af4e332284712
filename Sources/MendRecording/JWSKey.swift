package import Crypto
import Foundation
package import MendCore
package import _CryptoExtras

/// Mend's one JWS signer (RFC 7515, compact serialization) over swift-crypto: RS256, ES256 and EdDSA. The emulator
/// signs its id_tokens with it, a replay its re-signed JWTs, mend-server Apple's client secrets.
package enum JWSKey: Sendable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256(_RSA.Signing.PrivateKey)
    /// ECDSA P-256 with SHA-256.
    case es256(P256.Signing.PrivateKey)
    /// Ed25519 (RFC 8037).
    case eddsa(Curve25519.Signing.PrivateKey)

    /// A new key for `algorithm` (`RS256`, `ES256`, `EdDSA`; anything else is RS256).
    package static func generate(algorithm: String) throws -> JWSKey {
        switch algorithm {
        case "ES256": .es256(P256.Signing.PrivateKey())
        case "EdDSA": .eddsa(Curve25519.Signing.PrivateKey())
        default: .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
    }

    /// The JWS `alg` of this key.
    package var algorithm: String {
        switch self {
        case .rs256: "RS256"
        case .es256: "ES256"
        case .eddsa: "EdDSA"
        }
    }

    /// A compact JWS of `claims`: `header`'s members (`kid`, `typ`) with `alg` set to this key's.
    package func sign(header: [String: JSONValue] = [:], claims: JSONValue) throws -> String {
        var fields = header
        fields["alg"] = .string(algorithm)
        let input =
            Base64URL.encode(Data(JSONValue.object(fields).jsonText().utf8)) + "."
            + Base64URL.encode(Data(claims.jsonText().utf8))
        let data = Data(input.utf8)
        let signature: Data =
            switch self {
            case .rs256(let key):
                try key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation
            case .es256(let key): try key.signature(for: data).rawRepresentation
            case .eddsa(let key): try key.signature(for: data)
            }
        return input + "." + Base64URL.encode(signature)
    }

    /// The public JWK of this key (RFC 7517), with `kid`, `alg` and `use`.
    package func publicJWK(kid: String, use: JSONValue = .string("sig")) throws -> JSONValue {
        var fields: [String: JSONValue] = ["kid": .string(kid), "alg": .string(algorithm), "use": use]
        switch self {
        case .rs256(let key):
            let primitives = try key.publicKey.getKeyPrimitives()
            fields["kty"] = .string("RSA")
            fields["n"] = .string(Base64URL.encode(primitives.modulus))
            fields["e"] = .string(Base64URL.encode(primitives.publicExponent))
        case .es256(let key):
            let raw = key.publicKey.rawRepresentation
            fields["kty"] = .string("EC")
            fields["crv"] = .string("P-256")
            fields["x"] = .string(Base64URL.encode(raw.prefix(32)))
            fields["y"] = .string(Base64URL.encode(raw.suffix(32)))
        case .eddsa(let key):
            fields["kty"] = .string("OKP")
            fields["crv"] = .string("Ed25519")
            fields["x"] = .string(Base64URL.encode(key.publicKey.rawRepresentation))
        }
        return .object(fields)
    }
}
