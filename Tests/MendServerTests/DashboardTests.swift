import Foundation
import MendCore
import MendEmulator
import MendHTTP
import MendTesting
import Testing

@testable import MendServer

/// docs/grafana/mend-server.json against what mend-server exports: the dashboard cannot drift from the metrics.
@Suite struct DashboardTests {
    static let dashboardURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/grafana/mend-server.json")

    /// One series of the Prometheus text format: its metric name and labels.
    struct Series: Hashable {
        var name: String
        var labels: [String: String]
    }

    /// The series of a `/metrics` answer (comments skipped).
    static func series(_ text: String) -> [Series] {
        text.split(separator: "\n").compactMap { line -> Series? in
            guard !line.hasPrefix("#"), let match = line.firstMatch(of: #/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? /#)
            else { return nil }
            var labels: [String: String] = [:]
            for pair in (match.3.map(String.init) ?? "").matches(of: #/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/#) {
                labels[String(pair.1)] = String(pair.2)
            }
            return Series(name: String(match.1), labels: labels)
        }
    }

    /// What one PromQL expression of the dashboard needs: each metric it reads, the labels it groups by, and the
    /// label values it selects.
    struct Query {
        var metrics: [String]
        var groupedBy: [String]
        var selected: [(metric: String, label: String, value: String)]

        init(_ expression: String) {
            metrics = expression.matches(of: #/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[\{\[]/#).map { String($0.1) }
            groupedBy = expression.matches(of: #/by \(([^)]*)\)/#).flatMap {
                $0.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            selected = expression.matches(of: #/([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/#).flatMap { match in
                String(match.2).matches(of: #/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/#).map {
                    (String(match.1), String($0.1), String($0.2))
                }
            }
        }
    }

    /// The PromQL expressions of every panel.
    static func expressions() throws -> [String] {
        let dashboard = try JSONValue.parse(Data(contentsOf: dashboardURL)).get()
        let panels = try #require(dashboard["panels"]?.arrayValue)
        return panels.flatMap { $0["targets"]?.arrayValue ?? [] }.compactMap { $0["expr"]?.stringValue }
    }

    @Test("The dashboard's queries parse: the metrics, groupings and selections the check reads")
    func queriesParse() throws {
        let query = Query(
            #"histogram_quantile(0.99, sum by (le) (rate(mend_http_request_duration_seconds_bucket{route="/v1/session"}[$__rate_interval])))"#
        )
        #expect(query.metrics == ["mend_http_request_duration_seconds_bucket"])
        #expect(query.groupedBy == ["le"])
        #expect(
            query.selected.map { "\($0.metric) \($0.label)=\($0.value)" } == [
                "mend_http_request_duration_seconds_bucket route=/v1/session"
            ])
        let expressions = try Self.expressions()
        #expect(expressions.count >= 9)
        #expect(expressions.allSatisfy { !Query($0).metrics.isEmpty })
    }

    /// After a day of logins, checks, refreshes, a rate limit, a logout and a provider failure.
    @Test("Every metric, grouping label and selected value the dashboard queries is in /metrics after a day")
    func everyQueriedMetricExists() async throws {
        try await TestStack.run(configure: {
            $0.sessions.rateLimits.refreshPerAddress = RateLimitRule(requests: 2, per: .seconds(3600))
        }) { stack in
            // The day.
            let session = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            _ = try await stack.client.get("/v1/session", bearer: access)
            _ = try await stack.client.get("/v1/session", bearer: access)
            // Refreshes until the limit: a client of their own, since an APIClient holds its requests to a host that
            // answered 429 until the wait passes.
            let refresher = ServerClient(stack.server.baseURL)
            let refreshed = try await refresher.refresh(session["refresh_token"])
            let again = try await refresher.refresh(refreshed["refresh_token"])
            let limited = await refresher.failure { try await refresher.refresh(again["refresh_token"]) }
            #expect(limited?.httpStatus == 429)
            let other = try await stack.login()
            _ = try await stack.client.post(
                "/v1/session/logout",
                json: .object(["refresh_token": other["refresh_token"]!, "revoke_provider_permissions": .bool(false)]),
                bearer: other["access_token"]?.stringValue, expectsJSON: false)
            try await stack.emulator.inject(.error("http/503", path: "/*/oauth/access_token", times: 10))
            _ = await stack.client.failure { try await stack.login() }

            let metrics = try await stack.client.get("/metrics", expectsJSON: false)
            let series = Self.series(String(decoding: metrics.body, as: UTF8.self))
            #expect(series.count > 20)
            for expression in try Self.expressions() {
                let query = Query(expression)
                for metric in query.metrics {
                    let found = series.filter { $0.name == metric }
                    #expect(!found.isEmpty, "\(metric) is not in /metrics (\(expression))")
                    for label in query.groupedBy {
                        #expect(
                            found.contains { $0.labels[label] != nil },
                            "no \(metric) series has the label \(label) (\(expression))")
                    }
                }
                for selection in query.selected {
                    #expect(
                        series.contains {
                            $0.name == selection.metric && $0.labels[selection.label] == selection.value
                        },
                        "no \(selection.metric){\(selection.label)=\"\(selection.value)\"} in /metrics (\(expression))")
                }
            }
        }
    }
}
