import MendCore

/// Seeded mutations of a corpus of JSON texts, for the tests that hold one reader of JSON to another: each text of
/// `corpus` in turn, with one to `maxEdits` bytes replaced, inserted or removed, the bytes taken from `alphabet`
/// (JSON's punctuation and letters, and bytes no valid text holds where they land).
func jsonMutations(
    of corpus: [String], count: Int, seed: UInt64, maxEdits: Int = 3,
    alphabet: [UInt8] = Array(#"{}[]:,"\\/ -+.eE0123456789abfnrtuAZ"#.utf8) + [0x00, 0x0A, 0x1F, 0xC3, 0xFF]
) -> [[UInt8]] {
    var generator = SplitMix(seed: seed)
    return (0..<count).map { round in
        var bytes = Array(corpus[round % corpus.count].utf8)
        for _ in 0..<(1 + Int(generator.next() % UInt64(maxEdits))) {
            let position = bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count))
            let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
            switch generator.next() % 3 {
            case 0 where !bytes.isEmpty: bytes[position] = byte
            case 1: bytes.insert(byte, at: position)
            default: if !bytes.isEmpty { bytes.remove(at: position) }
            }
        }
        return bytes
    }
}
