package import Foundation
package import HTTPTypes

/// The `Cache-Control` directives (RFC 9111 §5.2, RFC 5861) that decide what a ``ResponseStore`` keeps and serves,
/// read from a request's or an answer's header fields.
package struct CacheDirectives: Sendable, Hashable {
    /// `no-store`: keep nothing.
    package var noStore = false
    /// `no-cache`: never used without revalidation (which Mend does not do: such an answer is never served from the
    /// store).
    package var noCache = false
    /// `must-revalidate`: once stale, never served.
    package var mustRevalidate = false
    /// `max-age`, in seconds.
    package var maxAge: TimeInterval?
    /// `stale-if-error` (RFC 5861): how long past its freshness an answer may stand in for an error, in seconds.
    package var staleIfError: TimeInterval?

    /// Reads every `Cache-Control` field of `fields` (names without regard to case; a malformed value is ignored).
    package init(_ fields: HTTPFields) {
        for value in fields[values: .cacheControl] {
            for part in value.split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1)
                let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
                let argument =
                    pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")) : nil
                let seconds = argument.flatMap { Int($0) }.map { TimeInterval(max(0, $0)) }
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate", "proxy-revalidate": mustRevalidate = true
                case "max-age": maxAge = seconds ?? 0  // an invalid max-age means stale (RFC 9111 §4.2.1)
                case "stale-if-error": staleIfError = seconds
                default: continue
                }
            }
        }
    }

    /// How long an answer stays fresh from when it was made: `max-age`, else `Expires` less `Date`, else `nil` (Mend uses no
    /// heuristic freshness). `now` stands for a missing `Date`.
    package static func freshnessLifetime(
        of fields: HTTPFields, directives: CacheDirectives, now: Date
    ) -> TimeInterval? {
        if let maxAge = directives.maxAge { return maxAge }
        guard let expires = fields[.expires] else { return nil }
        // An invalid Expires (`0`) means already expired.
        guard let expiry = RetryAfter.httpDate(expires, now: now) else { return 0 }
        let date = fields[.date].flatMap { RetryAfter.httpDate($0, now: now) } ?? now
        return max(0, expiry.timeIntervalSince(date))
    }
}
