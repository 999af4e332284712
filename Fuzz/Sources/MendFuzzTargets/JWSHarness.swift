@_spi(MendFuzzing) import MendJOSE

/// MendJOSE's compact JWS reader (every verifier of Mend reads a token through it), twice per input: the input as a
/// token received, and the input as a payload signed with a fixed key (so that verification and the claims reader
/// are reached with any payload). The invariants are `JOSEFuzzing.check`'s.
enum JWSHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let broken = JOSEFuzzing.check([UInt8](bytes))
        trace("jws: \(broken ?? "every invariant held")")
        invariant(broken == nil, broken ?? "")
    }
}
