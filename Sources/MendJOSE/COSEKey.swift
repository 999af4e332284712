import Crypto
import Foundation
import _CryptoExtras

/// A COSE algorithm identifier (RFC 9053, IANA "COSE Algorithms") of the three Mend verifies: WebAuthn's
/// `pubKeyCredParams` names them, a credential's COSE key carries one.
package enum COSEAlgorithm: Int64, Sendable, Hashable, CaseIterable {
    /// ECDSA with P-256 and SHA-256 (`-7`); WebAuthn's signatures are DER (`SEQUENCE { r, s }`).
    case es256 = -7
    /// EdDSA with Ed25519 (`-8`).
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256 (`-257`).
    case rs256 = -257

    /// The JWS algorithm of the same key type and hash: the one signature core verifies both.
    package var jwsAlgorithm: JWSAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        case .rs256: .rs256
        }
    }

    /// The COSE identifier of a JWS algorithm.
    package init(_ algorithm: JWSAlgorithm) {
        switch algorithm {
        case .es256: self = .es256
        case .edDSA: self = .edDSA
        case .rs256: self = .rs256
        }
    }
}

/// Mend's one reader and writer of COSE keys (RFC 9052 §7, RFC 9053 §7; WebAuthn §5.8.5 `credentialPublicKey`):
/// public keys of the three types Mend verifies, as the signature core's ``JWSPublicKey``.
package enum COSEKey {
    /// The public key, and its one algorithm, of a COSE key map.
    ///
    /// Refused: no `alg` (WebAuthn requires it) or one that is not the key type's (EC2 P-256 with `-7`, OKP
    /// Ed25519 with `-8`, RSA with `-257`); another key type or curve; a private part (`d`, RSA's primes);
    /// coordinates of the wrong length or not on the curve; an RSA key under 2048 bits; labels of the wrong type.
    package static func publicKey(_ map: CBORMap) throws(JOSEError) -> JWSPublicKey {
        guard let kty = map[1]?.integer else { throw .key("the COSE key has no integer key type (1)") }
        guard let algValue = map[3]?.integer, let alg = COSEAlgorithm(rawValue: algValue) else {
            throw .key("the COSE key's algorithm (3) is not ES256 (-7), EdDSA (-8) or RS256 (-257)")
        }
        let material: JWSPublicKey.Material
        switch (kty, alg) {
        case (2, .es256):
            guard map[-1]?.integer == 1 else { throw .key("the COSE EC2 key's curve (-1) is not P-256 (1)") }
            guard map[-4] == nil else { throw .key("the COSE key holds a private key (-4)") }
            guard let x = map[-2]?.byteString, let y = map[-3]?.byteString, x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { throw .key("the COSE EC2 key's x (-2) and y (-3) are not a point of P-256") }
            material = .p256(key)
        case (1, .edDSA):
            guard map[-1]?.integer == 6 else { throw .key("the COSE OKP key's curve (-1) is not Ed25519 (6)") }
            guard map[-4] == nil else { throw .key("the COSE key holds a private key (-4)") }
            guard let x = map[-2]?.byteString, x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw .key("the COSE OKP key's x (-2) is not an Ed25519 public key") }
            material = .ed25519(key)
        case (3, .rs256):
            // RFC 8230 §4: -3 is the private exponent, -4 … -12 the primes and their CRT values.
            guard (-12 ... -3).allSatisfy({ map[$0] == nil }) else {
                throw .key("the COSE RSA key holds a private key (-3 … -12)")
            }
            guard let modulus = map[-1]?.byteString, let exponent = map[-2]?.byteString, !modulus.isEmpty,
                !exponent.isEmpty, let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent),
                key.keySizeInBits >= 2048
            else { throw .key("the COSE RSA key's n (-1) and e (-2) are not an RSA key of 2048 bits or more") }
            material = .rsa(key)
        case (1, _), (2, _), (3, _):
            throw .key("the COSE key's algorithm (3) is not its key type's")
        default:
            throw .key("the COSE key's type (1) is not OKP (1), EC2 (2) or RSA (3)")
        }
        return JWSPublicKey(material)
    }

    /// The COSE key map of `key`, with its algorithm: what an authenticator puts in attested credential data.
    package static func map(of key: JWSPublicKey) -> CBORMap {
        let alg = CBORValue.integer(COSEAlgorithm(key.algorithm).rawValue)
        let entries: [(key: CBORValue, value: CBORValue)]
        switch key.material {
        case .p256(let point):
            let raw = Array(point.rawRepresentation)
            entries = [
                (.integer(1), .integer(2)), (.integer(3), alg), (.integer(-1), .integer(1)),
                (.integer(-2), .bytes(Array(raw.prefix(32)))), (.integer(-3), .bytes(Array(raw.suffix(32)))),
            ]
        case .ed25519(let point):
            entries = [
                (.integer(1), .integer(1)), (.integer(3), alg), (.integer(-1), .integer(6)),
                (.integer(-2), .bytes(Array(point.rawRepresentation))),
            ]
        case .rsa(let rsa):
            let primitives = try? rsa.getKeyPrimitives()
            entries = [
                (.integer(1), .integer(3)), (.integer(3), alg),
                (.integer(-1), .bytes(Array((primitives?.modulus ?? Data()).drop { $0 == 0 }))),
                (.integer(-2), .bytes(Array((primitives?.publicExponent ?? Data()).drop { $0 == 0 }))),
            ]
        }
        // The keys are distinct integers: the map is valid by construction.
        return CBORMap(entries)!
    }
}

