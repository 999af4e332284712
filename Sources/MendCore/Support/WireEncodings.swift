package import Foundation

// The small wire encodings every Mend module needs, written once: base64url (JOSE, PKCE, signed_request), the
// application/x-www-form-urlencoded form (token endpoints, query strings, Graph batches) and a constant-time
// comparison (secrets, PKCE challenges). `package`: Mend's modules and tests use them; no app needs them.

/// Base64url (RFC 4648 §5), as OAuth, JOSE and Facebook's `signed_request` use it: encoded without padding; decoded
/// strictly.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes, without padding.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 4 / 3 + 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { output.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes text: `nil` for a character outside the base64url alphabet (`+` and `/` included), a length that
    /// leaves 6 bits, non-zero bits after the last byte (a second spelling of the same bytes), or padding that is
    /// not one or two `=` completing the last quantum (padding is optional).
    package static func decode(_ text: some StringProtocol) -> Data? {
        decodeBytes(text.utf8).map { Data($0) }
    }

    /// Decodes text in the one spelling JOSE allows (RFC 7515 §2): no padding, no character outside the alphabet, no
    /// non-zero bits after the last byte. `nil` for anything else, so that a signed token has exactly one text.
    package static func decodeCanonical(_ text: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decodeCanonical(buffer: $0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decodeCanonical(buffer: $0) }
    }

    /// ``decodeCanonical(_:)`` over contiguous bytes.
    package static func decodeCanonical(buffer text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.last != UInt8(ascii: "=") else { return nil }
        return decodeBytes(buffer: text)
    }

    /// ``decode(_:)`` over UTF-8 bytes, without Foundation: the fast path of token verification.
    package static func decodeBytes(_ text: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decodeBytes(buffer: $0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decodeBytes(buffer: $0) }
    }

    /// ``decodeBytes(_:)`` over contiguous bytes: four characters to three bytes at a time through a table, not
    /// generic (a generic pass over a string's UTF-8 view, unspecialized across modules, cost more than the signature
    /// check it came before; a character at a time through a `switch`, slower than jwt-kit's decoder).
    private static func decodeBytes(buffer text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var end = text.count
        var padding = 0
        while padding < 2, end > 0, text[end - 1] == UInt8(ascii: "=") {
            padding += 1
            end -= 1
        }
        if padding > 0, text.count % 4 != 0 { return nil }
        let tail = end % 4
        guard tail != 1 else { return nil }
        let whole = end - tail
        return decodingTable.withUnsafeBufferPointer { table -> [UInt8]? in
            // Each character's 6 bits, or 0x80 for one outside the alphabet: OR-ed together, any stray shows.
            @inline(__always) func value(_ index: Int) -> UInt32 { UInt32(table[Int(text[index])]) }
            var stray: UInt32 = 0
            let output = [UInt8](unsafeUninitializedCapacity: whole / 4 * 3 + max(0, tail - 1)) { output, written in
                var index = 0
                var out = 0
                while index < whole {
                    let (a, b, c, d) = (value(index), value(index + 1), value(index + 2), value(index + 3))
                    stray |= a | b | c | d
                    let quantum = a << 18 | b << 12 | c << 6 | d
                    output[out] = UInt8(truncatingIfNeeded: quantum >> 16)
                    output[out + 1] = UInt8(truncatingIfNeeded: quantum >> 8)
                    output[out + 2] = UInt8(truncatingIfNeeded: quantum)
                    index += 4
                    out += 3
                }
                switch tail {
                case 2:
                    let (a, b) = (value(index), value(index + 1))
                    // 12 bits for one byte: the last 4 must be zero (one spelling per byte string).
                    stray |= a | b | (b & 0x0F == 0 ? 0 : 0x80)
                    output[out] = UInt8(truncatingIfNeeded: (a << 6 | b) >> 4)
                    out += 1
                case 3:
                    let (a, b, c) = (value(index), value(index + 1), value(index + 2))
                    stray |= a | b | c | (c & 0x03 == 0 ? 0 : 0x80)
                    let quantum = a << 12 | b << 6 | c
                    output[out] = UInt8(truncatingIfNeeded: quantum >> 10)
                    output[out + 1] = UInt8(truncatingIfNeeded: quantum >> 2)
                    out += 2
                default: break
                }
                written = out
            }
            return stray & 0x80 == 0 ? output : nil
        }
    }

    /// Each byte's 6-bit value in the base64url alphabet, 0x80 for any other byte.
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: 0x80, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()
}

/// `application/x-www-form-urlencoded` (WHATWG URL §5; RFC 6749 Appendix B), also for query strings: names and values
/// percent-encoded except the unreserved characters `A–Z a–z 0–9 - . _ ~`.
package enum FormEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Encodes pairs in order: `a=1&b=two%20words`.
    package static func encode(_ pairs: some Sequence<(String, String)>) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Encodes named pairs in order.
    package static func encode(_ pairs: [(name: String, value: String)]) -> String {
        encode(pairs.lazy.map { ($0.name, $0.value) })
    }

    /// Percent-encodes one name or value (every byte outside the unreserved characters, UTF-8).
    package static func escape(_ text: some StringProtocol) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? String(text)
    }

    /// Decodes `a=1&b=two+words` into pairs in order (`+` is a space; an undecodable escape is kept as written).
    package static func decodePairs(_ text: some StringProtocol) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            guard !pair.isEmpty else { return nil }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// Decodes `a=1&flag&b=` into fields in order, keeping a name without `=` apart from one with an empty value
    /// (`flag` has none; `b` has ""), so that ``encode(fields:)`` writes the text back as it was, but for escapes.
    package static func decodeFields(_ text: some StringProtocol) -> [(name: String, value: String?)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : nil)
        }
    }

    /// Encodes fields in order, a field without a value as its name alone.
    package static func encode(fields: [(name: String, value: String?)]) -> String {
        fields.map { escape($0.name) + ($0.value.map { "=" + escape($0) } ?? "") }.joined(separator: "&")
    }

    /// Decodes into a dictionary (the last value wins for a repeated name).
    package static func decode(_ text: some StringProtocol) -> [String: String] {
        Dictionary(decodePairs(text), uniquingKeysWith: { _, last in last })
    }

    /// Decodes one name or value (`+` is a space).
    package static func unescape(_ text: some StringProtocol) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// Comparisons whose time does not depend on where the inputs differ (secrets, PKCE challenges, signatures).
package enum ConstantTime {
    /// Whether `a` and `b` are equal, comparing every byte.
    package static func equal(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        equal(a.utf8, b.utf8)
    }

    /// Whether `a` and `b` are equal, comparing every byte of the longer one.
    package static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a)
        let right = Array(b)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
