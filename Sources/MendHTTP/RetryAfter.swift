public import Foundation

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The longest wait Mend honours from a header; longer values are clamped (a hostile or broken server could ask
    /// for years).
    public static let maximumDelay: TimeInterval = 24 * 60 * 60

    /// The time `value` asks the client to wait until, or `nil` when the value is neither form.
    public static func date(from value: String, now: Date) -> Date? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 {
            return now.addingTimeInterval(min(TimeInterval(seconds), maximumDelay))
        }
        guard let date = httpDate(trimmed) else { return nil }
        let delay = min(max(date.timeIntervalSince(now), 0), maximumDelay)
        return now.addingTimeInterval(delay)
    }

    /// Parses an HTTP-date in the preferred IMF-fixdate form, or the obsolete RFC 850 and asctime forms.
    static func httpDate(_ text: String) -> Date? {
        // An HTTP-date is short printable ASCII (RFC 9110 §5.6.7); nothing else reaches the formatters. ICU would read
        // non-ASCII digits (`１５`, `١٥`) as digits, and Foundation's DateFormatter on Linux leaks memory on every
        // parse of text with a character outside the BMP (an emoji): a server could make each response leak.
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
