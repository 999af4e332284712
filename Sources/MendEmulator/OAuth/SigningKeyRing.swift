import Crypto
import Foundation
import MendCore
import _CryptoExtras

/// The RSA keys that sign id_tokens (RS256). Created on first use (key generation takes a moment, and most runs
/// never need one); rotation adds a new current key and keeps the previous one in the JWKS for verification.
struct SigningKeyRing: Sendable {
    struct Key: Sendable {
        var id: String
        var privateKey: _RSA.Signing.PrivateKey
    }

    private(set) var keys: [Key] = []

    /// The current key, created if there is none.
    mutating func current(random: inout SeededGenerator) throws -> Key {
        if let last = keys.last { return last }
        return try rotate(random: &random)
    }

    /// Adds a new current key; the JWKS keeps the previous one only.
    @discardableResult
    mutating func rotate(random: inout SeededGenerator) throws -> Key {
        let key = Key(
            id: random.alphanumeric(40).lowercased(), privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        keys.append(key)
        if keys.count > 2 { keys.removeFirst(keys.count - 2) }
        return key
    }

    /// The JWKS document (`{"keys": [...]}`), newest key first.
    func jwks() throws -> JSONValue {
        var list: [JSONValue] = []
        for key in keys.reversed() {
            let primitives = try key.privateKey.publicKey.getKeyPrimitives()
            list.append(
                .object([
                    "kid": .string(key.id), "kty": .string("RSA"), "alg": .string("RS256"), "use": .string("sig"),
                    "n": .string(Base64URL.encode(primitives.modulus)),
                    "e": .string(Base64URL.encode(primitives.publicExponent)),
                ]))
        }
        return .object(["keys": .array(list)])
    }

    /// A signed JWT for `claims` (RS256, with `kid`).
    static func sign(claims: JSONValue, with key: Key) throws -> String {
        let header = JSONValue.object(["alg": .string("RS256"), "kid": .string(key.id), "typ": .string("JWT")])
        let signingInput =
            Base64URL.encode(Data(header.jsonText().utf8)) + "." + Base64URL.encode(Data(claims.jsonText().utf8))
        let signature = try key.privateKey.signature(
            for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
