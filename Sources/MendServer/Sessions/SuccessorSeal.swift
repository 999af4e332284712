import Crypto
import Foundation

/// Keeps a rotated refresh token's successor on the old token's row, readable only by whoever presents the old
/// token again, so that a retried or concurrent refresh gets the same successor (see ``RefreshRotation``).
///
/// The key is HKDF-SHA256 of the old refresh token itself (fixed salt and info), the cipher AES-GCM; the stored form
/// is `v1:` + base64 of nonce, ciphertext and tag. The database holds only the SHA-256 of the old token, which is not
/// this key, so what it stores still yields no usable token.
enum SuccessorSeal {
    static let salt = Data("mend refresh successor v1".utf8)
    static let info = Data("successor refresh token".utf8)

    static func key(presented token: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(token.utf8)), salt: salt, info: info, outputByteCount: 32)
    }

    /// `successor`, sealed under a key derived from `token` (the refresh token it replaces).
    static func seal(_ successor: String, under token: String) throws -> String {
        guard let combined = try AES.GCM.seal(Data(successor.utf8), using: key(presented: token)).combined else {
            throw TokenCipher.CipherFailure()
        }
        return "v1:" + combined.base64EncodedString()
    }

    /// The successor, or `nil` when `token` is not the one it was sealed under (or the value is corrupted).
    static func open(_ sealed: String, with token: String) -> String? {
        guard sealed.hasPrefix("v1:"), let data = Data(base64Encoded: String(sealed.dropFirst(3))),
            let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key(presented: token))
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }
}
