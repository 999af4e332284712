package import Crypto
package import Foundation
package import MendCore
import _CryptoExtras

/// Mend's one reader and writer of JSON Web Keys (RFC 7517, RFC 7518 §6, RFC 8037 §2) and of their RFC 7638
/// thumbprints: public keys only, of the three types Mend verifies (EC P-256, OKP Ed25519, RSA).
package enum JWK {
    /// The public key of a JWK object, for signatures.
    ///
    /// Refused: another key type or curve; a private member (`d`, and RSA's `p`, `q`, `dp`, `dq`, `qi`, `oth`);
    /// coordinates that are not canonical base64url (RFC 7515 §2: no padding, one spelling) of the curve's length or
    /// not a point on it; `use` other than `sig`; `key_ops` without `verify`; `alg` other than the one algorithm of
    /// the key's type; a `kid` that is not a string.
    package static func publicKey(_ members: [String: JSONValue]) throws(JOSEError) -> JWSPublicKey {
        for name in privateMembers where members[name] != nil {
            throw .key("the JWK holds a private or symmetric key")
        }
        var keyID: String?
        switch members["kid"] {
        case nil: keyID = nil
        case .string(let text)?: keyID = text
        default: throw .key("the JWK's kid is not a string")
        }
        if let use = members["use"], use != .string("sig") { throw .key("the JWK is not for signatures (use)") }
        if let operations = members["key_ops"] {
            guard case .array(let list) = operations, list.contains(.string("verify")) else {
                throw .key("the JWK's key_ops do not include verify")
            }
        }
        let material: JWSPublicKey.Material
        switch (members["kty"], members["crv"]) {
        case (.string("EC")?, .string("P-256")?):
            let x = try coordinate(members["x"], bytes: 32)
            let y = try coordinate(members["y"], bytes: 32)
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
                throw .key("the JWK's x and y are not a point of P-256")
            }
            material = .p256(key)
        case (.string("OKP")?, .string("Ed25519")?):
            guard members["y"] == nil else { throw .key("an Ed25519 JWK has no y") }
            guard
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: try coordinate(members["x"], bytes: 32))
            else { throw .key("the JWK's x is not an Ed25519 public key") }
            material = .ed25519(key)
        case (.string("RSA")?, nil):
            let modulus = try coordinate(members["n"], bytes: nil)
            let exponent = try coordinate(members["e"], bytes: nil)
            // A leading zero byte (RFC 7518 §6.3.1.1 says none) changes no value: providers' keys are read as sent.
            guard let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent), key.keySizeInBits >= 2048
            else { throw .key("the JWK is not an RSA public key of 2048 bits or more") }
            material = .rsa(key)
        default:
            throw .key("the JWK is not an EC P-256, OKP Ed25519 or RSA key")
        }
        let key = JWSPublicKey(material, keyID: keyID)
        if let alg = members["alg"], alg != .string(key.algorithm.rawValue) {
            throw .key("the JWK's alg is not its key type's algorithm")
        }
        return key
    }

    /// The members that only a private or symmetric key has.
    private static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Whether `members` are exactly the required members of an EC P-256 key (`kty`, `crv`, `x`, `y`, nothing else):
    /// the JWK a DPoP proof of Mend's clients carries, which a verifier may cache by its coordinates.
    package static func isBareP256(_ members: [String: JSONValue]) -> Bool {
        members.count == 4 && members["kty"] == .string("EC") && members["crv"] == .string("P-256")
            && members["x"] != nil && members["y"] != nil
    }

    /// The bytes of a base64url member: canonical (no padding, one spelling), of `bytes` length when given.
    private static func coordinate(_ value: JSONValue?, bytes: Int?) throws(JOSEError) -> [UInt8] {
        guard case .string(let text)? = value, let decoded = Base64URL.decodeCanonical(text.utf8), !decoded.isEmpty,
            bytes.map({ decoded.count == $0 }) ?? true
        else { throw .key("a JWK member is not canonical base64url of the right length") }
        return decoded
    }

    /// The members RFC 7638 §3.2 requires of `key`'s type, with their values: its thumbprint's input, and the start
    /// of every JWK Mend writes.
    package static func requiredMembers(of key: JWSPublicKey) -> [String: JSONValue] {
        switch key.material {
        case .p256(let point):
            let raw = point.rawRepresentation
            return [
                "kty": .string("EC"), "crv": .string("P-256"),
                "x": .string(Base64URL.encode(raw.prefix(32))), "y": .string(Base64URL.encode(raw.suffix(32))),
            ]
        case .ed25519(let point):
            return [
                "kty": .string("OKP"), "crv": .string("Ed25519"),
                "x": .string(Base64URL.encode(point.rawRepresentation)),
            ]
        case .rsa(let rsa):
            // `getKeyPrimitives` cannot fail for a key that exists; an empty member would make a JWK nobody reads.
            let primitives = try? rsa.getKeyPrimitives()
            return [
                "kty": .string("RSA"),
                "n": .string(Base64URL.encode(Self.trimmed(primitives?.modulus ?? Data()))),
                "e": .string(Base64URL.encode(Self.trimmed(primitives?.publicExponent ?? Data()))),
            ]
        }
    }

    /// An unsigned big-endian integer without leading zero bytes (RFC 7518 §6.3.1).
    private static func trimmed(_ bytes: Data) -> Data {
        let trimmed = bytes.drop { $0 == 0 }
        return trimmed.isEmpty ? Data([0]) : Data(trimmed)
    }

    /// The public JWK of `key`: its required members, with `kid` (the key's own unless given), `alg` and `use`.
    package static func publicJSON(
        of key: JWSPublicKey, keyID: String? = nil, use: String? = "sig", includeAlgorithm: Bool = true
    ) -> JSONValue {
        var members = requiredMembers(of: key)
        if let kid = keyID ?? key.keyID { members["kid"] = .string(kid) }
        if includeAlgorithm { members["alg"] = .string(key.algorithm.rawValue) }
        if let use { members["use"] = .string(use) }
        return .object(members)
    }

    /// The RFC 7638 thumbprint of `key`'s JWK (SHA-256): its required members in lexicographic order, no whitespace,
    /// hashed, base64url.
    package static func thumbprint(of key: JWSPublicKey) -> String {
        thumbprint(ofRequiredMembers: requiredMembers(of: key))
    }

    /// The thumbprint of a JWK's required members (what ``thumbprint(of:)`` hashes).
    package static func thumbprint(ofRequiredMembers members: [String: JSONValue]) -> String {
        Base64URL.encode(SHA256.hash(data: Array(JSONValue.object(members).jsonText().utf8)))
    }
}

