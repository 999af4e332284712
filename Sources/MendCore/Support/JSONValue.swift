public import Foundation

/// A parsed JSON value, kept whole: what an error carries as the response's parsed JSON.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Key order is not kept; renderings sort keys.
    case object([String: JSONValue])

    /// The value for `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The object's members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer, when this is an integer, an integral double, or a string holding an integer (`"190"`).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e15: Int(value)
        case .string(let text): Int(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// The number, when this is a number or a string holding one.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .string(let text): Double(text)
        default: nil
        }
    }

    /// The boolean, when this is a boolean (or the strings `"true"`/`"false"`, or 0/1).
    public var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .int(let value) where value == 0 || value == 1: value == 1
        case .string("true"): true
        case .string("false"): false
        default: nil
        }
    }

    /// Whether this is `null`.
    package var isNull: Bool { self == .null }
}

extension JSONValue: Codable {
    /// The init.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value (its stable form).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Why bytes could not be parsed as JSON.
    public enum ParseFailure: Error, Sendable, Hashable {
        /// There were no bytes (or only whitespace).
        case empty
        /// The bytes do not start like JSON (an HTML page, plain text).
        case notJSON
        /// The bytes start like JSON but are invalid or cut off.
        case malformed
        /// The input is larger than the limit.
        case tooLarge(limit: Int)
        /// The input nests deeper than the limit.
        case tooDeep(limit: Int)
    }

    /// The default nesting limit of ``parse(_:maxBytes:maxDepth:)``.
    public static let defaultMaxDepth = 256

