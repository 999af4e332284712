import MendCore

/// A deterministic random number generator (SplitMix64): the same seed gives the same ids, tokens and trace ids.
///
/// SplitMix64 (Steele, Lea and Flood, 2014) is tiny, fast and passes BigCrush; it is not cryptographic, which is
/// what an emulator wants: reproducible runs.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// Creates a generator from a seed.
    public init(seed: UInt64) {
        self.generator = SplitMix64(seed: seed)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }

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
