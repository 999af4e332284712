import Crypto
import MendCore

/// MendJOSE's reader and signer for the fuzzers (Fuzz/), which are a package of their own and cannot see `package`
/// API. `@_spi(MendFuzzing)`: not part of Mend's public API.
@_spi(MendFuzzing) public enum JOSEFuzzing {
    /// What reading a token found.
    public struct Reading: Sendable {
        /// The header's `alg`, when the token was read.
        public var algorithm: String?
        /// Why it was refused, when it was.
        public var refusal: String?
        /// Its three parts as sent, when it was read.
        public var parts: [String]
        /// Its payload's bytes, when it was read.
        public var payload: [UInt8]?
        /// The header's member names, when it was read.
        public var headerMembers: [String]
        /// Whether the payload read as a JWT's claims (a JSON object, each member once) with numeric times.
        public var claimsRead: Bool
        /// Whether the fixed key of ``sign(_:)`` verified it.
        public var verifiedByFixedKey: Bool
    }

    /// The fixed Ed25519 key ``sign(_:)`` signs with (its seed: 32 bytes of 0x2A). Kept as swift-crypto's key, not as a
    /// ``SoftwareSigningKey``: a multi-payload enum keeps its case in the spare bits of the pointer, which
    /// LeakSanitizer then cannot follow from the global.
    static let fixedPrivateKey: Curve25519.Signing.PrivateKey = {
        // A 32-byte seed is always an Ed25519 key.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x2A, count: 32))
    }()

    /// ``fixedPrivateKey`` as MendJOSE signs with it.
    static var fixedKey: SoftwareSigningKey { .edDSA(fixedPrivateKey) }

    /// Reads `token` as every verifier of Mend reads a compact JWS, and tries the fixed key on it.
    public static func read(_ token: String) -> Reading {
        do {
            let jws = try CompactJWS(token)
            var reading = Reading(
                algorithm: jws.header.algorithm.rawValue, refusal: nil,
                parts: token.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
                payload: nil, headerMembers: jws.header.members.keys.sorted(), claimsRead: false,
                verifiedByFixedKey: false)
            if let verified = try? jws.verified(with: fixedKey.publicKey, allowed: JWSAlgorithms([.edDSA])) {
                reading.verifiedByFixedKey = true
                reading.payload = verified.payload
                reading.claimsRead = (try? verified.claims().times()) != nil
            }
            return reading
        } catch {
            return Reading(
                algorithm: nil, refusal: error.reason, parts: [], payload: nil, headerMembers: [], claimsRead: false,
                verifiedByFixedKey: false)
        }
    }

    /// `payload` signed by the fixed key (EdDSA, `kid` `fuzz`), as MendJOSE signs every token.
    public static func sign(_ payload: [UInt8]) -> String {
        // Signing with an in-memory Ed25519 key does not fail.
        try! JWSSigner.sign(payload: payload, with: fixedKey, keyID: "fuzz", type: "JWT")
    }

    /// Base64url of `bytes`, without padding (the one spelling JOSE allows).
    public static func base64URL(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }
}