/// A JWK Set (RFC 7517 §5) as a verifier uses it: the keys with a `kid` that may verify, by `kid`.
package struct JWKSet: Sendable {
    /// The usable keys, by `kid`.
    package private(set) var keys: [String: JWSPublicKey]

    package init(_ keys: [JWSPublicKey]) {
        var byID: [String: JWSPublicKey] = [:]
        var ambiguous: Set<String> = []
        for key in keys {
            guard let kid = key.keyID else { continue }
            if byID.updateValue(key, forKey: kid) != nil { ambiguous.insert(kid) }
        }
        for kid in ambiguous { byID[kid] = nil }
        self.keys = byID
    }

    /// The keys of a JWK Set document, read through the strict JSON reader (a member name used twice refuses the
    /// whole document). Keys that may not verify — another type, `use` or `key_ops`, no `kid`, or two keys of one
    /// `kid` (either could be meant) — are left out, so that one odd key does not hide the others.
    package init(document: some Collection<UInt8>) throws(JOSEError) {
        guard let members = JSONValue.parseObject(document), case .array(let list)? = members["keys"] else {
            throw .malformed("the key set is not a JSON object with a keys array (each member once)")
        }
        var keys: [JWSPublicKey] = []
        for case .object(let jwk) in list {
            if let key = try? JWK.publicKey(jwk) { keys.append(key) }
        }
        self.init(keys)
    }

    /// The key of `kid`.
    package subscript(keyID: String) -> JWSPublicKey? { keys[keyID] }

    /// The JWK Set document of `keys`, in their order.
    package static func document(_ keys: [JSONValue]) -> JSONValue { .object(["keys": .array(keys)]) }
}
