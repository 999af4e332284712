import Foundation
import MendCore
import MendJOSE
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
    func jwks() -> JSONValue {
        JWKSet.document(
            keys.reversed().map { JWK.publicJSON(of: SoftwareSigningKey.rs256($0.privateKey).publicKey, keyID: $0.id) })
    }

    /// A signed JWT for `claims` (RS256, with `kid`), by Mend's one JWS signer (MendJOSE).
    static func sign(claims: JSONValue, with key: Key) throws -> String {
        try JWSSigner.sign(
            claims: claims.objectValue ?? [:], with: SoftwareSigningKey.rs256(key.privateKey), keyID: key.id)
    }
}
