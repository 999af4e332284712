import Foundation

/// Call counters over a rolling hour, per key (`app:ID`, `user:APP:USER`, `business:ID`).
struct UsageBook: Sendable {
    static let window: TimeInterval = 3600
    private var calls: [String: [Date]] = [:]

    /// Records `count` calls at `now` (calls while throttled count too: they extend the throttle, as the provider's
    /// do) and returns the number of calls in the window.
    mutating func record(_ key: String, count: Int, now: Date) -> Int {
        var list = prune(key, now: now)
        list.append(contentsOf: repeatElement(now, count: count))
        calls[key] = list
        return list.count
    }

    /// The calls in the window.
    mutating func count(_ key: String, now: Date) -> Int {
        let list = prune(key, now: now)
        calls[key] = list
        return list.count
    }

    /// Minutes until the count falls back to `limit` (at least 1 while over it).
    func minutesToRegain(_ key: String, limit: Int, now: Date) -> Int {
        guard let list = calls[key], list.count > limit else { return 0 }
        let releasing = list[list.count - limit - 1]
        let seconds = releasing.addingTimeInterval(Self.window).timeIntervalSince(now)
        return max(1, Int((seconds / 60).rounded(.up)))
    }

    private func prune(_ key: String, now: Date) -> [Date] {
        (calls[key] ?? []).filter { now.timeIntervalSince($0) < Self.window }
    }

    mutating func reset() { calls.removeAll() }
}
