import Foundation
import Testing

@testable import MendCore

/// `JSONValue.validateStructure` (every success body's check) held to the implementation it replaced, which kept its
/// open brackets in an array: the same answer for every text, deep nesting past a word of brackets included.
@Suite("The structure check of success bodies")
struct StructureCheckTests {
    /// The check as it was before it kept its brackets in a word: the reference.
    static func reference(
        _ data: Data, maxBytes: Int = 16 << 20, maxDepth: Int = JSONValue.defaultMaxDepth
    )
        -> JSONValue.ParseFailure?
    {
        guard data.count <= maxBytes else { return .tooLarge(limit: maxBytes) }
        let bytes = Array(data)
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        var index = 0
        let count = bytes.count
        while index < count, isWhitespace(bytes[index]) { index += 1 }
        guard index < count else { return .empty }
        let first = bytes[index]
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            return "\"-0123456789tfn".utf8.contains(first)
                ? (JSONValue.parse(data, maxBytes: maxBytes, maxDepth: maxDepth).failure) : .notJSON
        }
        var stack: [UInt8] = []
        var inString = false
        var escaped = false
        while index < count {
            let byte = bytes[index]
            index += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    return .malformed
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                stack.append(byte)
                if stack.count > maxDepth { return .tooDeep(limit: maxDepth) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let open = stack.popLast(),
                    (open == UInt8(ascii: "{") && byte == UInt8(ascii: "}"))
                        || (open == UInt8(ascii: "[") && byte == UInt8(ascii: "]"))
                else { return .malformed }
                if stack.isEmpty {
                    while index < count, isWhitespace(bytes[index]) { index += 1 }
                    return index == count ? nil : .malformed
                }
            default: continue
            }
        }
        return .malformed
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
            "[}", "{]", "[] []", "\"s\"", "12", "true", "<html>", "", "  ",
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
                #expect(Self.reference(data) == .malformed)
            }
        }
    }

    @Test("Mutated texts (20,000 seeded): the reference's answer every time")
    func mutationsAgree() {
        var generator = SplitMix(seed: 20_261_128)
        let alphabet = Array(#"{}[]:,"\\/ -+.eE0123456789abfnrtuAZ"#.utf8) + [0x00, 0x0A, 0x1F, 0xC3, 0xFF]
        for round in 0..<20_000 {
            var bytes = Array(Self.corpus[round % Self.corpus.count].utf8)
            for _ in 0...Int(generator.next() % 4) {
                let position = bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0 where !bytes.isEmpty: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: if !bytes.isEmpty { bytes.remove(at: position) }
                }
            }
            let data = Data(bytes)
            #expect(
                JSONValue.validateStructure(data, maxDepth: 100) == Self.reference(data, maxDepth: 100),
                "\(String(decoding: bytes.prefix(80), as: UTF8.self))")
        }
    }
}
