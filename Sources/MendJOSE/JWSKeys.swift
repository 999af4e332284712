package import Crypto
package import Foundation
package import _CryptoExtras

/// A public key that verifies JWS signatures: one key type, one algorithm (P-256 verifies ES256, Ed25519 verifies
/// EdDSA, RSA verifies RS256), so that a token cannot choose how its key is used.
package struct JWSPublicKey: Sendable {
    /// The key itself.
    package enum Material: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    /// The key itself.
    package var material: Material
    /// The key's id (`kid`), if it has one.
    package var keyID: String?

    package init(_ material: Material, keyID: String? = nil) {
        self.material = material
        self.keyID = keyID
    }

    /// The one algorithm this key verifies.
    package var algorithm: JWSAlgorithm {
        switch material {
        case .p256: .es256
        case .ed25519: .edDSA
        case .rsa: .rs256
        }
    }

    /// Whether `signature` — in JWS form: ES256's 64-byte `r ‖ s` with `r` and `s` in range, Ed25519's 64 bytes,
    /// RS256's modulus-length bytes — signs `signingInput` by this key. Any other form (DER, a short or padded
    /// signature, `r` or `s` zero or not below the group order) is refused without calling the primitive.
    package func isValidSignature(_ signature: [UInt8], for signingInput: UnsafeRawBufferPointer) -> Bool {
        switch material {
        case .p256(let key):
            guard signature.count == 64, ECDSAScalars.inRange(signature),
                let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(ecdsa, for: signingInput)
        case .ed25519(let key):
            guard signature.count == 64 else { return false }
            return key.isValidSignature(signature, for: signingInput)
        case .rsa(let key):
            guard signature.count == (key.keySizeInBits + 7) / 8 else { return false }
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signingInput),
                padding: .insecurePKCS1v1_5)
        }
    }

    /// ``isValidSignature(_:for:)`` of a signing input in an array.
    package func isValidSignature(_ signature: [UInt8], for signingInput: [UInt8]) -> Bool {
        signingInput.withUnsafeBytes { isValidSignature(signature, for: $0) }
    }
}

/// The range check of an ES256 signature's scalars: `0 < r, s < n`, the order of P-256 (RFC 7518 §3.4; FIPS 186-4
/// §6.4). A primitive that checks it too is not relied on: the rule is Mend's, and the attack corpus holds it.
enum ECDSAScalars {
    /// The order of P-256's group, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// Whether both halves of a 64-byte `r ‖ s` are in `1 ..< n`.
    static func inRange(_ signature: [UInt8]) -> Bool {
        func valid(_ scalar: ArraySlice<UInt8>) -> Bool {
            scalar.contains { $0 != 0 } && scalar.lexicographicallyPrecedes(order)
        }
        return valid(signature[0..<32]) && valid(signature[32..<64])
    }
}

/// What signs JWS: the key-backend seam. Software keys (``SoftwareSigningKey``) on every platform; a key the
/// platform holds (the Secure Enclave on Apple platforms) behind the same protocol, its private part never in memory.
package protocol JWSSigningBackend: Sendable {
    /// The algorithm the key signs with.
    var algorithm: JWSAlgorithm { get }
    /// The public key its signatures verify with.
    var publicKey: JWSPublicKey { get }
    /// The signature of `signingInput` in JWS form (ES256: `r ‖ s`, 64 bytes).
    func signature(for signingInput: [UInt8]) throws -> [UInt8]
}

/// A private key in memory (swift-crypto).
package enum SoftwareSigningKey: JWSSigningBackend {
    /// ECDSA P-256 with SHA-256.
    case es256(P256.Signing.PrivateKey)
    /// Ed25519.
    case edDSA(Curve25519.Signing.PrivateKey)
    /// RSASSA-PKCS1-v1_5 with SHA-256: only to emulate a provider (the emulator's issuers, a recording's fixtures).
    case rs256(_RSA.Signing.PrivateKey)

    /// A new key for `algorithm`.
    package static func generate(_ algorithm: JWSAlgorithm) throws -> SoftwareSigningKey {
        switch algorithm {
        case .es256: .es256(P256.Signing.PrivateKey())
        case .edDSA: .edDSA(Curve25519.Signing.PrivateKey())
        case .rs256: .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
    }

    package var algorithm: JWSAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        case .rs256: .rs256
        }
    }

    package var publicKey: JWSPublicKey {
        switch self {
        case .es256(let key): JWSPublicKey(.p256(key.publicKey))
        case .edDSA(let key): JWSPublicKey(.ed25519(key.publicKey))
        case .rs256(let key): JWSPublicKey(.rsa(key.publicKey))
        }
    }

    package func signature(for signingInput: [UInt8]) throws -> [UInt8] {
        switch self {
        case .es256(let key): Array(try key.signature(for: signingInput).rawRepresentation)
        case .edDSA(let key): Array(try key.signature(for: signingInput))
        case .rs256(let key):
            Array(
                try key.signature(for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
                    .rawRepresentation)
        }
    }
}
