@_spi(MendFuzzing) import MendCore

/// Mend's one JSON lexer, every way Mend reads with it (the parse refusing duplicates or reading the last one, the
/// check without building, a token's object), and its writer; the invariants are `JSONFuzzing.check`'s.
enum JSONHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let broken = JSONFuzzing.check([UInt8](bytes))
        trace("json: \(broken ?? "every invariant held")")
        invariant(broken == nil, broken ?? "")
    }
}
