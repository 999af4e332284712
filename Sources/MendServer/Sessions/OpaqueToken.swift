import Crypto
import Foundation
import MendCore
import MendSignedRequest

/// Random opaque values (refresh tokens, session ids, confirmation codes) and the hash they are stored by.
enum OpaqueToken {
    /// `prefix` + base64url of `bytes` random bytes from the system CSPRNG.
    static func make(prefix: String = "", bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return prefix + Base64URL.encode(data)
    }

    /// Letters and digits only (confirmation codes people may read out).
    static func alphanumeric(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Hex SHA-256: what the database stores instead of a refresh token or an authorization code.
    static func hash(_ value: String) -> String {
        SHA256.hash(data: Data(value.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
