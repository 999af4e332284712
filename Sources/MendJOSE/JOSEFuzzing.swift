import Crypto
import Foundation
import MendCore

/// MendJOSE's reader and signer for the fuzzers (Fuzz/), which are a package of their own and cannot see `package`
/// API. `@_spi(MendFuzzing)`: not part of Mend's public API; one entry point, so that it adds no surface to speak of.
@_spi(MendFuzzing) public enum JOSEFuzzing {
    /// Runs MendJOSE's reader on `input` as a token received, and its signer and verifier on `input` as a payload; the
    /// broken invariant in words, or `nil` when every one held.
    ///
    /// Invariants: a token read has exactly three parts, none padded, an algorithm Mend accepts and no `crit` or
    /// `b64`; the payload of a token the fixed key verifies is the one base64url spelling of its bytes; what is signed
    /// here is read, verified, and gives its payload back byte for byte; a DPoP `htu` read by the fast path (a URL
    /// already in its normalized form, taken without parsing) is the one `URLComponents` normalization gives.
    public static func check(_ input: [UInt8]) -> String? {
        let token = String(decoding: input, as: UTF8.self)
        if let plain = DPoPProof.plainHTU(token) {
            guard let url = URL(string: token) else { return "htu's fast path took a text that is no URL" }
            if plain != DPoPProof.normalizedHTU(url) { return "htu's fast path and URLComponents disagree" }
        }
        if let jws = try? CompactJWS(token) {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count != 3 { return "a token of \(parts.count) parts was read" }
            if parts.contains(where: { $0.contains("=") }) { return "a padded part was read" }
            if jws.header.members["crit"] != nil || jws.header.members["b64"] != nil {
                return "a header with crit or b64 was read"
            }
            if let verified = try? jws.verified(with: fixedKey.publicKey, allowed: JWSAlgorithms([.edDSA])) {
                if Base64URL.encode(verified.payload) != parts[1] { return "a payload in a second spelling" }
                _ = try? verified.claims().times()
            }
        }
        // Signing with an in-memory Ed25519 key does not fail.
        let signed = try! JWSSigner.sign(payload: input, with: fixedKey, keyID: "fuzz", type: "JWT")
        guard let jws = try? CompactJWS(signed) else { return "a token signed here was refused" }
        guard let verified = try? jws.verified(with: fixedKey.publicKey, allowed: JWSAlgorithms([.edDSA])) else {
            return "a token signed here did not verify"
        }
        return verified.payload == input ? nil : "the payload did not come back byte for byte"
    }

    /// The fixed Ed25519 key (its seed: 32 bytes of 0x2A). Kept as swift-crypto's key, not as a ``SoftwareSigningKey``:
    /// a multi-payload enum keeps its case in the spare bits of the pointer, which LeakSanitizer then cannot follow
    /// from the global.
    static let fixedPrivateKey: Curve25519.Signing.PrivateKey = {
        // A 32-byte seed is always an Ed25519 key.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x2A, count: 32))
    }()

    /// ``fixedPrivateKey`` as MendJOSE signs with it.
    static var fixedKey: SoftwareSigningKey { .edDSA(fixedPrivateKey) }
}
