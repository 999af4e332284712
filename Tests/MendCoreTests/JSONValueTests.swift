import Foundation
import MendCore
import Testing

@Suite("JSON parsing of bodies")
struct JSONValueTests {
    @Test(
        "Bad input of every kind is told apart",
        arguments: [
            ("", JSONValue.ParseFailure.empty),
            ("   \n", .empty),
            ("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", .notJSON),
            ("Service Unavailable", .notJSON),
            (#"{"error":{"message":"trunc"#, .truncated),
            (#"{"a":}"#, .malformed),
            ("[1, 2", .truncated),
            ("[1, 2]]", .malformed),
            ("[NaN]", .malformed),
            (#"{"a":1,"b":2,"a":3}"#, .duplicateMember(name: "a")),
            (#"[{"x":{"y":1,"y":1}}]"#, .duplicateMember(name: "y")),
            (String(repeating: "[", count: 300) + String(repeating: "]", count: 300), .tooDeep(limit: 256)),
        ])
    func failures(text: String, expected: JSONValue.ParseFailure) {
        #expect(throws: expected) { try JSONValue.parse(Data(text.utf8)).get() }
    }

    @Test("Oversized input is refused before parsing")
    func tooLarge() {
        let data = Data(repeating: UInt8(ascii: " "), count: 2048)
        #expect(throws: JSONValue.ParseFailure.tooLarge(limit: 1024)) {
            try JSONValue.parse(data, maxBytes: 1024).get()
        }
    }

    @Test("Values keep their types; accessors coerce only where providers vary")
    func values() throws {
        let value = try JSONValue.parse(Data(#"{"code":190,"sub":"463","t":true,"r":1.5,"n":null,"a":[1,"x"]}"#.utf8))
            .get()
        #expect(value["code"] == .int(190))
        #expect(value["sub"]?.intValue == 463)
        #expect(value["t"]?.boolValue == true)
        #expect(value["r"] == .double(1.5))
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?.arrayValue?.count == 2)
        #expect(value.jsonText() == #"{"a":[1,"x"],"code":190,"n":null,"r":1.5,"sub":"463","t":true}"#)
    }

    @Test("A member named twice: refused by default, the last one read when the caller asks for it")
    func duplicates() throws {
        let text = Data(#"{"user":"a","scope":"read","user":"b"}"#.utf8)
        #expect(throws: JSONValue.ParseFailure.duplicateMember(name: "user")) { try JSONValue.parse(text).get() }
        let lastWins = try JSONValue.parse(text, duplicateMembers: .lastWins).get()
        #expect(lastWins == .object(["user": .string("b"), "scope": .string("read")]))
    }

    @Test("Nesting is bounded while parsing: the limit itself parses, one more level does not")
    func depth() throws {
        func nested(_ levels: Int) -> Data {
            Data((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
        }
        _ = try JSONValue.parse(nested(256)).get()
        #expect(throws: JSONValue.ParseFailure.tooDeep(limit: 256)) { try JSONValue.parse(nested(257)).get() }
        _ = try JSONValue.parse(nested(3), maxDepth: 3).get()
        #expect(throws: JSONValue.ParseFailure.tooDeep(limit: 3)) { try JSONValue.parse(nested(4), maxDepth: 3).get() }
    }
}
