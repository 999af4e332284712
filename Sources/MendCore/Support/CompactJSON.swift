extension JSONValue {
    /// Parses a small JSON text that must be exactly one object — a JWT's header or claims — without Foundation:
    /// a byte-level recursive descent that is strict where it matters for a signed token. `nil` for anything else:
    /// malformed JSON (RFC 8259: no trailing commas, no leading zeros, no unescaped control characters), invalid
    /// UTF-8 or a lone surrogate escape, nesting deeper than `maxDepth`, or a member name used twice (RFC 7515 §5.2
    /// lets a JWS parser refuse duplicates, and refusing them leaves no room for two parsers to read one token two
    /// ways).
    ///
    /// What it accepts it reads as ``parse(_:maxBytes:maxDepth:)`` does — a number whose value is an integer that fits
    /// in `Int` is ``int(_:)``, any other number ``double(_:)``; a test holds the two to that — at a fraction of its
    /// cost: DPoP proofs are parsed on every request.
    package static func parseObject(_ text: some Collection<UInt8>, maxDepth: Int = 16) -> [String: JSONValue]? {
        let bytes = Array(text)
        return bytes.withUnsafeBufferPointer { buffer -> [String: JSONValue]? in
            var parser = CompactJSONParser(bytes: buffer, maxDepth: maxDepth)
            parser.skipWhitespace()
            guard case .object(let object)? = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.index == buffer.count ? object : nil
        }
    }
}

extension JSONValue {
    /// ``parseObject(_:maxDepth:)`` without the dictionary: `body` gets each member of the object in order — a JWT's
    /// claims read into their fields on every request, where hashing every member name into a dictionary cost more
    /// than parsing them. `false` for anything `parseObject` refuses (a member name used twice included: the names are
    /// compared as they come, which for the few members of a token costs less than hashing them) or when `body`
    /// returns `false`.
    package static func parseObjectMembers(
        _ text: UnsafeBufferPointer<UInt8>, maxDepth: Int = 16, _ body: (String, JSONValue) -> Bool
    ) -> Bool {
        var parser = CompactJSONParser(bytes: text, maxDepth: maxDepth)
        parser.skipWhitespace()
        guard parser.members(body) else { return false }
        parser.skipWhitespace()
        return parser.index == text.count
    }
}

/// The parser behind ``JSONValue/parseObject(_:maxDepth:)``.
private struct CompactJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }

    mutating func value(depth: Int) -> JSONValue? {
        guard depth <= maxDepth, let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        guard depth <= maxDepth else { return nil }
        var members: [String: JSONValue] = [:]
        guard self.members(depth: depth, { name, member in members.updateValue(member, forKey: name) == nil }) else {
            return nil
        }
        return .object(members)
    }

    /// The members of the object at the start, each given to `body`; `false` as ``object(depth:)`` returns `nil` (a
    /// member name used twice included).
    mutating func members(_ body: (String, JSONValue) -> Bool) -> Bool {
        guard current == UInt8(ascii: "{"), maxDepth >= 1 else { return false }
        // The names compared as they come: for the few members of a token, cheaper than hashing them.
        var names: [String] = []
        return members(depth: 1) { name, member in
            guard !names.contains(name) else { return false }
            names.append(name)
            return body(name, member)
        }
    }

    /// The one loop over an object's members (at `{`, which the caller has checked), each given to `take` — which
    /// refuses a name used twice — with values at `depth`; `false` for malformed text or when `take` returns `false`.
    private mutating func members(depth: Int, _ take: (String, JSONValue) -> Bool) -> Bool {
        index += 1  // {
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let name = string() else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            guard let member = value(depth: depth), take(name, member) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return false
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        guard depth <= maxDepth else { return nil }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string at `"`: its escapes decoded, its UTF-8 validated.
    private mutating func string() -> String? {
        index += 1  // "
        let start = index
        // The common case: no escape, so the bytes are the string.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            index += 1
            return Self.validated(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
        }
        var decoded = Array(bytes[start..<index])
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return Self.validated(decoded)
            case UInt8(ascii: "\\"):
                guard let escape = current else { return nil }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard consume("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        return nil
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    decoded.append(contentsOf: String(Character(unicode)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                decoded.append(byte)
            }
        }
        return nil
    }

    /// `bytes` as a string when they are valid UTF-8 (no overlong forms, no encoded surrogates), else `nil` — with
    /// the standard library's strict decoder, which every OS version has.
    private static func validated(_ bytes: some Collection<UInt8>) -> String? {
        // ASCII, as most of a token is, needs no decoder.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        var decoder = Unicode.UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// A number (RFC 8259 §6): one whose value is an integer that fits in `Int` is `.int`, anything else `.double`.
    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var integral = true
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
            integral = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
            integral = false
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { return nil }
        // As JSONDecoder reads an `Int` (what `JSONValue` tries first): `1.0`, `1e2` and `-0.25e3` are integers.
        if let exact = Int(exactly: value) { return .int(exact) }
        return .double(value)
    }

    private mutating func skipDigits() {
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
    }

    /// One or more digits.
    private mutating func digits() -> Bool {
        let start = index
        skipDigits()
        return index > start
    }
}
