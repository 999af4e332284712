public import Crypto
public import Foundation
import MendCore

/// Proof Key for Code Exchange (RFC 7636), S256 only: a verifier from the system's CSPRNG and its challenge.
package struct PKCE: Sendable, Hashable {
    /// The verifier: 43–128 characters of base64url, from at least 256 bits of CSPRNG output. Sent only in the
    /// code exchange; never logged.
    package let verifier: String
    /// `BASE64URL(SHA256(ASCII(verifier)))`, sent in the authorization request.
    package let challenge: String
    /// Always `S256`: Mend never downgrades to `plain`.
    package let method = "S256"

    /// A fresh verifier of 32 random bytes (43 characters), from `SystemRandomNumberGenerator` (the OS CSPRNG).
    package init() {
        var generator = SystemRandomNumberGenerator()
        self.init(randomBytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A verifier made from `randomBytes` (at least 32 bytes).
    package init(randomBytes: [UInt8]) {
        precondition(randomBytes.count >= 32, "PKCE verifiers need at least 256 bits of entropy")
        self.init(verifier: Base64URL.encode(randomBytes))!
    }

    /// A given verifier (RFC 7636 test vectors, or one restored from a stored transaction); `nil` when it is not
    /// 43–128 characters of the unreserved set.
    package init?(verifier: String) {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        guard (43...128).contains(verifier.count), verifier.allSatisfy(allowed.contains) else { return nil }
        self.verifier = verifier
        self.challenge = Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether `verifier` matches `challenge` (what a server checks).
    package static func verify(verifier: String, challenge: String) -> Bool {
        guard let pkce = PKCE(verifier: verifier) else { return false }
        return ConstantTime.equal(pkce.challenge, challenge)
    }
}

/// Random strings for `state` and `nonce`: 32 bytes of CSPRNG output, base64url.
package enum RandomToken {
    /// A fresh token.
    package static func make(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
