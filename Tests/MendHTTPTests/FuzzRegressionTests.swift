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
}
