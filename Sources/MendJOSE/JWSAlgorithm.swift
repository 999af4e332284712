/// A JWS algorithm (RFC 7518 §3, RFC 8037 §3.1) that Mend signs or verifies with. There is no `none` and no HMAC: a
/// token that names them names no algorithm of this type, and is refused before any key is looked at.
package enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// ECDSA with P-256 and SHA-256; the signature is `r ‖ s`, 64 bytes.
    case es256 = "ES256"
    /// Ed25519 (RFC 8037); the signature is 64 bytes.
    case edDSA = "EdDSA"
    /// RSASSA-PKCS1-v1_5 with SHA-256. Verified, for providers' id_tokens; Mend itself signs with it only to emulate
    /// a provider (the emulator, a recording's replay).
    case rs256 = "RS256"

    /// The algorithm of a header's `alg` text, `nil` for any other (`none`, `HS256`, `ES256K`, a different case).
    package init?(headerValue: String) {
        self.init(rawValue: headerValue)
    }
}

/// The algorithms a use of JWS accepts: the verifier's allow-list, never the token's word alone.
package struct JWSAlgorithms: Sendable, Hashable {
    package var allowed: Set<JWSAlgorithm>

    package init(_ allowed: Set<JWSAlgorithm>) { self.allowed = allowed }

    /// OpenID Connect id_tokens of providers: RS256 (Google, Apple, most) and ES256.
    package static let idToken = JWSAlgorithms([.rs256, .es256])
    /// mend-server's session tokens: what its keys can be (ES256, EdDSA).
    package static let session = JWSAlgorithms([.es256, .edDSA])
    /// DPoP proofs: ES256, the one algorithm Mend's clients prove with.
    package static let dpop = JWSAlgorithms([.es256])
    /// Sign in with Apple's client secrets: ES256 (Apple's documentation).
    package static let appleClientSecret = JWSAlgorithms([.es256])
}
