extension JSONValue {
    /// What a parse does with an object that names a member twice (RFC 8259 §4: the names SHOULD be unique, and
    /// readers differ on what such an object means).
    public enum DuplicateMembers: Sendable, Hashable {
        /// Refuse the text (``ParseFailure/duplicateMember(name:)``): for everything whose meaning matters — tokens,
        /// proofs, key sets, signed requests, configuration, the server's request bodies — where two readers taking
        /// different members of one text is how a signed value gets shadowed.
        case refuse
        /// Keep the last member of each name, as Python's `json` and most JavaScript engines do: for reading a third
        /// party's bodies and recordings, where refusing would lose an answer that means something either way.
        case lastWins
    }

    /// Parses a small JSON text that must be exactly one object — a JWT's header or claims — refusing a member name
    /// used twice (RFC 7515 §5.2 lets a JWS parser refuse duplicates, and refusing them leaves no room for two parsers
    /// to read one token two ways). `nil` for anything else: what ``parse(_:maxBytes:maxDepth:duplicateMembers:)``
    /// refuses, any value but an object, or nesting deeper than `maxDepth`.
    package static func parseObject(_ text: some Collection<UInt8>, maxDepth: Int = 16) -> [String: JSONValue]? {
        let object: [String: JSONValue]?? = text.withContiguousStorageIfAvailable { parseObject(buffer: $0, maxDepth) }
        return object ?? Array(text).withUnsafeBufferPointer { parseObject(buffer: $0, maxDepth) }
    }

    private static func parseObject(buffer: UnsafeBufferPointer<UInt8>, _ maxDepth: Int) -> [String: JSONValue]? {
        var reader = JSONReader(bytes: buffer, maxDepth: maxDepth, duplicates: .refuse, building: true)
        guard case .success(.object(let object)) = reader.document() else { return nil }
        return object
    }

    /// ``parseObject(_:maxDepth:)`` without the dictionary: `body` gets each member of the object in order — a JWT's
    /// claims read into their fields on every request, where hashing every member name into a dictionary cost more
    /// than parsing them. `false` for anything `parseObject` refuses (a member name used twice included: the names are
    /// compared as they come, which for the few members of a token costs less than hashing them) or when `body`
    /// returns `false`.
    package static func parseObjectMembers(
        _ text: UnsafeBufferPointer<UInt8>, maxDepth: Int = 16, _ body: (String, JSONValue) -> Bool
    ) -> Bool {
        var reader = JSONReader(bytes: text, maxDepth: maxDepth, duplicates: .refuse, building: true)
        reader.skipWhitespace()
        guard reader.members(body) else { return false }
        reader.skipWhitespace()
        return reader.index == text.count
    }
}

/// Mend's one JSON lexer and parser: a byte-level recursive descent, strict as RFC 8259 is — no trailing commas, no
/// leading zeros, no `NaN` or `Infinity`, no unescaped control characters, valid UTF-8 and no lone surrogate escape —
/// with nesting bounded by `maxDepth`, member names used twice refused or last-wins as the use says, and a failure
/// that tells input cut off (the bytes end before the value does) from input that is wrong.
///
/// With `building` it builds the value (``JSONValue/parse(_:maxBytes:maxDepth:duplicateMembers:)``,
/// ``JSONValue/parseObject(_:maxDepth:)``); without, it only checks the text, the same grammar at a fraction of the
/// cost (``JSONValue/validateStructure(_:maxBytes:maxDepth:)``, every success body's check).
///
/// Numbers read as `JSONDecoder` reads them into a ``JSONValue``: a number whose value is an integer that fits in
/// `Int` is ``JSONValue/int(_:)`` (`1.0` and `1e2` included), any other finite one ``JSONValue/double(_:)``; one
/// beyond `Double`'s range (`1e400`) is refused.
struct JSONReader {
    /// Why a text was refused.
    enum Failure: Error {
        case malformed
        case truncated
        case tooDeep
        case duplicate(String)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let duplicates: JSONValue.DuplicateMembers
    let building: Bool
    private(set) var index = 0
    /// Set by the step that refused the text.
    private(set) var failure = Failure.malformed

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, duplicates: JSONValue.DuplicateMembers, building: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.duplicates = duplicates
        self.building = building
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The whole text as one value, with only whitespace around it.
    mutating func document() -> Result<JSONValue, Failure> {
        skipWhitespace()
        guard let value = value(depth: 0) else { return .failure(failure) }
        skipWhitespace()
        return index == bytes.count ? .success(value) : .failure(.malformed)
    }

