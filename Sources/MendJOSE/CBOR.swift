import MendCore

/// A CBOR data item (RFC 8949) of the subset that COSE keys (RFC 9052) and WebAuthn's attestation objects and
/// authenticator data use: integers, byte and text strings, arrays, maps, `false`, `true`, `null` and floats.
///
/// Outside the subset, and refused by ``CBOR/decode(_:limits:)``: indefinite lengths, tags (bignums, dates, …),
/// `undefined` and the other simple values, map keys that are not integers or text, duplicate map keys.
package enum CBORValue: Sendable, Hashable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1): the value `-1 - n`, so that all of CBOR's range `-2^64 ..< 0` fits.
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A text string (major type 3), valid UTF-8.
    case text(String)
    /// An array (major type 4).
    case array([CBORValue])
    /// A map (major type 5) with integer or text keys, each once, in the order they were read.
    case map(CBORMap)
    /// `false` or `true` (simple values 20 and 21).
    case bool(Bool)
    /// `null` (simple value 22).
    case null
    /// A half, single or double precision float (major type 7, additional information 25–27).
    case float(Double)

    /// An integer of `Int64`'s range: `.unsigned` or `.negative`, `nil` beyond it or for any other item.
    package var integer: Int64? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: nil
        }
    }

    /// An integer item for `value`.
    package static func integer(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The bytes of a byte string, `nil` for any other item.
    package var byteString: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    /// The text of a text string, `nil` for any other item.
    package var textString: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The map of a map item, `nil` for any other item.
    package var mapValue: CBORMap? {
        if case .map(let map) = self { map } else { nil }
    }
}

/// A CBOR map whose keys are unique integers or text strings, in the order they were read (or given).
package struct CBORMap: Sendable, Hashable {
    /// The entries, in order; no key twice.
    package private(set) var entries: [(key: CBORValue, value: CBORValue)]

    /// A map of `entries`; `nil` when a key is there twice or is not an integer or a text string.
    package init?(_ entries: [(key: CBORValue, value: CBORValue)]) {
        var seen = Set<CBORValue>()
        for entry in entries {
            guard CBORMap.isKey(entry.key), seen.insert(entry.key).inserted else { return nil }
        }
        self.entries = entries
    }

    /// The value of `key`, if the map has it.
    package subscript(key: CBORValue) -> CBORValue? {
        entries.first { $0.key == key }?.value
    }

    /// The value of the integer key `key`, if the map has it.
    package subscript(key: Int64) -> CBORValue? { self[.integer(key)] }

    /// The value of the text key `key`, if the map has it.
    package subscript(key: String) -> CBORValue? { self[.text(key)] }

    /// The keys, in order.
    package var keys: [CBORValue] { entries.map(\.key) }

    static func isKey(_ value: CBORValue) -> Bool {
        switch value {
        case .unsigned, .negative, .text: true
        default: false
        }
    }

    package static func == (lhs: CBORMap, rhs: CBORMap) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }
}

/// Why ``CBOR`` refused an input. The ``reason`` names the rule and the byte offset, never the input's content.
package struct CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    package enum Kind: Sendable, Hashable {
        /// Not well-formed CBOR: the input ends inside an item, a reserved additional information value, a text
        /// string that is not UTF-8, bytes after the item.
        case malformed
        /// Well-formed CBOR outside Mend's subset: an indefinite length, a tag, `undefined` or another simple value,
        /// a map key that is not an integer or text.
        case unsupported
        /// A map with a key twice.
        case duplicateKey
        /// Deeper, longer or with more items than the limits allow.
        case tooLarge
    }

    /// The kind of failure.
    package var kind: Kind
    /// The rule that failed and where, in words.
    package var reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }
}

