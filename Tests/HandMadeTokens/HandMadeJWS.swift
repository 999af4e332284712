package import Crypto
import Foundation
import MendCore

/// Compact JWS built by hand, byte for byte, for tests that try a verifier with what a JSON value cannot write (a
/// member twice, `crit`, a time as a string) or with a second spelling of a signed token. Signed with swift-crypto
/// directly, not through MendJOSE: the tokens come from outside the code they test.
package enum HandMadeJWS {
    /// The signing input of raw header and claims text: `base64url(header).base64url(claims)`.
    package static func signingInput(header: String, claims: String) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    }

    /// An ES256 token of raw header and claims text, its signature JWS's `r ‖ s`.
    package static func es256(header: String, claims: String, key: P256.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: header, claims: claims)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// An EdDSA (Ed25519) token of raw header and claims text.
    package static func edDSA(header: String, claims: String, key: Curve25519.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: header, claims: claims)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)))
    }

    /// A token of raw header and claims text whose signature part is `signature`'s bytes, whatever they are: none
    /// (`alg: none`), zeros, another algorithm's.
    package static func token(header: String, claims: String, signature: some Sequence<UInt8>) -> String {
        signingInput(header: header, claims: claims) + "." + Base64URL.encode(Array(signature))
    }

    /// An HS256 token of raw header and claims text, keyed by `secret`'s bytes (a public key's text, in the
    /// algorithm-confusion attack).
    package static func hs256(header: String, claims: String, secret: some Sequence<UInt8>) -> String {
        let input = signingInput(header: header, claims: claims)
        let code = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Array(secret)))
        return input + "." + Base64URL.encode(Array(code))
    }

    /// The public JWK text of a P-256 key, members in RFC 7638's order: what a DPoP proof's header carries.
    package static func jwk(of key: P256.Signing.PublicKey) -> String {
        let raw = key.rawRepresentation
        return
            #"{"crv":"P-256","kty":"EC","x":"\#(Base64URL.encode(raw.prefix(32)))","y":"\#(Base64URL.encode(raw.suffix(32)))"}"#
    }
}
