@_spi(MendFuzzing) import MendJOSE

/// MendJOSE's compact JWS reader (every verifier of Mend reads a token through it), twice per input: the input as a
/// token received, and the input as a payload the harness signs with its fixed key (so that verification and the
/// claims reader are reached with any payload).
///
/// Invariants: a token read has exactly three parts, none padded, an algorithm Mend accepts and no `crit` or `b64`;
/// the payload of a token that verifies is the one base64url spelling of its bytes; what the harness signs is read,
/// verified, and gives its payload back byte for byte.
enum JWSHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let received = JOSEFuzzing.read(bytes.text)
        trace("jws (as received): \(received.algorithm ?? "refused: \(received.refusal ?? "")")")
        if received.refusal == nil {
            invariant(received.parts.count == 3, "a token of \(received.parts.count) parts was read")
            invariant(
                ["ES256", "EdDSA", "RS256"].contains(received.algorithm ?? ""), "alg \(received.algorithm ?? "-")")
            invariant(
                !received.headerMembers.contains("crit") && !received.headerMembers.contains("b64"),
                "a header with crit or b64 was read")
            invariant(!received.parts.contains { $0.contains("=") }, "a padded part was read")
            if let payload = received.payload {
                invariant(JOSEFuzzing.base64URL(payload) == received.parts[1], "a payload in a second spelling")
            }
        }
        let payload = [UInt8](bytes)
        let signed = JOSEFuzzing.read(JOSEFuzzing.sign(payload))
        invariant(signed.refusal == nil, "a token the harness signed was refused: \(signed.refusal ?? "")")
        invariant(signed.verifiedByFixedKey, "a token the harness signed did not verify")
        invariant(signed.payload == payload, "the payload did not come back byte for byte")
    }
}
