import Foundation
import Testing

@testable import MendCore

/// `JSONValue.validateStructure` (every success body's check) is the one JSON lexer run without building the value:
/// for every text, the answer `JSONValue.parse` gives (reading duplicates last-wins), deep nesting past a word of
/// brackets included.
@Suite("The structure check of success bodies")
struct StructureCheckTests {
    /// What the full parse says of `data`: the reference.
    static func reference(
        _ data: Data, maxBytes: Int = 16 << 20, maxDepth: Int = JSONValue.defaultMaxDepth
    ) -> JSONValue.ParseFailure? {
        switch JSONValue.parse(data, maxBytes: maxBytes, maxDepth: maxDepth, duplicateMembers: .lastWins) {
        case .success: nil
        case .failure(let failure): failure
        }
    }

    /// Nested brackets: `levels` of them, each an object or an array as `objectAt` says, closed in order.
    static func nested(_ levels: Int, objectAt: (Int) -> Bool) -> String {
        var text = ""
        for level in 0..<levels { text += objectAt(level) ? #"{"k":"# : "[" }
        text += "1"
        for level in (0..<levels).reversed() { text += objectAt(level) ? "}" : "]" }
        return text
    }

    static let corpus: [String] =
        CompactJSONTests.corpus + [
            "[]", " [ ] ", "[1,2,{\"a\":\"}\"}]", "{\"a\":\"\\\"\"}", "{\"a\":\"x\\\\\"}", "[\"\\", "[\"a]", "{", "}",
            "[}", "{]", "[] []", "\"s\"", "12", "true", "<html>", "", "  ", "[tru]", "[1,]", "[01]", "[1e400]",
            "{\"a\":1,\"a\":2}", "[\"\\ud800\"]", "[1.]", "[-]", "{\"a\"}", "[\"a\" \"b\"]", "[1] x",
            nested(63, objectAt: { $0 % 2 == 0 }), nested(64, objectAt: { $0 % 3 == 0 }),
            nested(65, objectAt: { $0 % 2 == 1 }), nested(128, objectAt: { $0 % 5 == 0 }),
            nested(129, objectAt: { $0 > 64 }), nested(200, objectAt: { $0 % 7 < 3 }),
            nested(256, objectAt: { _ in true }), nested(257, objectAt: { _ in false }),
        ]

    @Test("The corpus, deep nesting across the word's bounds included: the reference's answers")
    func corpusAgrees() {
        for text in Self.corpus {
            let data = Data(text.utf8)
            #expect(JSONValue.validateStructure(data) == Self.reference(data), "\(text.prefix(80))")
            #expect(
                JSONValue.validateStructure(data, maxDepth: 70) == Self.reference(data, maxDepth: 70),
                "\(text.prefix(80))")
        }
    }

    @Test("Brackets closed with the wrong kind at every depth around 64 and 128 are refused")
    func mismatchesAtEveryDepth() {
        for levels in [62, 63, 64, 65, 66, 127, 128, 129, 130] {
            for wrong in [0, levels / 2, levels - 1] {
                var text = Self.nested(levels, objectAt: { $0 % 2 == 0 })
                // The closing bracket of level `wrong` swapped for the other kind.
                let closers = text.indices.filter { text[$0] == "}" || text[$0] == "]" }
                let position = closers[levels - 1 - wrong]
                text.replaceSubrange(position...position, with: text[position] == "}" ? "]" : "}")
                let data = Data(text.utf8)
                #expect(JSONValue.validateStructure(data) == .malformed, "\(levels) levels, level \(wrong) wrong")
            }
        }
    }

    @Test("Cut off anywhere, a valid text is `truncated`, not `malformed`")
    func truncation() {
        for text in Self.corpus where Self.reference(Data(text.utf8)) == nil {
            let bytes = Array(text.utf8)
            for end in 1..<bytes.count {
                let cut = Data(bytes[..<end])
                // A number or a value at the top level may end anywhere: `12` cut is `1`, still JSON.
                guard bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "[") else { continue }
                #expect(JSONValue.validateStructure(cut) == .truncated, "\(text.prefix(40)) cut at \(end)")
                #expect(Self.reference(cut) == .truncated, "\(text.prefix(40)) cut at \(end)")
            }
        }
    }

    @Test("Mutated texts (20,000 seeded): the reference's answer every time")
    func mutationsAgree() {
        for bytes in jsonMutations(of: Self.corpus, count: 20_000, seed: 20_261_128, maxEdits: 4) {
            let data = Data(bytes)
            #expect(
                JSONValue.validateStructure(data, maxDepth: 100) == Self.reference(data, maxDepth: 100),
                "\(String(decoding: bytes.prefix(80), as: UTF8.self))")
        }
    }
}
