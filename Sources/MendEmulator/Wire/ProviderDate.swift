import Foundation

/// The provider's date texts, in UTC.
enum ProviderDate {
    /// The Graph API's format: `2026-01-01T12:00:00+0000`.
    static func graph(_ date: Date) -> String {
        format(date, "yyyy-MM-dd'T'HH:mm:ssZ")
    }

    /// The format in token messages: `Wednesday, 14-Feb-18 12:00:00 PST` (here in UTC).
    static func tokenMessage(_ date: Date) -> String {
        format(date, "EEEE, dd-MMM-yy HH:mm:ss zzz")
    }

    private static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
