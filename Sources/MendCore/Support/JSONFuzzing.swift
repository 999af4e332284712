import Foundation

/// Mend's JSON lexer for the fuzzers (Fuzz/), which are a package of their own and cannot see `package` API.
/// `@_spi(MendFuzzing)`: not part of Mend's public API; one entry point, so that it adds no surface to speak of.
@_spi(MendFuzzing) public enum JSONFuzzing {
    /// Reads `input` every way Mend reads JSON; the broken invariant in words, or `nil` when every one held.
    ///
    /// Invariants: the check without building (`validateStructure`) answers as the parse does; refusing duplicates
    /// differs from reading the last one only by refusing a duplicate; a value read is written (compact and indented)
    /// as text that reads back as the same value; a valid object or array cut anywhere before its end is `truncated`;
    /// `parseObject` (tokens' headers and claims) reads an object exactly as the parse does.
    public static func check(_ input: [UInt8]) -> String? {
        let data = Data(input)
        let strict = JSONValue.parse(data, duplicateMembers: .refuse)
        let lastWins = JSONValue.parse(data, duplicateMembers: .lastWins)
        let checked = JSONValue.validateStructure(data)
        switch (lastWins, checked) {
        case (.success, nil): break
        case (.failure(let failure), let answer?) where failure == answer: break
        default: return "the check without building answered \(String(describing: checked)), the parse otherwise"
        }
        switch (strict, lastWins) {
        case (.success(let one), .success(let other)) where one == other: break
        case (.failure(.duplicateMember), .success): break
        case (.failure(.duplicateMember), .failure): break
        case (.failure(let one), .failure(let other)) where one == other: break
        default: return "refusing duplicates and reading the last one differ beyond a duplicate"
        }
        if case .object(let members)? = try? strict.get(), input.count <= 16 << 10 {
            if JSONValue.parseObject(input, maxDepth: JSONValue.defaultMaxDepth) != members {
                return "parseObject read an object otherwise"
            }
        }
        guard case .success(let value) = lastWins else { return nil }
        for pretty in [false, true] {
            let text = value.jsonText(pretty: pretty)
            guard case .success(let again) = JSONValue.parse(Data(text.utf8), duplicateMembers: .refuse), again == value
            else { return "a value written\(pretty ? " indented" : "") did not read back the same" }
        }
        // Cut before its last byte (whitespace after it aside), an object or array is unfinished.
        let start = input.firstIndex { !JSONReader.isWhitespace($0) } ?? 0
        let end = (input.lastIndex { !JSONReader.isWhitespace($0) } ?? 0)
        guard input[start] == UInt8(ascii: "{") || input[start] == UInt8(ascii: "["), end > start else { return nil }
        for cut in Set([start + 1, (start + end) / 2, end, end - 1].filter { $0 > start && $0 <= end }) {
            let failure = JSONValue.validateStructure(Data(input[..<cut]))
            guard failure == .truncated else {
                return "cut at \(cut) of \(input.count), the check answered \(String(describing: failure))"
            }
        }
        return nil
    }
}
