import Foundation
import MendCore

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

    /// A new id: 24 hex digits, unique in the process (a counter through a bijective mix, SplitMix64's finaliser)
    /// and across processes (keyed by 96 random bits drawn once), without the system's random source or a formatter
    /// per request. An id is a reference, not a secret: unique, not unpredictable.
    static func make() -> String {
        let count = counter.withLock { count in
            count &+= 1
            return count
        }
        return hex(SplitMix64.mix(count &+ key.0), SplitMix64.mix(count ^ UInt64(key.1)))
    }

    private static let key: (UInt64, UInt32) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()
    private static let counter = Locked<UInt64>(0)

    /// `high` as 16 lower-case hex digits, then the low 32 bits of `low` as 8.
    private static func hex(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 24) { buffer in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for index in 0..<16 { buffer[index] = digits[Int(high >> (60 - 4 * UInt64(index)) & 0xF)] }
                for index in 0..<8 { buffer[16 + index] = digits[Int(low >> (28 - 4 * UInt64(index)) & 0xF)] }
            }
            return 24
        }
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
