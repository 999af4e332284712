import Foundation
import MendCore
import MendRecording
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
        .object(["keys": .array(try keys.reversed().map { try JWSKey.rs256($0.privateKey).publicJWK(kid: $0.id) })])
    }

    /// A signed JWT for `claims` (RS256, with `kid`), by Mend's one JWS signer.
    static func sign(claims: JSONValue, with key: Key) throws -> String {
        try JWSKey.rs256(key.privateKey).sign(header: ["kid": .string(key.id), "typ": .string("JWT")], claims: claims)
    }
}
