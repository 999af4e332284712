/// Why MendJOSE refused a token, a key or a signature.
///
/// The ``reason`` never quotes the input: it names the rule that failed ("the signature does not verify", "crit names
/// an extension Mend does not understand"), so that it can go into an error message or a log as it is.
package struct JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    package enum Kind: Sendable, Hashable {
        /// Not a compact JWS of this use's shape: parts, base64url, JSON, size.
        case malformed
        /// A header this use does not accept: its algorithm, `crit`, `b64`, `typ`.
        case header
        /// No key of the verifier's set is the token's, or the key may not verify it.
        case key
        /// The signature does not verify.
        case signature
        /// A claim is missing, of the wrong type or of the wrong value.
        case claim
        /// The token has expired (`exp`).
        case expired
        /// The token is not valid yet: `nbf`, or `iat`, ahead of now by more than the skew.
        case notYetValid
        /// The token was issued too long ago, or is valid for longer than the use allows.
        case tooOld
    }

    /// The kind of failure.
    package var kind: Kind
    /// The rule that failed, in words, without any of the input.
    package var reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }

    static func malformed(_ reason: String) -> JOSEError { JOSEError(.malformed, reason) }
    static func header(_ reason: String) -> JOSEError { JOSEError(.header, reason) }
    static func key(_ reason: String) -> JOSEError { JOSEError(.key, reason) }
    package static func claim(_ reason: String) -> JOSEError { JOSEError(.claim, reason) }
    static let badSignature = JOSEError(.signature, "its signature does not verify")
    /// The header's `alg` is none of ``JWSAlgorithm``'s (`none`, HMAC, …).
    package static let unsupportedAlgorithm = JOSEError(.header, "its algorithm is not one Mend accepts")
}
