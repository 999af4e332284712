import Crypto
import Foundation
import MendCore
import MendSignedRequest

/// A key that signs session access tokens: its key id (`kid`), algorithm, and private key.
///
/// In the environment (`MEND_SIGNING_KEYS`), a comma-separated list of `kid:ALG:key`, the signing key first, where
/// `ALG` is `EdDSA` (Ed25519; the key is the base64url 32-byte seed) or `ES256` (P-256; the base64url 32-byte
/// private scalar). Rotate by putting a new key first and keeping the old one until its tokens have expired.
/// `mend-server generate-key` prints a new key.
public struct SigningKeyConfiguration: Sendable, Hashable {
    /// A JWS algorithm the server signs with.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        /// Ed25519 (RFC 8037).
        case eddsa = "EdDSA"
        /// ECDSA P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// The key id, published in the JWKS and set as `kid` in every token's header.
    public var keyID: String
    /// The algorithm.
    public var algorithm: Algorithm
    /// The private key, base64url (32 bytes for either algorithm).
    public var privateKey: Secret

    /// Creates a key configuration.
    public init(keyID: String, algorithm: Algorithm, privateKey: Secret) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.privateKey = privateKey
    }

    /// A new random key.
    public static func generate(keyID: String, algorithm: Algorithm = .eddsa) -> SigningKeyConfiguration {
        let raw: Data =
            switch algorithm {
            case .eddsa: Curve25519.Signing.PrivateKey().rawRepresentation
            case .es256: P256.Signing.PrivateKey().rawRepresentation
            }
        return SigningKeyConfiguration(keyID: keyID, algorithm: algorithm, privateKey: Secret(Base64URL.encode(raw)))
    }

    /// `kid:ALG:key` (the form `parse(list:)` reads); it contains the private key.
    public var environmentValue: String { "\(keyID):\(algorithm.rawValue):\(privateKey.value)" }

    /// Parses `kid:ALG:key[,kid:ALG:key…]`.
    static func parse(list: String) throws(ConfigurationError) -> [SigningKeyConfiguration] {
        var keys: [SigningKeyConfiguration] = []
        for item in list.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":").map(String.init)
            guard parts.count == 3, !parts[0].isEmpty else {
                throw ConfigurationError("MEND_SIGNING_KEYS: each key is kid:ALG:base64url-key")
            }
            guard let algorithm = Algorithm.allCases.first(where: { $0.rawValue.lowercased() == parts[1].lowercased() })
            else {
                throw ConfigurationError("MEND_SIGNING_KEYS: key '\(parts[0])' has an unknown algorithm (EdDSA, ES256)")
            }
            guard Base64URL.decode(parts[2])?.count == 32 else {
                throw ConfigurationError("MEND_SIGNING_KEYS: key '\(parts[0])' is not 32 base64url-encoded bytes")
            }
            keys.append(SigningKeyConfiguration(keyID: parts[0], algorithm: algorithm, privateKey: Secret(parts[2])))
        }
        guard Set(keys.map(\.keyID)).count == keys.count else {
            throw ConfigurationError("MEND_SIGNING_KEYS: key ids must be unique")
        }
        return keys
    }
}
