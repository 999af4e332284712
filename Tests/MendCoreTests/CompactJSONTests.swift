import Foundation
import Testing

@testable import MendCore

/// `JSONValue.parseObject`, the one lexer as a JWT's header and claims are read, held to Foundation's `JSONDecoder`:
/// whatever it accepts, the reference accepts and reads the same; and it refuses what a JWT parser should.
@Suite("The compact JSON parser (DPoP proofs)")
struct CompactJSONTests {
    static let corpus: [String] = [
        #"{}"#,
        #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"}}"#,
        #"{"jti":"-BwC3ESc6acc2lTc","htm":"POST","htu":"https://server.example.com/token","iat":1562262616,"ath":"fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo","nonce":"eyJ7S_zG.eyJH0-Z.HX4w-7v"}"#,
        #"{ "a" : [ 1 , -2 , 3.5 , -0.25e3 , 1E2 , 0 , -0 , 9223372036854775807 , 9223372036854775808 ] }"#,
        #"{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00 end","t":true,"f":false,"n":null}"#,
        #"{"nested":{"a":{"b":{"c":[{},[],{"d":[null]}]}}}}"#,
        #"{"utf8":"ümlaut — 日本 😀","empty":"","num":1.0,"exp":1e0,"big":1e300}"#,
        "{\n\t\"ws\" :\r\n 1 \n}",
    ]

    /// What the reference makes of `text`, when it is an object.
    static func reference(_ text: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text)) else {
            return nil
        }
        return object
    }

    /// What `parseObjectMembers` gives, member by member, gathered into a dictionary (it refuses duplicates).
    static func members(_ text: [UInt8]) -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        let parsed = text.withUnsafeBufferPointer { buffer in
            JSONValue.parseObjectMembers(buffer) { name, value in
                members[name] = value
                return true
            }
        }
        return parsed ? members : nil
    }

    @Test("Every valid object of the corpus parses, as the reference reads it")
    func corpusAgrees() throws {
        for text in Self.corpus {
            let bytes = Array(text.utf8)
            let parsed = try #require(JSONValue.parseObject(bytes), "\(text)")
            #expect(parsed == Self.reference(bytes), "\(text)")
            #expect(Self.members(bytes) == parsed, "member by member: \(text)")
        }
    }

    @Test("Refused: not an object, trailing text, malformed JSON, invalid UTF-8, lone surrogates, duplicates, depth")
    func refusals() {
        let refused: [String] = [
            #"[]"#, #""s""#, #"1"#, #"{} x"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":+1}"#,
            #"{"a":1e}"#, #"{'a':1}"#, #"{"a":NaN}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#,
            #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\ud800\u0041"}"#, #"{"a":1,"a":2}"#, #"{"a" 1}"#,
            #"{"a":[1 2]}"#, #"{"a":1e400}"#, "{\"a\":\"tab\there\"}", #"{"a":"unterminated}"#, "",
            String(repeating: "{\"a\":", count: 20) + "1" + String(repeating: "}", count: 20),
        ]
        for text in refused {
            #expect(JSONValue.parseObject(Array(text.utf8)) == nil, "\(text)")
            #expect(Self.members(Array(text.utf8)) == nil, "member by member: \(text)")
        }
        #expect(
            JSONValue.parseObject([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]) == nil, "bad UTF-8")
    }

    @Test("Mutated texts: whatever the parser accepts, the reference accepts and reads the same (20,000 seeded)")
    func mutationsAgree() {
        var accepted = 0
        let alphabet = Array(#"{}[]:,"\\/ -+.eE0123456789abfnrtuAZ"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        for bytes in jsonMutations(of: Self.corpus, count: 20_000, seed: 20_261_127, alphabet: alphabet) {
            #expect(
                Self.members(bytes) == JSONValue.parseObject(bytes),
                "member by member: \(String(decoding: bytes, as: UTF8.self))")
            guard let parsed = JSONValue.parseObject(bytes) else { continue }
            accepted += 1
            #expect(parsed == Self.reference(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 1_000, "the mutations kept enough valid texts to compare (\(accepted))")
    }
}

/// A seeded generator (MendCore's SplitMix64).
typealias SplitMix = SplitMix64
