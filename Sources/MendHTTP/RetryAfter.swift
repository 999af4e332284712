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
        guard let date = httpDate(trimmed, now: now) else { return nil }
        let delay = min(max(date.timeIntervalSince(now), 0), maximumDelay)
        return now.addingTimeInterval(delay)
    }

    /// Parses an HTTP-date (RFC 9110 §5.6.7) in the preferred IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`), or
    /// the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms.
    ///
    /// By hand, in one pass over at most 64 ASCII bytes: no `DateFormatter` (three were built for every header, and
    /// ICU reads non-ASCII digits such as `１５` as digits). An RFC 850 two-digit year more than 50 years after `now` is
    /// the most recent past year with those digits (§5.6.7).
    package static func httpDate(_ text: String, now: Date) -> Date? {
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let day: Substring, month: Substring, year: Substring, time: Substring
        switch parts.count {
        case 6:  // IMF-fixdate
            guard parts[0].count == 4, parts[0].last == ",", shortDayNames.contains(parts[0].dropLast()),
                parts[3].count == 4, parts[5] == "GMT"
            else { return nil }
            (day, month, year, time) = (parts[1], parts[2], parts[3], parts[4])
        case 4:  // RFC 850
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts[0].last == ",", longDayNames.contains(parts[0].dropLast()), date.count == 3,
                date[2].count == 2, parts[3] == "GMT"
            else { return nil }
            (day, month, year, time) = (date[0], date[1], date[2], parts[2])
        case 5:  // asctime
            guard shortDayNames.contains(parts[0]), parts[4].count == 4 else { return nil }
            (day, month, year, time) = (parts[2], parts[1], parts[4], parts[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(day.count), clock.count == 3,
            clock.allSatisfy({ $0.count == 2 }), let monthIndex = monthNames.firstIndex(of: month),
            let dayNumber = digits(day), var yearNumber = digits(year), let hour = digits(clock[0]),
            let minute = digits(clock[1]), let second = digits(clock[2]),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let monthNumber = monthIndex + 1
        if year.count == 2 {
            let currentYear = calendarYear(of: now)
            yearNumber += currentYear / 100 * 100
            if yearNumber > currentYear + 50 { yearNumber -= 100 }
        }
        guard dayNumber >= 1, dayNumber <= daysInMonth(monthNumber, year: yearNumber) else { return nil }
        let days = daysSinceEpoch(year: yearNumber, month: monthNumber, day: dayNumber)
        return Date(timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + min(second, 59)))
    }

    private static let shortDayNames: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames: Set<Substring> = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let monthNames: [Substring] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The value of ASCII decimal digits (at most four here), or `nil` for anything else.
    private static func digits(_ text: Substring) -> Int? {
        var value = 0
        for byte in text.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return text.isEmpty ? nil : value
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The proleptic Gregorian year of `date` (UTC), from Howard Hinnant's `civil_from_days`.
    private static func calendarYear(of date: Date) -> Int {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }

    /// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
