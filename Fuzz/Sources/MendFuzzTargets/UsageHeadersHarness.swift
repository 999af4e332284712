import Foundation
import HTTPTypes
import MendCore
@_spi(MendFuzzing) import MendGraphAPI
import MendHTTP

/// The Graph API's usage headers (`X-App-Usage`, `X-Ad-Account-Usage`, `X-Business-Use-Case-Usage`), read by both of
/// their readers: `GraphUsage` (the usage tracker) and `GraphErrorDecoder.usageWait` (the wait a rate limit error
/// carries). The input is header lines (`Name: value`), optionally after a status line (see ``ResponseInput``).
///
/// Invariants: the wait is clamped to a day; both readers agree on the wait; a reported usage has something in it, and
/// its business use cases are sorted.
enum UsageHeadersHarness {
    static let usageHeaders: Set<String> = ["x-app-usage", "x-ad-account-usage", "x-business-use-case-usage"]

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = ResponseInput(bytes)
        if input.headers.isEmpty {
            // Header lines without a status line.
            let text = "200\n" + bytes.text
            input = text.utf8.withContiguousStorageIfAvailable { ResponseInput(UnsafeRawBufferPointer($0)) } ?? input
        }
        var dictionary: [String: String] = [:]
        for (name, value) in input.headers { dictionary[name.lowercased()] = value }
        let usage = GraphUsage(headers: dictionary, now: fuzzNow)
        let wait = GraphErrorDecoder.usageWait(in: input.fields, now: fuzzNow)
        if let wait {
            let seconds = wait.timeIntervalSince(fuzzNow)
            invariant(seconds > 0 && seconds <= RetryAfter.maximumDelay, "a usage wait of \(seconds) s")
        }
        if let usage {
            invariant(
                usage.app != nil || usage.adAccount != nil || !usage.businessUseCases.isEmpty, "an empty usage")
            let keys = usage.businessUseCases.map { [$0.businessID, $0.type] }
            invariant(keys == keys.sorted { $0.lexicographicallyPrecedes($1) }, "unsorted business use cases")
            _ = usage.highestPercentage
        }
        // Both readers agree, when each usage header appears once.
        let names = input.headers.map { $0.name.lowercased() }.filter(usageHeaders.contains)
        guard Set(names).count == names.count else { return }
        var expected: Double = 0
        for entry in usage?.businessUseCases ?? [] where entry.minutesToRegainAccess > 0 {
            expected = max(expected, entry.minutesToRegainAccess * 60)
        }
        if let reset = usage?.adAccount?.resetSeconds, reset > 0 { expected = max(expected, reset) }
        let expectedWait = expected > 0 ? min(expected, RetryAfter.maximumDelay) : nil
        let actualWait = wait.map { $0.timeIntervalSince(fuzzNow) }
        let agree =
            switch (expectedWait, actualWait) {
            case (nil, nil): true
            case (let expected?, let actual?): abs(expected - actual) < 0.001
            default: false
            }
        invariant(
            agree, "GraphUsage says \(String(describing: expectedWait)), usageWait \(String(describing: actualWait))")
    }
}
