import Foundation
import MendHTTP

/// `RetryAfter.date(from:now:)` on the input as the header's value.
///
/// Invariants: the time is never before now nor more than a day later; delay-seconds mean exactly that delay
/// (clamped); a time that came back formats as an IMF-fixdate that parses back to itself.
enum RetryAfterHarness {
    static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let value = bytes.text
        guard let date = RetryAfter.date(from: value, now: fuzzNow) else { return }
        let wait = date.timeIntervalSince(fuzzNow)
        invariant(wait >= 0 && wait <= RetryAfter.maximumDelay, "a wait of \(wait) s for \(value.debugDescription)")
        if let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            invariant(wait == min(Double(seconds), RetryAfter.maximumDelay), "\(seconds) s became \(wait) s")
        }
        guard wait == wait.rounded() else { return }
        let text = formatter.string(from: date)
        let again = RetryAfter.date(from: text, now: fuzzNow)
        invariant(again == date, "\(text) (from \(value.debugDescription)) parses as \(String(describing: again))")
    }
}
