import Foundation
import MendJOSE
import Testing

/// The fixtures' small notation of a CBOR item (see `Vectors/make-rfc8949-fixture.py`).
func notation(_ value: CBORValue) -> String {
    switch value {
    case .unsigned(let number): "\(number)"
    case .negative(let number): number == .max ? "-18446744073709551616" : "-\(number + 1)"
    case .bytes(let bytes): "h'" + hex(bytes) + "'"
    case .text(let text): "t:" + hex(Array(text.utf8))
    case .array(let items): "[" + items.map(notation).joined(separator: ",") + "]"
    case .map(let map):
        "{" + map.entries.map { notation($0.key) + ":" + notation($0.value) }.joined(separator: ",") + "}"
    case .bool(let flag): flag ? "true" : "false"
    case .null: "null"
    case .float(let number):
        number.isNaN ? "f:nan" : "f:" + hex(withUnsafeBytes(of: number.bitPattern.bigEndian) { Array($0) })
    }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

func bytes(hex text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

func vectors(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Vectors/\(name)", withExtension: "json"))
    return try Data(contentsOf: url)
}

@Suite("CBOR: RFC 8949's own examples, and the subset's rules")
struct CBORTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        var hex: String
        var value: String?
        var refused: String?
        var testDescription: String { hex }
    }

    static let appendixA: [Case] = (try? JSONDecoder().decode([Case].self, from: vectors("rfc8949-appendix-a"))) ?? []

    @Test("RFC 8949 appendix A: decoded as the RFC says, or refused where outside the subset", arguments: appendixA)
    func appendixAExample(_ example: Case) throws {
        let input = bytes(hex: example.hex)
        if let expected = example.value {
            #expect(notation(try CBOR.decode(input)) == expected)
        } else {
            let error = #expect(throws: CBORError.self) { try CBOR.decode(input) }
            let kind: CBORError.Kind = example.refused == "malformed" ? .malformed : .unsupported
            #expect(error?.kind == kind)
        }
    }

    @Test("Every appendix A example of the subset without a float is re-encoded byte for byte")
    func appendixARoundTrip() throws {
        #expect(Self.appendixA.count == 82)
        var checked = 0
        for example in Self.appendixA
        where example.value != nil && !example.hex.hasPrefix("f9")
            && !example.hex.hasPrefix("fa") && !example.hex.hasPrefix("fb")
        {
            let input = bytes(hex: example.hex)
            #expect(CBOR.encode(try CBOR.decode(input)) == input, "\(example.hex)")
            checked += 1
        }
        #expect(checked == 37)
    }

    @Test("A map with a key twice is refused, whatever the values")
    func duplicateKeys() {
        // {1: 2, 1: 3} and {"a": 1, "a": 1}
        for input in [[0xA2, 0x01, 0x02, 0x01, 0x03], [0xA2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x01]] as [[UInt8]] {
            let error = #expect(throws: CBORError.self) { try CBOR.decode(input) }
            #expect(error?.kind == .duplicateKey)
        }
        // 1 and "1" are different keys.
        #expect(throws: Never.self) { try CBOR.decode([0xA2, 0x01, 0x02, 0x61, 0x31, 0x03]) }
    }

    @Test("Keys that are not integers or text, bytes after the item and cut-off items are refused")
    func structuralRules() {
        let cases: [([UInt8], CBORError.Kind)] = [
            ([0xA1, 0x41, 0x00, 0x01], .unsupported),  // {h'00': 1}
            ([0xA1, 0x80, 0x01], .unsupported),  // {[]: 1}
            ([0x01, 0x02], .malformed),  // 1, then a byte
            ([0x19, 0x01], .malformed),  // a uint16 cut off
            ([0x62, 0x61], .malformed),  // a two-byte text of one byte
            ([0x1C], .malformed),  // additional information 28
            ([0x62, 0xC3, 0x28], .malformed),  // text that is not UTF-8
            ([0xFF], .malformed),  // a break alone
            ([], .malformed),
        ]
        for (input, kind) in cases {
            let error = #expect(throws: CBORError.self) { try CBOR.decode(input) }
            #expect(error?.kind == kind, "\(hex(input))")
        }
    }

    @Test("A length the input cannot hold is refused before memory is reserved for it")
    func hostileLengths() {
        // An array and a map of 2^64 - 1 items, and a byte string of 2^32 bytes, in a few bytes.
        for input in [
            [0x9B] + [UInt8](repeating: 0xFF, count: 8), [0xBB] + [UInt8](repeating: 0xFF, count: 8),
            [0x5A, 0xFF, 0xFF, 0xFF, 0xFF],
        ] as [[UInt8]] {
            let error = #expect(throws: CBORError.self) { try CBOR.decode(input) }
            #expect(error?.kind == .malformed)
        }
    }

    @Test("Depth, size and item limits")
    func limits() {
        let deep = [UInt8](repeating: 0x81, count: 16) + [0x00]  // 17 levels
        #expect((try? CBOR.decode(Array(deep.dropFirst()))) != nil)
        #expect(throws: CBORError(.tooLarge, "an item at byte 16 is nested deeper than 16")) {
            try CBOR.decode(deep)
        }
        let small = CBOR.Limits(maximumBytes: 4, maximumDepth: 4, maximumItems: 3)
        #expect((try? CBOR.decode([0x83, 0x01, 0x02, 0x03], limits: small)) == nil)  // four items
        #expect((try? CBOR.decode([0x82, 0x01, 0x02], limits: small)) != nil)
        #expect((try? CBOR.decode([0x45, 1, 2, 3, 4, 5], limits: small)) == nil)  // six bytes
    }

    @Test("decodePrefix gives the offset where the item ends")
    func prefixOffset() throws {
        let (value, end) = try CBOR.decodePrefix([0xA1, 0x01, 0x02, 0xFF, 0xFF])
        #expect(end == 3)
        #expect(value.mapValue?[1] == .unsigned(2))
    }

    @Test("The encoder writes maps in the deterministic order, whatever order they were given in")
    func deterministicMaps() throws {
        let map = try #require(
            CBORMap([
                (.integer(-1), .integer(1)), (.text("a"), .null), (.integer(3), .integer(-7)),
                (.integer(1), .integer(2)),
            ]))
        #expect(hex(CBOR.encode(.map(map))) == "a40102032620016161f6")
        #expect(CBORMap([(.integer(1), .null), (.integer(1), .null)]) == nil)
    }
}

extension CBORTests {
    @Test("Additional information 31 on an integer or a tag is malformed, not an indefinite length (RFC 8949 §3)")
    func thirtyOneOnIntegersAndTags() {
        for input in [[0x1F], [0x3F], [0xDF, 0x01]] as [[UInt8]] {
            let error = #expect(throws: CBORError.self) { try CBOR.decode(input) }
            #expect(error?.kind == .malformed, "\(hex(input))")
        }
        let indefinite = #expect(throws: CBORError.self) { try CBOR.decode([0x9F, 0xFF]) }
        #expect(indefinite?.kind == .unsupported)
    }
}
