import Crypto
import Foundation

/// Seals stored provider tokens with AES-GCM when a key is configured (`v1:` + base64 of nonce, ciphertext and
/// tag); without a key they are stored as they are (`p:` + token).
struct TokenCipher: Sendable {
    private let key: SymmetricKey?

    init(key base64: String?) {
        self.key = base64.flatMap { Data(base64Encoded: $0) }.map { SymmetricKey(data: $0) }
    }

    func seal(_ token: String) throws -> String {
        guard let key else { return "p:" + token }
        let box = try AES.GCM.seal(Data(token.utf8), using: key)
        guard let combined = box.combined else { throw CipherFailure() }
        return "v1:" + combined.base64EncodedString()
    }

    /// The token, or `nil` when it cannot be read (another key, a corrupted column).
    func open(_ stored: String) -> String? {
        if stored.hasPrefix("p:") { return String(stored.dropFirst(2)) }
        guard stored.hasPrefix("v1:"), let key, let data = Data(base64Encoded: String(stored.dropFirst(3))),
            let box = try? AES.GCM.SealedBox(combined: data), let plain = try? AES.GCM.open(box, using: key)
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    struct CipherFailure: Error {}
}
