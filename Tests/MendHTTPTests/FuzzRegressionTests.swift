import Foundation
import MendHTTP
import Testing

/// Inputs the fuzzers (`Fuzz/`, `scripts/fuzz`) found, each pinned by the fix it led to.
@Suite("Fuzz regressions: MendHTTP")
struct FuzzRegressionTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// retry-after: Foundation's DateFormatter on Linux leaks on every parse of text with a character outside the BMP
    /// (LeakSanitizer, fuzz input `F 1 Dec -27 0:5` + U+11451 …), and ICU reads non-ASCII digits as digits. An
    /// HTTP-date is printable ASCII: anything else is refused before any formatter sees it.
    @Test(
        "Retry-After: a date with non-ASCII characters is no HTTP-date",
        arguments: [
            "Fri, １５ Jan 2027 08:05:00 GMT",  // fullwidth digits: ICU parses them
            "Fri, ١٥ Jan 2027 08:05:00 GMT",  // Arabic-Indic digits
            "Fri, 15 Jan 2027 08:05:00 GMT+٠١:٠٠",
            "Fri, 15 Jan 2027 08:05:00 GMT😀",
            "F 1 Dec -27 0:5\u{11451}:00 G]T",
            "Fri, 15 Jan 2027 08:05:00 GMT" + String(repeating: " x", count: 40),
        ])
    func nonASCIIRetryAfterDate(value: String) {
        #expect(RetryAfter.date(from: value, now: Self.now) == nil)
    }

    @Test("Retry-After: the three HTTP-date forms still parse")
    func httpDateForms() {
        let expected = Date(timeIntervalSince1970: 1_800_000_300)
        #expect(RetryAfter.date(from: "Fri, 15 Jan 2027 08:05:00 GMT", now: Self.now) == expected)
        #expect(RetryAfter.date(from: "Friday, 15-Jan-27 08:05:00 GMT", now: Self.now) == expected)
        #expect(RetryAfter.date(from: "Fri Jan 15 08:05:00 2027", now: Self.now) == expected)
        #expect(RetryAfter.date(from: " 300 ", now: Self.now) == expected)
    }

    /// The parser is Mend's own (no `DateFormatter` per call); Foundation's formatter is its oracle: the three forms of
    /// 2,000 instants from 1979 to 2076 (inside the RFC 850 two-digit window around `now`) read back as the formatter
    /// does.
    @Test("Retry-After: every HTTP-date form reads back the instant Foundation's formatter wrote")
    func httpDatesAgreeWithFoundation() {
        let forms = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]
        let formatters = forms.map { format in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            return formatter
        }
        for index in 0..<2000 {
            // Spread over the 98 years around now (inside the RFC 850 two-digit window), each at another time of day.
            let offset = index * (98 * 365 * 86_400 / 2000) + index * 7_919 % 86_400 - 48 * 365 * 86_400
            let instant = Date(timeIntervalSince1970: (Self.now.timeIntervalSince1970 + Double(offset)).rounded(.down))
            for (form, formatter) in zip(forms, formatters) {
                var text = formatter.string(from: instant)
                if form.hasPrefix("EEE MMM d "), let space = text.lastIndex(of: " ") {
                    // asctime pads a one-digit day with a space: `Sun Nov  6 08:49:37 1994`.
                    let parts = text[..<space].split(separator: " ")
                    if parts[2].count == 1 {
                        text = "\(parts[0]) \(parts[1])  \(parts[2]) \(parts[3])" + text[space...]
                    }
                }
                #expect(RetryAfter.httpDate(text, now: Self.now) == instant, "\(text)")
            }
        }
    }

    @Test(
        "Retry-After: an impossible date, time or zone is no HTTP-date",
        arguments: [
            "Fri, 30 Feb 2027 08:05:00 GMT", "Fri, 15 Jan 2027 24:00:00 GMT", "Fri, 15 Jan 2027 08:60:00 GMT",
            "Fri, 15 Jan 2027 08:05:00 PST", "Fri, 15 Jnu 2027 08:05:00 GMT", "Fry, 15 Jan 2027 08:05:00 GMT",
            "Fri, 15 Jan 27 08:05:00 GMT", "Friday, 15-Jan-2027 08:05:00 GMT", "Fri Jan 15 08:05 2027",
            "Fri, 15 Jan 2027 8:05:00 GMT", "Fri, 0 Jan 2027 08:05:00 GMT", "Fri, +1 Jan 2027 08:05:00 GMT",
        ])
    func impossibleHTTPDates(value: String) {
        #expect(RetryAfter.httpDate(value, now: Self.now) == nil)
    }
}
