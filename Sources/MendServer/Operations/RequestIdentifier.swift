import Foundation

/// Request ids: the caller's `X-Request-Id` when it looks like one (1–64 of `A-Z a-z 0-9 - _ .`), else a new
/// random one, so that a log line, a response and an error body can be matched.
enum RequestIdentifier {
    static func accept(_ incoming: String?) -> String {
        if let incoming, (1...64).contains(incoming.utf8.count),
            incoming.utf8.allSatisfy({ isAllowed($0) })
        {
            return incoming
        }
        return make()
    }

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt32
        return hex(high, digits: 16) + hex(UInt64(low), digits: 8)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
