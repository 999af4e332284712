/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny deterministic generator that passes BigCrush — not cryptographic,
/// which is what reproducible runs want (the emulator's seeded ids, the session torture run, seeded test inputs) —
/// and its finaliser, a bijection of 64-bit words that scatters consecutive inputs (mend-server's request ids).
///
/// One copy for every module and test of the package (the fuzzers, a package of their own, keep theirs).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence `seed` names.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The finaliser.
    ///
    /// `multipliedReportingOverflow(by:)`, not `&*`: Swift 6 made `&*` a `FixedWidthInteger` requirement available from
    /// iOS 18 / macOS 15, and the package declares iOS 16 / macOS 13.
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)).multipliedReportingOverflow(by: 0xBF58_476D_1CE4_E5B9).partialValue
        z = (z ^ (z >> 27)).multipliedReportingOverflow(by: 0x94D0_49BB_1331_11EB).partialValue
        return z ^ (z >> 31)
    }
}
