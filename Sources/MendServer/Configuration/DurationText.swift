import Foundation

/// Durations in configuration: `900` (seconds), `900s`, `15m`, `12h`, `30d`, `250ms`.
enum DurationText {
    static func parse(_ text: String, name: String) throws(ConfigurationError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, seconds: Double)] = [
            ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400),
        ]
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = trimmed.dropLast(unit.suffix.count)
            if let value = Double(number), value >= 0 {
                return .milliseconds(Int64((value * unit.seconds * 1000).rounded()))
            }
        }
        if let seconds = Double(trimmed), seconds >= 0 { return .milliseconds(Int64((seconds * 1000).rounded())) }
        throw ConfigurationError("\(name) '\(text)' is not a duration (900, 900s, 15m, 12h, 30d, 250ms)")
    }

    /// `250ms`, `900s`, `1h`, `24h`, `30d`: days from two days on, hours from one hour on, where they are whole.
    static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds % 1000 == 0 else { return "\(milliseconds)ms" }
        let seconds = milliseconds / 1000
        if seconds >= 2 * 86400, seconds % 86400 == 0 { return "\(seconds / 86400)d" }
        if seconds >= 3600, seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        return "\(seconds)s"
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// A configuration value that cannot be used; the text says which and why (never the value of a secret).
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
