import Foundation
import MendCore
import Testing

/// The one base64url, form encoding and constant-time comparison every module uses (MendCore, `package`).
@Suite("Wire encodings")
struct WireEncodingsTests {
    /// Deterministic bytes of every length from 0 to 96 (xorshift64, so that a failure repeats).
    static let samples: [[UInt8]] = {
        var state: UInt64 = 20_261_125
        return (0...96).map { length in
            (0..<length).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
        }
    }()

    @Test("Base64url agrees with Foundation's base64 (the oracle) and decodes what it encodes")
    func base64URLRoundTrip() {
        for bytes in Self.samples {
            let padded = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let unpadded = padded.replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == unpadded)
            #expect(Base64URL.decode(unpadded) == Data(bytes))
            #expect(Base64URL.decode(padded) == Data(bytes), "padding is optional")
            #expect(Base64URL.decodeBytes(Array(unpadded.utf8)[...]) == bytes)
        }
    }

    @Test(
        "Base64url refuses what is not one canonical spelling",
        arguments: [
            "A",  // a length that leaves 6 bits
            "AAAAA",
            "AB",  // non-zero bits after the last byte: a second spelling of [0x00]
            "AAB",
            "a+b/",  // base64, not base64url
            "AA AA",
            "AA=",  // padding that does not complete a quantum
            "A===",
            "AA==AA==",  // padding inside
            "=AAA",
            "AAA\u{0}",
            "ÄÄÄÄ",
        ])
    func base64URLRefuses(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("Base64url refuses a stray character wherever it stands, in a whole quantum or the last, partial one")
    func base64URLRefusesAStrayAnywhere() {
        for bytes in Self.samples.prefix(40) {
            let text = Array(Base64URL.encode(bytes).utf8)
            for position in text.indices {
                for stray in [UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), 0x00, 0x80, 0xFF, 0x2E] {
                    // "xyz=" is padding, not a stray: another text, which may well decode.
                    if stray == UInt8(ascii: "="), position == text.count - 1, text.count % 4 == 0 { continue }
                    var spoiled = text
                    spoiled[position] = stray
                    #expect(
                        Base64URL.decodeBytes(spoiled[...]) == nil, "\(text.count) characters, \(stray) at \(position)")
                }
            }
        }
    }

    @Test("Form encoding escapes everything but the unreserved characters, non-ASCII letters included")
    func formEncoding() {
        #expect(
            FormEncoding.encode([("a b", "é&=+/?#~._-"), ("redirect_uri", "https://app.example/cb?x=1")])
                == "a%20b=%C3%A9%26%3D%2B%2F%3F%23~._-&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fx%3D1")
        #expect(FormEncoding.encode([(name: "q", value: "ünïcode")]) == "q=%C3%BCn%C3%AFcode")
        let pairs = FormEncoding.decodePairs("a=1&b=two+words&c=%C3%A9&d&=e&&f=%zz")
        #expect(pairs.map(\.0) == ["a", "b", "c", "d", "", "f"])
        #expect(pairs.map(\.1) == ["1", "two words", "é", "", "e", "%zz"])
        #expect(FormEncoding.decode("a=1&a=2") == ["a": "2"])
        let original: [(String, String)] = [("x y", "1+1=2"), ("ü", "&")]
        let decoded = FormEncoding.decodePairs(FormEncoding.encode(original))
        #expect(decoded.map(\.0) == original.map(\.0) && decoded.map(\.1) == original.map(\.1))
    }

    @Test("Constant-time equality is equality, whatever the lengths")
    func constantTime() {
        #expect(ConstantTime.equal("secret", "secret"))
        #expect(!ConstantTime.equal("secret", "secreT"))
        #expect(!ConstantTime.equal("secret", "secret\u{0}"))
        #expect(!ConstantTime.equal("", "a"))
        #expect(ConstantTime.equal("", ""))
        #expect(ConstantTime.equal([UInt8](), Data()))
        #expect(!ConstantTime.equal([1, 2, 3] as [UInt8], Data([1, 2])))
    }
}