    mutating func skipWhitespace() {
        while let byte = current, Self.isWhitespace(byte) { index += 1 }
    }

    /// `nil` after recording why: cut off when the bytes ran out, else `failure`.
    private mutating func refuse<T>(_ failure: Failure = .malformed) -> T? {
        self.failure = index >= bytes.count ? .truncated : failure
        return nil
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < bytes.count else { return false }
            guard bytes[index] == literal.utf8Start[offset] else { return false }
            index += 1
        }
        return true
    }

    mutating func value(depth: Int) -> JSONValue? {
        guard let byte = current else { return refuse() }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { return refuse(.tooDeep) }
            return object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < maxDepth else { return refuse(.tooDeep) }
            return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : refuse()
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : refuse()
        case UInt8(ascii: "n"): return consume("null") ? .null : refuse()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return refuse()
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        var members: [String: JSONValue] = [:]
        let read: Bool
        switch (building, duplicates) {
        case (false, _): read = self.members(depth: depth) { _, _ in true }
        case (true, .lastWins):
            read = self.members(depth: depth) { name, member in
                members[name] = member
                return true
            }
        case (true, .refuse):
            read = self.members(depth: depth) { name, member in members.updateValue(member, forKey: name) == nil }
        }
        return read ? .object(members) : nil
    }

    /// The members of the object at the start, each given to `body`, a member name used twice refused; `false` as
    /// ``object(depth:)`` returns `nil`.
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
    /// returns `false` for a name it refuses (used twice) — with values at `depth`; `false` for malformed text or a
    /// refused name.
    private mutating func members(depth: Int, _ take: (String, JSONValue) -> Bool) -> Bool {
        index += 1  // {
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { return refuse() ?? false }
            guard let name = string() else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return refuse() ?? false }
            index += 1
            skipWhitespace()
            guard let member = value(depth: depth) else { return false }
            guard take(name, member) else {
                failure = .duplicate(name)
                return false
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return refuse() ?? false
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
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
            if building { elements.append(element) }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return refuse()
            }
        }
    }

    /// A string at `"`: its escapes decoded, its UTF-8 validated (without `building`, checked and given as `""`).
    private mutating func string() -> String? {
        index += 1  // "
        let start = index
        // The common case: no escape, so the bytes are the string — their high bits gathered on the way, so that
        // ASCII text (most of what Mend reads) needs no second pass to be known valid UTF-8.
        var high: UInt8 = 0
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return refuse() }
            high |= byte
            index += 1
        }
        guard let stop = current else { return refuse() }
        if stop == UInt8(ascii: "\"") {
            index += 1
            let text = UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
            if high < 0x80 { return building ? String(decoding: text, as: UTF8.self) : "" }
            return Self.validated(text, building: building) ?? refuse()
        }
        var decoded = Array(bytes[start..<index])
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return Self.validated(decoded, building: building) ?? refuse()
            case UInt8(ascii: "\\"):
                guard let escape = current else { return refuse() }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return refuse() }
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard consume("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else {
                            return refuse()
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        return refuse()
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return refuse() }
                    decoded.append(contentsOf: String(Character(unicode)).utf8)
                default: return refuse()
                }
            default:
                guard byte >= 0x20 else { return refuse() }
                decoded.append(byte)
            }
        }
        return refuse()
    }

    /// `bytes` as a string when they are valid UTF-8, else `nil`; `""` for valid bytes when not `building`.
    private static func validated(_ bytes: some Collection<UInt8>, building: Bool) -> String? {
        guard String.isValidUTF8(bytes) else { return nil }
        return building ? String(decoding: bytes, as: UTF8.self) : ""
    }

    private mutating func hex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { return nil }
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
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return refuse() }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var integral = true
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return refuse() }
            integral = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return refuse() }
            integral = false
        }
        // Checking only: an integer of up to 18 digits is an `Int`, nothing to convert.
        if !building, integral, index - start <= 18 { return .null }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { return refuse() }
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

extension String {
    /// `bytes` as a string when they are valid UTF-8 (no overlong forms, no encoded surrogates), else `nil`: the
    /// standard library's strict decoder, which every OS version has (`String(validating:as:)` needs iOS 18).
    package init?(validatingUTF8Bytes bytes: some Collection<UInt8>) {
        guard String.isValidUTF8(bytes) else { return nil }
        self = String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are valid UTF-8 (no overlong forms, no encoded surrogates).
    package static func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        // ASCII, as most of a token is, needs no decoder.
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var decoder = Unicode.UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