extension JWSPublicKey {
    /// Whether `signature` — in WebAuthn's form: ES256's DER `SEQUENCE { INTEGER r, INTEGER s }` (strict DER, with
    /// `r` and `s` in range), Ed25519's 64 bytes, RS256's modulus-length bytes — signs `message` by this key.
    package func isValidCOSESignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch material {
        case .p256:
            guard let raw = DERSignature.rawScalars(signature) else { return false }
            return isValidSignature(raw, for: message)
        case .ed25519, .rsa:
            return isValidSignature(signature, for: message)
        }
    }
}

/// ECDSA signatures in DER (X.690), as WebAuthn and X.509 carry them, to and from JWS's `r ‖ s`.
package enum DERSignature {
    /// The 64-byte `r ‖ s` of a strict DER `SEQUENCE { INTEGER r, INTEGER s }` of P-256: definite short lengths,
    /// minimal positive integers (a leading zero only before a byte of 0x80 or more), nothing after; `nil` for any
    /// other input.
    package static func rawScalars(_ der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der.count <= 72, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var offset = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard offset + 2 <= der.count, der[offset] == 0x02 else { return nil }
            let length = Int(der[offset + 1])
            let start = offset + 2
            guard length >= 1, length <= 33, start + length <= der.count else { return nil }
            let integer = der[start..<start + length]
            // Positive (the high bit clear) and minimal (no zero byte that the next byte does not need).
            guard integer.first! & 0x80 == 0 else { return nil }
            if length > 1, integer.first == 0, integer[start + 1] & 0x80 == 0 { return nil }
            let magnitude = integer.drop { $0 == 0 }
            guard magnitude.count <= 32 else { return nil }
            raw += [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
            offset = start + length
        }
        return offset == der.count ? raw : nil
    }

    /// The strict DER form of a 64-byte `r ‖ s` (what an authenticator sends).
    package static func encode(rawScalars raw: [UInt8]) -> [UInt8] {
        func integer(_ scalar: ArraySlice<UInt8>) -> [UInt8] {
            var bytes = Array(scalar.drop { $0 == 0 })
            if bytes.isEmpty { bytes = [0] }
            if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
            return [0x02, UInt8(bytes.count)] + bytes
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(from: 32))
        return [0x30, UInt8(body.count)] + body
    }
}
