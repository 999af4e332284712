import Foundation
import Testing

@testable import MendCore

/// `JSONValue.jsonText()`, Mend's one JSON writer, held to what it replaced: `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes`, and `.prettyPrinted` for `jsonText(pretty: true)` — the same bytes for every value, the
/// same `"null"` for one it cannot write.
@Suite("Compact JSON text (servers' answers)")
struct JSONTextTests {
    /// The reference: Foundation's encoder, as `jsonText()` used it.
    static func reference(_ value: JSONValue, pretty: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("Escapes, key order, numbers and nesting: the reference's bytes")
    func corpus() {
        let values: [JSONValue] = [
            .null, .bool(true), .bool(false), .int(0), .int(-1), .int(Int.max), .int(Int.min), .double(0.1),
            .double(1e20), .double(-0.0), .double(1.5), .double(1e-7), .double(123_456_789_012.5), .string(""),
            .string("a/b \" \\ \u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F} \u{2028} é 😀 e\u{301}"),
            .array([]), .object([:]),
            .object([
                "A": .int(1), "Z": .int(2), "_": .int(3), "a": .int(4), "a-b": .int(5), "a10": .int(6), "a9": .int(7),
                "aB": .int(8), "a_b": .int(9), "é": .int(10), "e\u{301}x": .int(11), "\u{FF61}": .int(12),
                "😀": .int(13), "": .int(14), "k\"\\\n": .array([.null, .object(["x": .array([.array([])])])]),
            ]),
            .object(["valid": .bool(true), "user_id": .string("u1"), "scopes": .array([.string("email")])]),
        ]
        for value in values {
            #expect(value.jsonText() == Self.reference(value), "\(value)")
            #expect(value.jsonText(pretty: true) == Self.reference(value, pretty: true), "pretty: \(value)")
        }
    }

    @Test("A number JSON cannot carry gives \"null\", as before")
    func nonFinite() {
        for value: JSONValue in [.double(.nan), .double(.infinity), .array([.int(1), .double(-.infinity)])] {
            #expect(value.jsonText() == "null")
            #expect(value.jsonText(pretty: true) == "null")
            #expect(Self.reference(value) == "null")
        }
    }

    @Test("Random values (5,000 seeded), compact and indented: the reference's bytes")
    func random() {
        var generator = SplitMix(seed: 20_261_128)
        let scalars: [Unicode.Scalar] = [
            "a", "b", "Z", "_", "-", "/", "\"", "\\", "0", "9", " ", "é", "\u{301}", "\u{0}",
            "\u{1F}", "\u{7F}", "\u{FF61}", "😀", "\u{2028}", "\n", "\t",
        ]
        func text() -> String {
            var string = ""
            for _ in 0..<Int(generator.next() % 6) { string.unicodeScalars.append(scalars[Int(generator.next() % 21)]) }
            return string
        }
        func value(depth: Int) -> JSONValue {
            switch generator.next() % (depth > 3 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(generator.next() % 2 == 0)
            case 2: return .int(Int(bitPattern: UInt(generator.next())) >> Int(generator.next() % 64))
            case 3 where generator.next() % 2 == 0:
                // Any finite double, every exponent.
                let bits = Double(bitPattern: generator.next())
                return .double(bits.isFinite ? bits : 0.5)
            case 3: return .double(Double(Int64(bitPattern: generator.next()) >> 20) / 1024)
            case 4: return .string(text())
            case 5: return .array((0..<Int(generator.next() % 4)).map { _ in value(depth: depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for _ in 0..<Int(generator.next() % 5) { members[text()] = value(depth: depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<5_000 {
            let random = value(depth: 0)
            #expect(random.jsonText() == Self.reference(random), "\(random)")
            #expect(random.jsonText(pretty: true) == Self.reference(random, pretty: true), "pretty: \(random)")
        }
    }
}
