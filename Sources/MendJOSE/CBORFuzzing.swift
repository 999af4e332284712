/// MendJOSE's CBOR decoder and encoder and its COSE keys, for the fuzzers (Fuzz/), which are a package of their own and
/// cannot see `package` API. `@_spi(MendFuzzing)`: not part of Mend's public API.
@_spi(MendFuzzing) public enum CBORFuzzing {
    /// Runs the decoder, the encoder and the COSE key reader on `input`: the broken invariant in words (or `nil` when
    /// every one held), and what the input was, for a verbose run.
    ///
    /// Invariants: a refusal is a `CBORError`, never a crash, and `decode` and `decodePrefix` refuse alike; what
    /// decodes re-encodes (deterministically) to bytes that decode to the same item, and encoding is idempotent;
    /// `decodePrefix` ends inside the input, at the end of the item `decode` reads alone; a COSE key that reads writes
    /// back to the same key.
    public static func check(_ input: [UInt8]) -> (broken: String?, outcome: String) {
        guard let (value, end) = try? CBOR.decodePrefix(input) else {
            let broken = (try? CBOR.decode(input)) != nil ? "decode read what decodePrefix refused" : nil
            return (broken, "refused")
        }
        if end < 1 || end > input.count { return ("decodePrefix ended at \(end) of \(input.count)", "") }
        if !same(try? CBOR.decode(Array(input.prefix(end))), value) {
            return ("the prefix alone decodes otherwise", "")
        }
        if ((try? CBOR.decode(input)) != nil) != (end == input.count) {
            return ("decode and decodePrefix disagree on the end", "")
        }
        let encoded = CBOR.encode(value)
        let again = try? CBOR.decode(encoded)
        if !same(again, value) { return ("the deterministic encoding decodes to another item", "") }
        if again.map(CBOR.encode) != encoded { return ("encoding is not idempotent", "") }
        if let map = value.mapValue, let key = try? COSEKey.publicKey(map) {
            let written = CBOR.encode(.map(COSEKey.map(of: key)))
            let read = (try? CBOR.decode(written)).flatMap(\.mapValue).flatMap { try? COSEKey.publicKey($0) }
            if read.map(JWK.thumbprint(of:)) != JWK.thumbprint(of: key) {
                return ("a COSE key does not write back to itself", "")
            }
            return (nil, "a COSE key (\(key.algorithm.rawValue))")
        }
        return (nil, "an item of \(end) bytes")
    }

    /// Equality where a NaN equals a NaN (a float item that is NaN decodes to NaN again) and map keys may come in
    /// another order.
    static func same(_ lhs: CBORValue?, _ rhs: CBORValue) -> Bool {
        guard let lhs else { return false }
        switch (lhs, rhs) {
        case (.float(let a), .float(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.map(let a), .map(let b)):
            // The encoding orders the keys; an item's meaning does not depend on their order.
            return a.entries.count == b.entries.count
                && a.entries.allSatisfy { entry in b[entry.key].map { same(entry.value, $0) } ?? false }
        default: return lhs == rhs
        }
    }
}