    /// Parses `data` as JSON, telling apart empty, non-JSON, malformed, oversized and too deeply nested input.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - maxBytes: Input larger than this fails with ``ParseFailure/tooLarge(limit:)`` before any parsing.
    ///   - maxDepth: Input nesting deeper than this fails with ``ParseFailure/tooDeep(limit:)`` before parsing.
    public static func parse(
        _ data: Data, maxBytes: Int = 16 << 20, maxDepth: Int = defaultMaxDepth
    ) -> Result<JSONValue, ParseFailure> {
        guard data.count <= maxBytes else { return .failure(.tooLarge(limit: maxBytes)) }
        guard let first = data.first(where: { !Self.isWhitespace($0) }) else { return .failure(.empty) }
        let startsLikeJSON = "{[\"-0123456789tfn".utf8.contains(first)
        guard startsLikeJSON else { return .failure(.notJSON) }
        guard scanBrackets(data).deepest <= maxDepth else { return .failure(.tooDeep(limit: maxDepth)) }
        do {
            return .success(try JSONDecoder().decode(JSONValue.self, from: data))
        } catch {
            return .failure(.malformed)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Checks that `data` is one complete JSON value without building it: a single pass over the bytes that finds
    /// empty, non-JSON, truncated, unbalanced and oversized input. Returns `nil` for valid structure.
    ///
    /// This is what the pipeline runs on success bodies (a full parse would cost more than the request); a body
    /// that passes and still does not decode fails later, classified, when it is decoded.
    package static func validateStructure(
        _ data: Data, maxBytes: Int = 16 << 20, maxDepth: Int = defaultMaxDepth
    ) -> ParseFailure? {
        guard data.count <= maxBytes else { return .tooLarge(limit: maxBytes) }
        return data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> ParseFailure? in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var index = 0
            let count = bytes.count
            while index < count, isWhitespace(bytes[index]) { index += 1 }
            guard index < count else { return .empty }
            let first = bytes[index]
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
                // Scalars at the top level are rare: parse them.
                return "\"-0123456789tfn".utf8.contains(first)
                    ? (parse(data, maxBytes: maxBytes, maxDepth: maxDepth).failure) : .notJSON
            }
            // The open brackets, innermost in the lowest bit (1: an object), the first 64 levels in a word; deeper
            // ones spill into an array only a document that deep allocates.
            var open: UInt64 = 0
            var spilled: [UInt64] = []
            var depth = 0
            while index < count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    // A string: to its closing quote, escapes skipped, control characters refused.
                    while true {
                        guard index < count else { return .malformed }
                        let inner = bytes[index]
                        index += 1
                        if inner == UInt8(ascii: "\"") { break }
                        if inner == UInt8(ascii: "\\") {
                            index += 1
                        } else if inner < 0x20 {
                            return .malformed
                        }
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    if depth > maxDepth { return .tooDeep(limit: maxDepth) }
                    if depth > 64, depth % 64 == 1 {
                        spilled.append(open)
                        open = 0
                    }
                    open = open << 1 | (byte == UInt8(ascii: "{") ? 1 : 0)
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard depth > 0, (open & 1 == 1) == (byte == UInt8(ascii: "}")) else { return .malformed }
                    open >>= 1
                    depth -= 1
                    if depth >= 64, depth % 64 == 0 { open = spilled.removeLast() }
                    if depth == 0 {
                        while index < count, isWhitespace(bytes[index]) { index += 1 }
                        return index == count ? nil : .malformed
                    }
                default: continue
                }
            }
            return .malformed
        }
    }

    /// The bracket nesting of bytes read without parsing, brackets inside strings ignored.
    package struct BracketScan: Sendable, Equatable {
        /// The deepest nesting reached.
        package var deepest: Int
        /// The nesting where the bytes end (0 for a balanced document).
        package var final: Int
        /// Whether the bytes end inside a string.
        package var endsInString: Bool

        /// Whether the bytes end inside a string or an open object or array: cut off, not wrong.
        package var endsUnfinished: Bool { endsInString || final > 0 }
    }

    /// One pass over `data` that follows strings (and their escapes) and brackets: how deep it nests and how it ends.
    /// The depth check before a parse and the truncation diagnosis of a file both read it.
    package static func scanBrackets(_ data: Data) -> BracketScan {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return BracketScan(deepest: deepest, final: depth, endsInString: inString)
    }

    /// Whether the body's top-level object starts with the member `key` (`{"error": …`), read without parsing.
    package static func startsWithMember(_ key: String, in data: Data) -> Bool {
        let prefix = data.prefix(64 + key.utf8.count)
        var bytes = prefix.drop { isWhitespace($0) }
        guard bytes.first == UInt8(ascii: "{") else { return false }
        bytes = bytes.dropFirst().drop { isWhitespace($0) }
        return bytes.starts(with: Array("\"\(key)\"".utf8))
    }

    /// Compact JSON text with sorted keys.
    public func jsonText(pretty: Bool = false) -> String {
        if !pretty {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(128)
            guard write(into: &bytes) else { return "null" }
            return String(decoding: bytes, as: UTF8.self)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Result where Failure == JSONValue.ParseFailure {
    /// The failure, if any.
    var failure: JSONValue.ParseFailure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}

extension JSONValue {
    /// Appends the compact text of the value to `bytes`: byte for byte what `JSONEncoder` writes with `.sortedKeys`
    /// and `.withoutEscapingSlashes` (keys in the order of their UTF-8 bytes, the escapes it uses, its numbers) — a
    /// test holds the two together — without building an encoder and its containers: servers answer with this on
    /// every request. `false` (and part of the text written) when a number is not finite, which JSON cannot carry.
    package func write(into bytes: inout [UInt8]) -> Bool {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .int(let value): bytes.append(contentsOf: String(value).utf8)
        case .double(let value):
            // Rare in what Mend writes: Foundation's own shortest form (`1e+20`, `0.1`, `-0`).
            guard value.isFinite, let text = try? JSONEncoder().encode(value) else { return false }
            bytes.append(contentsOf: text)
        case .string(let value): Self.writeString(value.utf8, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                guard element.write(into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(key.utf8, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                guard members[key]!.write(into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// Appends `value` as a JSON string, escaped as `JSONEncoder` escapes it.
    package static func writeString(_ value: some Collection<UInt8>, into bytes: inout [UInt8]) {
        let written: Void? = value.withContiguousStorageIfAvailable { writeString(buffer: $0, into: &bytes) }
        if written == nil { Array(value).withUnsafeBufferPointer { writeString(buffer: $0, into: &bytes) } }
    }

    /// ``writeString(_:into:)`` over contiguous bytes, not generic: the runs between escapes appended whole (a generic
    /// byte-at-a-time loop, unspecialized across modules, cost more than the rest of `GET /v1/session`'s answer).
    private static func writeString(buffer value: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var run = 0
        for index in value.indices {
            let byte = value[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[run..<index]))
            run = index + 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            default:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[run...]))
        bytes.append(UInt8(ascii: "\""))
    }
}
