import Crypto
import Foundation

/// `appsecret_proof`: the hex HMAC-SHA256 of an access token, keyed by the app secret. Computed here, in the
/// server, and handed to `GraphClient` as a closure: no client module ever holds the secret.
enum AppSecretProof {
    static func make(token: String, secret: Secret) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Data(token.utf8), using: SymmetricKey(data: Data(secret.value.utf8)))
        return Hex.encode(code)
    }
}

enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
