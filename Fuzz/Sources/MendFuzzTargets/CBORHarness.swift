@_spi(MendFuzzing) import MendJOSE

/// Mend's CBOR decoder and encoder, and the COSE keys read through them; the invariants are `CBORFuzzing.check`'s.
enum CBORHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let (broken, outcome) = CBORFuzzing.check([UInt8](bytes))
        trace("cbor: \(broken ?? outcome)")
        invariant(broken == nil, broken ?? "")
    }
}