/// Mend's one reader and writer of CBOR (RFC 8949), strict, for COSE keys and WebAuthn: definite lengths only, no
/// tags, each map key once, bounded depth, size and item count.
package enum CBOR {
    /// The bounds of a decode.
    package struct Limits: Sendable, Hashable {
        /// The most bytes an input may have.
        package var maximumBytes: Int
        /// The deepest nesting of arrays and maps (an item at the top is at depth 1).
        package var maximumDepth: Int
        /// The most items in all (every array element, map key and map value counts).
        package var maximumItems: Int

        package init(maximumBytes: Int, maximumDepth: Int, maximumItems: Int) {
            self.maximumBytes = maximumBytes
            self.maximumDepth = maximumDepth
            self.maximumItems = maximumItems
        }

        /// WebAuthn's objects: 64 KiB, 16 levels, 4,096 items; a COSE key or an attestation object is far smaller.
        package static let webAuthn = Limits(maximumBytes: 65_536, maximumDepth: 16, maximumItems: 4_096)
    }

    /// The one item `bytes` hold; any byte after it is refused.
    package static func decode(_ bytes: [UInt8], limits: Limits = .webAuthn) throws(CBORError) -> CBORValue {
        let (value, end) = try decodePrefix(bytes, limits: limits)
        guard end == bytes.count else {
            throw CBORError(.malformed, "\(bytes.count - end) bytes follow the item, which ends at byte \(end)")
        }
        return value
    }

    /// The first item of `bytes` and the offset of the byte after it (what follows a COSE key in authenticator
    /// data: its extensions).
    package static func decodePrefix(
        _ bytes: some Collection<UInt8>, limits: Limits = .webAuthn
    ) throws(CBORError) -> (value: CBORValue, end: Int) {
        let input = Array(bytes)
        guard input.count <= limits.maximumBytes else {
            throw CBORError(.tooLarge, "the input has \(input.count) bytes; the most is \(limits.maximumBytes)")
        }
        var reader = Reader(bytes: input, limits: limits)
        let value = try reader.item(depth: 1)
        return (value, reader.offset)
    }

    /// The deterministic encoding (RFC 8949 §4.2.1) of `value`: the shortest heads, map keys ordered by their
    /// encodings' bytes, floats as the shortest of single or double precision that keeps their value.
    package static func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, into: &output)
        return output
    }

    private static func write(_ value: CBORValue, into output: inout [UInt8]) {
        switch value {
        case .unsigned(let number): head(0, number, into: &output)
        case .negative(let number): head(1, number, into: &output)
        case .bytes(let bytes):
            head(2, UInt64(bytes.count), into: &output)
            output += bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            head(3, UInt64(utf8.count), into: &output)
            output += utf8
        case .array(let items):
            head(4, UInt64(items.count), into: &output)
            for item in items { write(item, into: &output) }
        case .map(let map):
            head(5, UInt64(map.entries.count), into: &output)
            let encoded = map.entries.map { (key: encode($0.key), value: encode($0.value)) }
            for entry in encoded.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                output += entry.key
                output += entry.value
            }
        case .bool(let flag): output.append(flag ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        case .float(let number):
            if let single = Float(exactly: number) ?? (number.isNaN ? Float.nan : nil) {
                output.append(0xFA)
                withUnsafeBytes(of: single.bitPattern.bigEndian) { output += $0 }
            } else {
                output.append(0xFB)
                withUnsafeBytes(of: number.bitPattern.bigEndian) { output += $0 }
            }
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xFF: output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: output.append(type | 25); withUnsafeBytes(of: UInt16(argument).bigEndian) { output += $0 }
        case 0x1_0000...0xFFFF_FFFF:
            output.append(type | 26)
            withUnsafeBytes(of: UInt32(argument).bigEndian) { output += $0 }
        default: output.append(type | 27); withUnsafeBytes(of: argument.bigEndian) { output += $0 }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        let limits: Limits
        var offset = 0
        var items = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        mutating func item(depth: Int) throws(CBORError) -> CBORValue {
            guard depth <= limits.maximumDepth else {
                throw CBORError(.tooLarge, "an item at byte \(offset) is nested deeper than \(limits.maximumDepth)")
            }
            items += 1
            guard items <= limits.maximumItems else {
                throw CBORError(.tooLarge, "the input has more than \(limits.maximumItems) items")
            }
            let start = offset
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            if major == 7 { return try simple(info, at: start) }
            guard info != 31 else {
                // RFC 8949 §3: additional information 31 is an indefinite length for strings, arrays and maps only.
                guard (2...5).contains(major) else {
                    throw CBORError(.malformed, "additional information 31 on major type \(major) at byte \(start)")
                }
                throw CBORError(.unsupported, "an indefinite length at byte \(start)")
            }
            let argument = try self.argument(info, at: start)
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(try take(argument, at: start))
            case 3:
                let utf8 = try take(argument, at: start)
                guard let text = String(validatingUTF8Bytes: utf8) else {
                    throw CBORError(.malformed, "the text string at byte \(start) is not UTF-8")
                }
                return .text(text)
            case 4:
                try reserve(argument, perItem: 1, at: start)
                var elements: [CBORValue] = []
                elements.reserveCapacity(Int(argument))
                for _ in 0..<argument { elements.append(try item(depth: depth + 1)) }
                return .array(elements)
            case 5:
                try reserve(argument, perItem: 2, at: start)
                var entries: [(key: CBORValue, value: CBORValue)] = []
                entries.reserveCapacity(Int(argument))
                var seen = Set<CBORValue>()
                for _ in 0..<argument {
                    let keyStart = offset
                    let key = try item(depth: depth + 1)
                    guard CBORMap.isKey(key) else {
                        throw CBORError(.unsupported, "the map key at byte \(keyStart) is not an integer or text")
                    }
                    guard seen.insert(key).inserted else {
                        throw CBORError(.duplicateKey, "the map at byte \(start) has the key at byte \(keyStart) twice")
                    }
                    entries.append((key, try item(depth: depth + 1)))
                }
                return .map(CBORMap(validated: entries))
            default:
                throw CBORError(.unsupported, "a tag at byte \(start)")
            }
        }

        mutating func simple(_ info: UInt8, at start: Int) throws(CBORError) -> CBORValue {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 25: return .float(Double(Self.half(UInt16(try argument(info, at: start)))))
            case 26: return .float(Double(Float(bitPattern: UInt32(try argument(info, at: start)))))
            case 27: return .float(Double(bitPattern: try argument(info, at: start)))
            case 28, 29, 30: throw CBORError(.malformed, "a reserved simple value at byte \(start)")
            case 31: throw CBORError(.malformed, "a break outside an indefinite-length item at byte \(start)")
            case 23: throw CBORError(.unsupported, "undefined at byte \(start)")
            case 24:
                let value = try byte()
                guard value >= 32 else {
                    throw CBORError(.malformed, "a two-byte simple value below 32 at byte \(start)")
                }
                throw CBORError(.unsupported, "the simple value \(value) at byte \(start)")
            default: throw CBORError(.unsupported, "the simple value \(info) at byte \(start)")
            }
        }

        /// IEEE 754 binary16 to `Float` (RFC 8949 appendix D).
        static func half(_ bits: UInt16) -> Float {
            let exponent = Int((bits >> 10) & 0x1F)
            let mantissa = Float(bits & 0x3FF)
            let magnitude: Float =
                switch exponent {
                case 0: mantissa * 0x1p-24
                case 31: mantissa == 0 ? .infinity : .nan
                default: (1 + mantissa / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
                }
            return bits & 0x8000 != 0 ? -magnitude : magnitude
        }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else {
                throw CBORError(.malformed, "the input ends at byte \(offset), inside an item")
            }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                let count = 1 << Int(info - 24)
                guard bytes.count - offset >= count else {
                    throw CBORError(.malformed, "the input ends at byte \(bytes.count), inside the item at \(start)")
                }
                var value: UInt64 = 0
                for byte in bytes[offset..<offset + count] { value = value << 8 | UInt64(byte) }
                offset += count
                return value
            default:
                throw CBORError(.malformed, "a reserved additional information value at byte \(start)")
            }
        }

        mutating func take(_ count: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
            guard count <= UInt64(bytes.count - offset) else {
                throw CBORError(.malformed, "the string at byte \(start) is longer than the input")
            }
            defer { offset += Int(count) }
            return Array(bytes[offset..<offset + Int(count)])
        }

        /// Refuses a count that the bytes left cannot hold (each item takes one byte at least) before any memory is
        /// reserved for it.
        func reserve(_ count: UInt64, perItem: UInt64, at start: Int) throws(CBORError) {
            let left = UInt64(bytes.count - offset)
            guard count <= left / perItem else {
                throw CBORError(.malformed, "the item at byte \(start) counts more elements than the input holds")
            }
        }
    }
}

extension CBORMap {
    /// Entries already checked by the decoder.
    fileprivate init(validated entries: [(key: CBORValue, value: CBORValue)]) {
        self.entries = entries
    }
}
