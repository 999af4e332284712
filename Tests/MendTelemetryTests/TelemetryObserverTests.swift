import Foundation
import HTTPTypes
import InMemoryTracing
import MendClientTesting
import MendCore
import MendGraphAPI
import MendHTTP
import MendTelemetry
import MetricsTestKit
import Testing
import Tracing

/// The OpenTelemetry adapter, through real pipelines on an in-memory transport: the span tree, the conventions'
/// attributes, what is never recorded, trace context to first parties only, and the metrics.
@Suite struct TelemetryObserverTests {
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    let clock = TestClock()

    func client(
        _ transport: InMemoryTransport, steps: [any ClientMiddleware] = .standard(), thirdParty: Bool = false,
        observer: (any PipelineObserver)? = nil
    ) -> APIClient {
        APIClient(
            transport: transport,
            configuration: .init(
                clock: clock.pipeline(),
                observer: observer ?? TelemetryObserver(tracer: tracer, metricsFactory: metrics),
                isThirdParty: thirdParty),
            steps: steps)
    }

    func request(_ url: String, template: String? = nil) -> APIRequest {
        APIRequest(method: .get, url: URL(string: url)!, options: RequestOptions(urlTemplate: template))
    }

    func spans(named name: String) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.operationName == name }
    }

    @Test func aRetriedRequestIsOneLogicalSpanWithAChildSpanPerAttempt() async throws {
        let transport = InMemoryTransport(replies: [
            .json(503, #"{"error":"busy"}"#), .json(200, #"{"ok":true}"#),
        ])
        let response = try await client(transport).send(
            request("http://127.0.0.1:8080/v1/items?page=2", template: "/v1/items"))
        #expect(response.attempts == 2)

        let all = spans(named: "GET /v1/items")
        #expect(all.count == 3)
        let logical = try #require(all.first { $0.kind == .internal })
        let attempts = all.filter { $0.kind == .client }
        #expect(attempts.count == 2)
        for attempt in attempts {
            #expect(attempt.parentSpanID == logical.spanID)
            #expect(attempt.traceID == logical.traceID)
            #expect(attempt.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
            #expect(attempt.attributes["server.address"]?.toSpanAttribute() == .string("127.0.0.1"))
            #expect(attempt.attributes["server.port"]?.toSpanAttribute() == .int64(8080))
            #expect(
                attempt.attributes["url.full"]?.toSpanAttribute() == .string("http://127.0.0.1:8080/v1/items?page=2"))
            #expect(attempt.attributes["url.template"]?.toSpanAttribute() == .string("/v1/items"))
        }
        let first = try #require(attempts.first { $0.attributes["http.request.resend_count"] == nil })
        let second = try #require(attempts.first { $0.attributes["http.request.resend_count"] != nil })
        #expect(second.attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(first.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(503))
        #expect(first.attributes["error.type"]?.toSpanAttribute() == .string("http/503"))
        #expect(first.attributes["mend.error.category"]?.toSpanAttribute() == .string("transient"))
        #expect(first.attributes["mend.recovery"]?.toSpanAttribute() == .string("retry"))
        #expect(first.status?.code == .error)
        #expect(second.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(second.attributes["error.type"] == nil)
        #expect(second.status == nil)

        // The backoff is an event of the logical span, with its reason and the error it followed.
        let wait = try #require(logical.events.first { $0.name == "mend.wait" })
        #expect(wait.attributes["mend.wait.reason"]?.toSpanAttribute() == .string("backoff"))
        #expect(wait.attributes["error.type"]?.toSpanAttribute() == .string("http/503"))
        #expect(logical.attributes["mend.attempts"]?.toSpanAttribute() == .int64(2))
        #expect(logical.status == nil)

        // Metrics: one duration per attempt, labelled with its status and error, and no attempt left active.
        let durations = metrics.recorders(label: TelemetryObserver.MetricName.requestDuration)
        #expect(durations.count == 2)
        #expect(durations.contains { $0.dimensions.contains { $0 == ("error.type", "http/503") } })
        #expect(durations.allSatisfy { $0.values.count == 1 && $0.dimensions.contains { $0 == ("unit", "s") } })
        let active = try metrics.expectMeter(
            TelemetryObserver.MetricName.activeRequests,
            [
                ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "8080"),
                ("url.scheme", "http"),
            ])
        #expect(active.lastValue == 0)
        #expect(
            metrics.counterTotal(
                label: TelemetryObserver.MetricName.retries,
                dimensions: [("mend.wait.reason", "backoff"), ("error.type", "http/503")]) == 1)
    }

    @Test func aStaleAnswerIsCountedByTheFailureItStandsInFor() async throws {
        let transport = InMemoryTransport(replies: [.json(200, #"{"ok":true}"#), .json(503, #"{"error":"busy"}"#)])
        let store = InMemoryResponseStore()
        let api = client(
            transport,
            steps: .standard(
                credentialProvider: StaticCredential(
                    token: "EAAaliceTOKENaaaaaaaaaaaa1", principal: Principal(subject: "alice", issuer: "backend")),
                retryPolicy: .never, lastKnownGood: LastKnownGood(store: store)))
        var ask = request("https://api.example/v1/me", template: "/v1/me")
        ask.options.maxStale = .seconds(600)
        _ = try await api.send(ask)
        let stale = try await api.send(ask)
        #expect(stale.staleness?.error.code == .HTTP.serviceUnavailable)
        #expect(
            metrics.counterTotal(
                label: TelemetryObserver.MetricName.staleAnswers, dimensions: [("error.type", "http/503")]) == 1)
        let logical = try #require(spans(named: "GET /v1/me").last { $0.kind == .internal })
        #expect(logical.events.contains { $0.name == "mend.stale_answer" })
    }

    @Test func aFailedRequestCarriesTheMendCodeAndIsCountedByCategory() async throws {
        let transport = InMemoryTransport(replies: [.json(404, #"{"error":"missing"}"#)])
        await #expect(throws: MendError.self) {
            try await client(transport).send(request("https://api.example/v1/items/1"))
        }
        let logical = try #require(spans(named: "GET").first { $0.kind == .internal })
        #expect(logical.attributes["error.type"]?.toSpanAttribute() == .string("http/404"))
        #expect(logical.status?.code == .error)
        let attempt = try #require(spans(named: "GET").first { $0.kind == .client })
        #expect(attempt.attributes["server.port"]?.toSpanAttribute() == .int64(443))
        #expect(
            metrics.counterTotal(
                label: TelemetryObserver.MetricName.errors,
                dimensions: [
                    ("http.request.method", "GET"), ("server.address", "api.example"), ("server.port", "443"),
                    ("url.scheme", "https"), ("mend.error.category", "other"), ("error.type", "http/404"),
                ]) == 1)
    }

    @Test func aRateLimitHoldIsAWaitEventOfTheHeldRequest() async throws {
        let transport = InMemoryTransport(replies: [
            .json(429, #"{"error":"slow down"}"#, headers: [("Retry-After", "2")]), .json(200, "{}"),
        ])
        let api = client(transport, steps: .standard(retryPolicy: .never))
        await #expect(throws: MendError.self) { try await api.send(request("https://api.example/a")) }
        _ = try await api.send(request("https://api.example/b"))
        let held = try #require(
            spans(named: "GET").first { span in span.kind == .internal && span.attributes["error.type"] == nil })
        let wait = try #require(held.events.first { $0.name == "mend.wait" })
        #expect(wait.attributes["mend.wait.reason"]?.toSpanAttribute() == .string("rateLimitHold"))
        #expect(wait.attributes["mend.wait.duration"]?.toSpanAttribute() == .double(2))
        let recorded = metrics.recorders(
            label: TelemetryObserver.MetricName.waitDuration,
            dimensions: [("mend.wait.reason", "rateLimitHold"), ("unit", "s")])
        #expect(recorded.first?.values == [2])
    }

    @Test func aRenewalIsASpanUnderTheRequestAndTheRefreshNestsInIt() async throws {
        let backend = InMemoryTransport(replies: [.json(200, #"{"access_token":"fresh-token-0123456789"}"#)])
        let refresher = client(backend)
        let api = InMemoryTransport { head, _ in
            head.headerFields[.authorization] == "Bearer fresh-token-0123456789"
                ? .json(200, "{}") : .json(401, #"{"error":"expired"}"#)
        }
        let credentials = RefreshingCredentials(token: "stale-token-0123456789") {
            _ = try await refresher.send(
                APIRequest(method: .post, url: URL(string: "https://app.example/v1/session/refresh")!))
            return Credential(token: "fresh-token-0123456789")
        }
        _ = try await client(api, steps: .standard(credentialProvider: credentials)).send(
            request("https://app.example/v1/me"))

        let logical = try #require(spans(named: "GET").first { $0.kind == .internal })
        let renewal = try #require(spans(named: "mend.reauthenticate").first)
        #expect(renewal.parentSpanID == logical.spanID)
        #expect(renewal.attributes["error.type"]?.toSpanAttribute() == .string("http/401"))
        let refresh = try #require(spans(named: "POST").first { $0.kind == .internal })
        #expect(refresh.parentSpanID == renewal.spanID)
        #expect(refresh.traceID == logical.traceID)
        #expect(
            metrics.counterTotal(
                label: TelemetryObserver.MetricName.reauthentications,
                dimensions: [("mend.outcome", "success"), ("error.type", "http/401")]) == 1)

        // No token, in any attribute or event of any span.
        for span in tracer.finishedSpans {
            let text = "\(span.attributes) \(span.events)"
            #expect(!text.contains("token-0123456789"))
        }
    }

    @Test func traceContextGoesToTheAppsBackendAndNeverToAThirdParty() async throws {
        let own = InMemoryTransport(replies: [.json(200, "{}")])
        _ = try await client(own).send(request("https://app.example/v1/me"))
        let attempt = try #require(spans(named: "GET").first { $0.kind == .client })
        let sent = try #require(own.requests.first).head.headerFields
        #expect(sent[HTTPField.Name(InMemoryTracer.spanIDKey)!] == attempt.spanID)
        #expect(sent[HTTPField.Name(InMemoryTracer.traceIDKey)!] == attempt.traceID)

        let provider = InMemoryTransport(replies: [.json(200, "{}")])
        _ = try await client(provider, thirdParty: true).send(request("https://provider.example/token"))
        let toProvider = try #require(provider.requests.first).head.headerFields
        #expect(toProvider[HTTPField.Name(InMemoryTracer.traceIDKey)!] == nil)

        let asked = InMemoryTransport(replies: [.json(200, "{}")])
        let always = TelemetryObserver(tracer: tracer, metricsFactory: metrics, traceContext: .always)
        _ = try await client(asked, thirdParty: true, observer: always).send(request("https://provider.example/t"))
        #expect(try #require(asked.requests.first).head.headerFields[HTTPField.Name(InMemoryTracer.traceIDKey)!] != nil)
    }

    @Test func aGraphCallIsNamedByItsTemplateWithTheTokenRedactedAndNoTraceContext() async throws {
        let transport = InMemoryTransport(replies: [.json(200, #"{"data":[]}"#)])
        let graph = GraphClient(
            transport: transport,
            configuration: .init(
                graphURL: URL(string: "https://graph.example")!, version: "v21.0",
                tokenPlacement: .queryParameter(name: "access_token"), clock: clock.pipeline(),
                observer: TelemetryObserver(tracer: tracer, metricsFactory: metrics)),
            credentials: StaticCredential(token: "EAAB-secret-token-0123456789"))
        _ = try await graph.send(GraphRequest(path: "10157_4402/comments", parameters: ["limit": "5"]))

        let attempt = try #require(spans(named: "GET /v21.0/{id}/comments").first { $0.kind == .client })
        let url = try #require(attempt.attributes["url.full"]?.toSpanAttribute())
        guard case .string(let full) = url else { Issue.record("url.full is \(url)"); return }
        #expect(full.contains("access_token=REDACTED"))
        #expect(full.contains("limit=5"))
        #expect(!full.contains("secret-token"))
        let sent = try #require(transport.requests.first).head.headerFields
        #expect(sent[HTTPField.Name(InMemoryTracer.traceIDKey)!] == nil)
    }

    @Test func aCancelledRequestIsNoError() async throws {
        let transport = InMemoryTransport { _, _ in
            try await Task.sleep(for: .seconds(3600))
            return .json(200, "{}")
        }
        let api = client(transport)
        let task = Task { try await api.send(request("https://api.example/slow")) }
        while transport.requestCount == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let logical = try #require(spans(named: "GET").first { $0.kind == .internal })
        #expect(logical.status == nil)
        #expect(logical.attributes["mend.cancelled"]?.toSpanAttribute() == .bool(true))
        #expect(metrics.counters(label: TelemetryObserver.MetricName.errors).isEmpty)
    }

    @Test func withoutAnObserverNothingIsAddedToTheRequest() async throws {
        let transport = InMemoryTransport(replies: [.json(200, "{}")])
        let plain = APIClient(transport: transport, configuration: .init(observer: nil))
        _ = try await withTracer(tracer) { try await plain.send(request("https://app.example/v1/me")) }
        #expect(tracer.finishedSpans.isEmpty)
        #expect(try #require(transport.requests.first).head.headerFields.count == 0)
    }

    @Test func theTaskLocalTracerIsUsedWhenNoneIsGiven() async throws {
        let transport = InMemoryTransport(replies: [.json(200, "{}")])
        let api = client(transport, observer: TelemetryObserver(metricsFactory: metrics))
        try await withTracer(tracer) {
            try await withSpan("checkout") { _ in _ = try await api.send(request("https://app.example/v1/cart")) }
        }
        let root = try #require(spans(named: "checkout").first)
        let logical = try #require(spans(named: "GET").first { $0.kind == .internal })
        #expect(logical.parentSpanID == root.spanID)
    }

    @Test("A REST call has a url.template, as the Graph API's do, and its span is named by it")
    func aRESTCallIsNamedByItsTemplate() async throws {
        let transport = InMemoryTransport(replies: [.json(200, "{}")])
        let rest = RESTClient(baseURL: URL(string: "https://api.example/v2")!, client: client(transport))
        let _: RESTClient.Empty = try await rest.get("objects/42/comments")
        let logical = try #require(spans(named: "GET /v2/objects/{id}/comments").first { $0.kind == .internal })
        #expect(logical.attributes["url.template"]?.toSpanAttribute() == .string("/v2/objects/{id}/comments"))
        #expect(RESTClient.urlTemplate(base: "/api", path: "users/alice@example.com/notes") == "/api/users/{id}/notes")
        #expect(
            RESTClient.urlTemplate(base: "", path: "v1.1/orders/9f1c2b7e-1c2d-4e5f-8a9b-0c1d2e3f4a5b?x=1")
                == "/v1.1/orders/{id}")
        #expect(RESTClient.urlTemplate(base: "/", path: "me") == "/me")
    }

    @Test("A request that carries a protocol's operation (GraphQL) names its logical span by it, attempts stay HTTP's")
    func anOperationNamesTheLogicalSpan() async throws {
        let transport = InMemoryTransport(replies: [.json(200, #"{"data":{}}"#)])
        var request = APIRequest(method: .post, url: URL(string: "https://api.example/graphql")!, body: Data("{}".utf8))
        request.options.operation = ObservedRequest.Operation(
            name: "query PostList",
            attributes: ["graphql.operation.type": "query", "graphql.operation.name": "PostList"])
        _ = try await client(transport).send(request)
        let logical = try #require(spans(named: "query PostList").first)
        #expect(logical.kind == .internal)
        #expect(logical.attributes["graphql.operation.type"]?.toSpanAttribute() == .string("query"))
        #expect(logical.attributes["graphql.operation.name"]?.toSpanAttribute() == .string("PostList"))
        #expect(spans(named: "POST").first?.kind == .client)
    }

    @Test func graphTemplatesKeepTheAPIsNamesAndHideIDs() {
        #expect(GraphClient.urlTemplate(version: "v21.0", path: "me") == "/v21.0/me")
        #expect(GraphClient.urlTemplate(version: "v21.0", path: "/10157/feed") == "/v21.0/{id}/feed")
        #expect(GraphClient.urlTemplate(version: "v21.0", path: "10157_4402/comments?x=1") == "/v21.0/{id}/comments")
        #expect(GraphClient.urlTemplate(version: "v21.0", path: "debug_token") == "/v21.0/debug_token")
        #expect(GraphClient.urlTemplate(version: "v21.0", path: "act_123/ads") == "/v21.0/{id}/ads")
    }
}

/// A provider whose renewal runs `refresh` (as an app's refresh call to its backend would).
final class RefreshingCredentials: CredentialProvider {
    let current: Locked<Credential>
    let refresh: @Sendable () async throws -> Credential

    init(token: String, refresh: @escaping @Sendable () async throws -> Credential) {
        current = Locked(Credential(token: token))
        self.refresh = refresh
    }

    func currentCredential() async throws -> Credential? { current.current }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        let fresh = try await refresh()
        current.withLock { $0 = fresh }
        return fresh
    }
}
