import Foundation

/// A rate limit: at most `requests` in every `per` window, with bursts up to `requests` (a token bucket).
///
/// Written `30/60s`, `10/min`, `5/1h` in the environment; `0` or `off` turns a limit off.
public struct RateLimitRule: Sendable, Hashable, CustomStringConvertible {
    /// The requests allowed per window (the bucket's size).
    public var requests: Int
    /// The window.
    public var per: Duration

    /// Creates a rule.
    public init(requests: Int, per: Duration) {
        self.requests = requests
        self.per = per
    }

    /// `30/60s`.
    public var description: String { "\(requests)/\(DurationText.format(per))" }

    /// Parses `30/60s`, `10/min`, `5/h`; `nil` for `0`, `off` or `none` (no limit).
    static func parse(_ text: String) throws(ConfigurationError) -> RateLimitRule? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if ["0", "off", "none", ""].contains(trimmed) { return nil }
        let parts = trimmed.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let requests = Int(parts[0]), requests > 0 else {
            throw ConfigurationError("rate limit '\(text)' is not N/window (30/60s, 10/min)")
        }
        let window =
            ["s": "1s", "sec": "1s", "min": "60s", "m": "60s", "h": "3600s", "hour": "3600s"][parts[1]] ?? parts[1]
        let duration = try DurationText.parse(window, name: "rate limit window")
        guard duration > .zero else { throw ConfigurationError("rate limit '\(text)' has an empty window") }
        return RateLimitRule(requests: requests, per: duration)
    }
}
