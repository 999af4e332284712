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
        /// The bytes start like JSON but are not: a wrong token, a trailing comma, `NaN`, invalid UTF-8, a lone
        /// surrogate escape, text after the value.
        case malformed
        /// The bytes end before the value does: an unfinished string, number, literal, object or array.
        case truncated
        /// An object names the member `name` twice, and the parse was asked to refuse that
        /// (``DuplicateMembers/refuse``).
        case duplicateMember(name: String)
        /// The input is larger than the limit.
        case tooLarge(limit: Int)
        /// The input nests deeper than the limit.
        case tooDeep(limit: Int)
    }

    /// The default nesting limit of ``parse(_:maxBytes:maxDepth:duplicateMembers:)``.
    public static let defaultMaxDepth = 256

    /// Parses `data` as JSON (RFC 8259, strictly), telling apart empty, non-JSON, malformed, cut-off, oversized and
    /// too deeply nested input and, unless `duplicateMembers` is ``DuplicateMembers/lastWins``, an object that names a
    /// member twice.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - maxBytes: Input larger than this fails with ``ParseFailure/tooLarge(limit:)`` before any parsing.
    ///   - maxDepth: Input nesting objects and arrays deeper than this fails with ``ParseFailure/tooDeep(limit:)``.
    ///   - duplicateMembers: What an object naming a member twice means: refused (the default), or its last member.
    public static func parse(
        _ data: Data, maxBytes: Int = 16 << 20, maxDepth: Int = defaultMaxDepth,
        duplicateMembers: DuplicateMembers = .refuse
    ) -> Result<JSONValue, ParseFailure> {
        read(data, maxBytes: maxBytes, maxDepth: maxDepth, duplicateMembers: duplicateMembers, building: true)
    }

    /// Checks that `data` is one complete JSON value without building it: what ``parse(_:maxBytes:maxDepth:duplicateMembers:)``
    /// with ``DuplicateMembers/lastWins`` answers — the same lexer — at a fraction of its cost. Returns `nil` for
    /// valid JSON.
    ///
    /// This is what the pipeline runs on success bodies (building the value would cost more than the request); a body
    /// that passes and still does not decode fails later, classified, when it is decoded.
    package static func validateStructure(
        _ data: Data, maxBytes: Int = 16 << 20, maxDepth: Int = defaultMaxDepth
    ) -> ParseFailure? {
        if case .failure(let failure) = read(
            data, maxBytes: maxBytes, maxDepth: maxDepth, duplicateMembers: .lastWins, building: false)
        {
            return failure
        }
        return nil
    }

    private static func read(
        _ data: Data, maxBytes: Int, maxDepth: Int, duplicateMembers: DuplicateMembers, building: Bool
    ) -> Result<JSONValue, ParseFailure> {
        guard data.count <= maxBytes else { return .failure(.tooLarge(limit: maxBytes)) }
        // Over the bytes, not through `Data`'s iterator (which costs more than checking a small body whole).
        return data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let first = bytes.first(where: { !JSONReader.isWhitespace($0) }) else { return .failure(.empty) }
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                break
            default: return .failure(.notJSON)
            }
            var reader = JSONReader(
                bytes: bytes, maxDepth: maxDepth, duplicates: duplicateMembers, building: building)
            return reader.document().mapError { failure in
                switch failure {
                case .malformed: .malformed
                case .truncated: .truncated
                case .tooDeep: .tooDeep(limit: maxDepth)
                case .duplicate(let name): .duplicateMember(name: name)
                }
            }
        }
    }

    /// Whether the body's top-level object starts with the member `key` (`{"error": …`), read without parsing.
    package static func startsWithMember(_ key: String, in data: Data) -> Bool {
        let prefix = data.prefix(64 + key.utf8.count)
        var bytes = prefix.drop { JSONReader.isWhitespace($0) }
        guard bytes.first == UInt8(ascii: "{") else { return false }
        bytes = bytes.dropFirst().drop { JSONReader.isWhitespace($0) }
        return bytes.starts(with: Array("\"\(key)\"".utf8))
    }

    /// JSON text with sorted keys: compact, or indented as `JSONEncoder`'s `.prettyPrinted` indents (two spaces,
    /// `"name" : value`). `"null"` when a number is not finite, which JSON cannot carry.
    public func jsonText(pretty: Bool = false) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        guard write(into: &bytes, indent: pretty ? 0 : nil) else { return "null" }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue {
    /// Appends the text of the value to `bytes`, Mend's one JSON writer: byte for byte what `JSONEncoder` writes with
    /// `.sortedKeys` and `.withoutEscapingSlashes` (keys in the order of their UTF-8 bytes, the escapes it uses, its
    /// numbers), and with `indent` (the nesting level it starts at) what it writes with `.prettyPrinted` too — a test
    /// holds them together — without building an encoder and its containers: servers answer with this on every
    /// request. `false` (and part of the text written) when a number is not finite, which JSON cannot carry.
    package func write(into bytes: inout [UInt8], indent: Int? = nil) -> Bool {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .int(let value): bytes.append(contentsOf: String(value).utf8)
        case .double(let value):
            // Foundation's shortest form: Swift's, without a trailing `.0` (`1e+20`, `0.1`, `-0`, `1e-07`).
            guard value.isFinite else { return false }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        case .string(let value): Self.writeString(value.utf8, into: &bytes)
        case .array(let elements):
            return Self.writeContainer(
                elements, open: "[", close: "]", indent: indent, into: &bytes
            ) { element, level, bytes in
                element.write(into: &bytes, indent: level)
            }
        case .object(let members):
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return Self.writeContainer(keys, open: "{", close: "}", indent: indent, into: &bytes) { key, level, bytes in
                Self.writeString(key.utf8, into: &bytes)
                bytes.append(contentsOf: level == nil ? ":".utf8 : " : ".utf8)
                return members[key]!.write(into: &bytes, indent: level)
            }
        }
        return true
    }

    /// An array's or object's text: `open`, each item written by `item` (given the level to indent its own
    /// containers at, `nil` when compact), separated by commas, then `close`; indented two spaces a level as
    /// `JSONEncoder` indents, an empty container included (an empty line between its brackets).
    private static func writeContainer<Item>(
        _ items: [Item], open: Unicode.Scalar, close: Unicode.Scalar, indent: Int?, into bytes: inout [UInt8],
        _ item: (Item, Int?, inout [UInt8]) -> Bool
    ) -> Bool {
        bytes.append(UInt8(ascii: open))
        let inner = indent.map { $0 + 1 }
        func newline(_ level: Int?) {
            guard let level else { return }
            bytes.append(0x0A)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        }
        if items.isEmpty, indent != nil { bytes.append(0x0A) }
        for (index, element) in items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            newline(inner)
            guard item(element, inner, &bytes) else { return false }
        }
        newline(indent)
        bytes.append(UInt8(ascii: close))
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
