@_spi(MendFuzzing) import MendWebAuthn

/// WebAuthn's binary inputs: attestation objects, authenticator data and assertions; the modes and invariants are
/// `WebAuthnFuzzing.check`'s.
enum AttestationHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let (broken, outcome) = WebAuthnFuzzing.check([UInt8](bytes))
        trace("attestation: \(broken ?? outcome)")
        invariant(broken == nil, broken ?? "")
    }
}
