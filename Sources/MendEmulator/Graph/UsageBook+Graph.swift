import Foundation
import HTTPTypes
import MendCore

/// The Graph API's use of the usage counters: the `X-App-Usage` and `X-Business-Use-Case-Usage` headers and the
/// throttling errors.
extension UsageBook {
    /// Counts the call against the app, the user and the business, and throttles when a limit is passed.
    mutating func recordGraphCall(
        identity: TokenIdentity, calls: Int, now moment: Date
    ) -> (HTTPFields, GraphFailure?) {
        let app = identity.app
        let appKey = "app:\(app.id)"
        let businessKey = "business:\(app.businessID)"
        let appCount = record(appKey, count: calls, now: moment)
        let businessCount = record(businessKey, count: calls, now: moment)
        var userCount = 0
        let userKey = "user:\(app.id):\(identity.userID ?? "-")"
        if identity.userID != nil { userCount = record(userKey, count: calls, now: moment) }

        let appLimit = app.limits.appCallsPerHour ?? 200
        let businessLimit = app.limits.businessCallsPerHour ?? 200
        let appPercent = appCount * 100 / max(appLimit, 1)
        let businessPercent = businessCount * 100 / max(businessLimit, 1)
        var regainMinutes = 0
        if let limit = app.limits.businessCallsPerHour, businessCount > limit {
            regainMinutes = minutesToRegain(businessKey, limit: limit, now: moment)
        }
        var headers = HTTPFields()
        headers[GraphHeaders.appUsage] =
            JSONValue.object([
                "call_count": .int(appPercent), "total_cputime": .int(appPercent / 2),
                "total_time": .int(appPercent / 2),
            ]).jsonText()
        headers[GraphHeaders.businessUsage] =
            JSONValue.object([
                app.businessID: .array([
                    .object([
                        "type": .string("pages"), "call_count": .int(businessPercent),
                        "total_cputime": .int(businessPercent / 2), "total_time": .int(businessPercent / 2),
                        "estimated_time_to_regain_access": .int(regainMinutes),
                    ])
                ])
            ]).jsonText()
        if let limit = app.limits.appCallsPerHour, appCount > limit {
            return (headers, .catalog(code: 4, subcode: nil))
        }
        if let limit = app.limits.businessCallsPerHour, businessCount > limit {
            return (headers, .catalog(code: 80001, subcode: nil))
        }
        if let limit = app.limits.userCallsPerHour, identity.userID != nil, userCount > limit {
            return (headers, .catalog(code: 17, subcode: 2_446_079))
        }
        return (headers, nil)
    }
}
