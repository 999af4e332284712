/// A deterministic random number generator (SplitMix64): the same seed gives the same ids, tokens and trace ids.
///
/// SplitMix64 (Steele, Lea and Flood, 2014) is tiny, fast and passes BigCrush; it is not cryptographic, which is
/// what an emulator wants: reproducible runs.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        // `multipliedReportingOverflow(by:)`, not `&*`: Swift 6 made `&*` a `FixedWidthInteger` requirement available
        // from iOS 18 / macOS 15, and the package declares iOS 16 / macOS 13.
        z = (z ^ (z >> 30)).multipliedReportingOverflow(by: 0xBF58_476D_1CE4_E5B9).partialValue
        z = (z ^ (z >> 27)).multipliedReportingOverflow(by: 0x94D0_49BB_1331_11EB).partialValue
        return z ^ (z >> 31)
    }

    static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// `count` characters drawn from letters and digits.
    mutating func alphanumeric(_ count: Int) -> String {
        String((0..<count).map { _ in Self.alphanumerics[Int(next() % UInt64(Self.alphanumerics.count))] })
    }

    /// `count` decimal digits, the first one not zero.
    mutating func digits(_ count: Int) -> String {
        var text = String(1 + next() % 9)
        while text.count < count { text += String(next() % 10) }
        return text
    }

    /// A number in `0..<1`.
    mutating func fraction() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
