public import Foundation
public import HTTPTypes
public import MendCore

/// The provider's rate-limit usage, as the response headers report it (they appear only after enough calls).
public struct GraphUsage: Sendable, Hashable {
    /// `X-App-Usage`: percentages of the app's rolling hour.
    public struct AppUsage: Sendable, Hashable {
        /// `call_count`, in percent.
        public var callCount: Double
        /// `total_cputime`, in percent.
        public var totalCPUTime: Double
        /// `total_time`, in percent.
        public var totalTime: Double
    }

    /// `X-Ad-Account-Usage`.
    public struct AdAccountUsage: Sendable, Hashable {
        /// `acc_id_util_pct`, in percent.
        public var utilization: Double
        /// `reset_time_duration`, in seconds.
        public var resetSeconds: Double
    }

    /// One entry of `X-Business-Use-Case-Usage`.
    public struct BusinessUseCase: Sendable, Hashable {
        /// The business id the entry belongs to.
        public var businessID: String
        /// `type` (`pages`, `ads_insights`, …).
        public var type: String
        /// `call_count`, in percent.
        public var callCount: Double
        /// `total_cputime`, in percent.
        public var totalCPUTime: Double
        /// `total_time`, in percent.
        public var totalTime: Double
        /// `estimated_time_to_regain_access`, in **minutes**.
        public var minutesToRegainAccess: Double
    }

    /// The app's usage, if reported.
    public var app: AppUsage?
    /// The ad account's usage, if reported.
    public var adAccount: AdAccountUsage?
    /// The business use cases' usage (up to 32 objects), if reported.
    public var businessUseCases: [BusinessUseCase]
    /// When the headers were read.
    public var observedAt: Date

    /// The highest percentage any reported counter has reached.
    public var highestPercentage: Double {
        let values =
            [app?.callCount, app?.totalCPUTime, app?.totalTime, adAccount?.utilization].compactMap { $0 }
            + businessUseCases.flatMap { [$0.callCount, $0.totalCPUTime, $0.totalTime] }
        return values.max() ?? 0
    }

    /// Reads the usage headers (names in lower case); `nil` when none is present or parsable.
    public init?(headers: [String: String], now: Date) {
        self.init(now: now) { headers[$0] }
    }

    /// Reads the usage headers of a response's fields; `nil` when none is present or parsable.
    public init?(fields: HTTPFields, now: Date) {
        self.init(now: now) { name in HTTPField.Name(name).flatMap { fields[$0] } }
    }

    /// How long the usage asks to wait before calling again (the business use cases'
    /// `estimated_time_to_regain_access`, the ad account's `reset_time_duration`), if it asks for a wait.
    var regainAccessDelay: TimeInterval? {
        var seconds: Double = 0
        for entry in businessUseCases where entry.minutesToRegainAccess > 0 {
            seconds = max(seconds, entry.minutesToRegainAccess * 60)
        }
        if let reset = adAccount?.resetSeconds, reset > 0 { seconds = max(seconds, reset) }
        return seconds > 0 ? seconds : nil
    }

    private init?(now: Date, header: (String) -> String?) {
        func parse(_ name: String) -> JSONValue? {
            guard let text = header(name),
                case .success(let value) = JSONValue.parse(
                    Data(text.utf8), maxBytes: 64 << 10, duplicateMembers: .lastWins)
            else { return nil }
            return value
        }
        let appValue = parse("x-app-usage")
        app = appValue.map { value in
            AppUsage(
                callCount: value["call_count"]?.doubleValue ?? 0,
                totalCPUTime: value["total_cputime"]?.doubleValue ?? 0,
                totalTime: value["total_time"]?.doubleValue ?? 0)
        }
        adAccount = parse("x-ad-account-usage").map { value in
            AdAccountUsage(
                utilization: value["acc_id_util_pct"]?.doubleValue ?? 0,
                resetSeconds: value["reset_time_duration"]?.doubleValue ?? 0)
        }
        var cases: [BusinessUseCase] = []
        for (business, entries) in parse("x-business-use-case-usage")?.objectValue ?? [:] {
            for entry in entries.arrayValue ?? [] {
                cases.append(
                    BusinessUseCase(
                        businessID: business, type: entry["type"]?.stringValue ?? "",
                        callCount: entry["call_count"]?.doubleValue ?? 0,
                        totalCPUTime: entry["total_cputime"]?.doubleValue ?? 0,
                        totalTime: entry["total_time"]?.doubleValue ?? 0,
                        minutesToRegainAccess: entry["estimated_time_to_regain_access"]?.doubleValue ?? 0))
            }
        }
        businessUseCases = cases.sorted { ($0.businessID, $0.type) < ($1.businessID, $1.type) }
        observedAt = now
        guard app != nil || adAccount != nil || !businessUseCases.isEmpty else { return nil }
    }
}
