import Foundation
import HTTPTypes
import InMemoryTracing
import MendCore
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer
import MendTelemetry
import MendTesting
import Testing
import Tracing

/// One trace from the app through mend-server to the provider (issue 31): a live login, Graph calls with faults, an
/// expired access token refreshed, a rate-limit hold, every span caught by an in-memory tracer bound to this test's
/// task (the server runs in it, so its spans land there too).
@Suite("Tracing: the app, mend-server and the provider in one trace")
struct TracingThroughServerTests {
    /// Every span's ancestors, nearest first.
    static func ancestors(of span: FinishedInMemorySpan, in spans: [FinishedInMemorySpan]) -> [FinishedInMemorySpan] {
        let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
        var chain: [FinishedInMemorySpan] = []
        var current = span.parentSpanID.flatMap { byID[$0] }
        while let parent = current {
            chain.append(parent)
            current = parent.parentSpanID.flatMap { byID[$0] }
        }
        return chain
    }

    static func port(_ span: FinishedInMemorySpan) -> Int64? {
        guard case .int64(let port) = span.attributes["server.port"]?.toSpanAttribute() else { return nil }
        return port
    }

    static func string(_ span: FinishedInMemorySpan, _ key: String) -> String? {
        guard case .string(let value) = span.attributes[key]?.toSpanAttribute() else { return nil }
        return value
    }

    @Test("A login, Graph calls with a 503 and a throttle, and a refresh: the spans, their attributes and their trace")
    func appServerProvider() async throws {
        // What an app does at startup (after bootstrapping its tracer): every client made afterwards is observed,
        // the ones MendLogin makes included. Its tracer is the task's: this test's in-memory one.
        APIClient.bootstrapObserver(TelemetryObserver())
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            let clock = OffsetClock()
            try await withEmulator { emulator in
                var configuration = ServerConfiguration.forEmulator(emulator)
                configuration.clock = clock.pipeline()
                configuration.providers.returnsProviderToken = true
                try await withMendServer(configuration: configuration) { server in
                    try await run(emulator: emulator, server: server, clock: clock, tracer: tracer)
                }
            }
        }
    }

    @Test("A request no route matches is a SERVER span named by its method alone, without http.route")
    func unmatchedRoute() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withEmulator { emulator in
                try await withMendServer(configuration: .forEmulator(emulator)) { server in
                    let client = APIClient(transport: AsyncHTTPClientTransport(), steps: .standard(retryPolicy: .never))
                    for (method, path) in [(HTTPRequest.Method.get, "/nowhere/42"), (.put, "/v1/session")] {
                        _ = try? await client.send(
                            APIRequest(method: method, url: server.baseURL.appendingPathComponent(path)))
                    }
                }
            }
        }
        let servers = tracer.finishedSpans.filter { $0.kind == .server }
        for method in ["GET", "PUT"] {
            let span = try #require(servers.first { Self.string($0, "http.request.method") == method }, "\(method)")
            #expect(span.operationName == method)
            #expect(
                span.attributes["http.route"] == nil, "\(method): \(String(describing: span.attributes["http.route"]))")
        }
    }

    func run(
        emulator: RunningEmulator, server: RunningMendServer, clock: OffsetClock, tracer: InMemoryTracer
    ) async throws {
        let emulatorPort = Int64(try #require(emulator.baseURL.port))
        let serverPort = Int64(try #require(server.baseURL.port))
        let transport = AsyncHTTPClientTransport()
        let (login, credentials, _) = backendLogin(emulator, server: server.baseURL, transport: transport)
        let presenter = MendLoginIntegrationTests.presenter(.grantAll)

        // 1. The login: app → mend-server → the provider's token endpoint, one trace.
        try await withSpan("app.login") { _ in _ = try await login.logIn(presenter: presenter) }
        var spans = tracer.finishedSpans
        let root = try #require(spans.first { $0.operationName == "app.login" })
        let appAttempt = try #require(
            spans.first { $0.operationName == "POST /v1/login/code" && $0.kind == .client })
        #expect(Self.port(appAttempt) == serverPort)
        let serverLogin = try #require(
            spans.first { $0.operationName == "POST /v1/login/code" && $0.kind == .server })
        #expect(serverLogin.parentSpanID == appAttempt.spanID, "the server continues the app's attempt")
        #expect(serverLogin.traceID == root.traceID)
        #expect(Self.string(serverLogin, "http.route") == "/v1/login/code")
        #expect(serverLogin.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        // Mend's attempts (the test's headless browser is an AsyncHTTPClient of its own, with AsyncHTTPClient's
        // own spans, keyed `http.status_code`: not Mend's, and left out).
        let providerAttempts = spans.filter {
            $0.kind == .client && Self.port($0) == emulatorPort && $0.attributes["http.status_code"] == nil
        }
        let exchange = try #require(
            providerAttempts.first { Self.string($0, "url.template")?.hasSuffix("/oauth/access_token") == true })
        #expect(Self.ancestors(of: exchange, in: spans).contains { $0.spanID == serverLogin.spanID })
        #expect(exchange.traceID == root.traceID)
        let statements = spans.filter { $0.attributes["db.system.name"] != nil }
        #expect(statements.contains { Self.ancestors(of: $0, in: spans).contains { $0.spanID == serverLogin.spanID } })
        #expect(statements.allSatisfy { Self.string($0, "db.collection.name")?.hasPrefix("mend_") ?? true })
        // Trace context went to mend-server and never to the provider (a third party).
        let injected = Set(tracer.performedContextInjections.compactMap { $0.context.inMemorySpanContext?.spanID })
        #expect(injected.contains(appAttempt.spanID))
        for attempt in providerAttempts where injected.contains(attempt.spanID) {
            Issue.record("trace context sent to the provider: \(attempt.operationName) \(attempt.attributes)")
        }
        #expect(!providerAttempts.isEmpty)

        // 2. A Graph call that meets a 503, then succeeds: one logical span, two attempts.
        let session = try #require(try await credentials.currentSession())
        try await emulator.inject(error: "http/503", path: "/me", times: 1)
        let graph = GraphClient(
            transport: transport,
            configuration: .init(
                graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
            credentials: SessionCredentials(login: login, presenter: presenter, token: .provider))
        var mark = tracer.finishedSpans.count
        let me = try await graph.send(GraphRequest(path: "me", fields: ["id"]))
        #expect(me.attempts == 2)
        spans = Array(tracer.finishedSpans[mark...])
        let template = "/\(emulator.emulator.configuration.graphVersion)/me"
        let meAttempts = spans.filter { $0.operationName == "GET \(template)" && $0.kind == .client }
        #expect(meAttempts.count == 2)
        let failed = try #require(meAttempts.first { $0.attributes["http.request.resend_count"] == nil })
        let resent = try #require(meAttempts.first { $0.attributes["http.request.resend_count"] != nil })
        #expect(failed.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(503))
        #expect(Self.string(failed, "error.type") == "http/503")
        #expect(resent.attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(resent.attributes["error.type"] == nil)
        let meLogical = try #require(spans.first { $0.operationName == "GET \(template)" && $0.kind == .internal })
        #expect(meLogical.events.contains { $0.name == "mend.wait" })

        // 3. A throttle: the next call to the provider is held, and says why.
        try await emulator.inject(error: "graph/4", path: "/me/permissions", times: 1)
        let strict = GraphClient(
            transport: transport,
            configuration: .init(
                graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
            steps: .graph(
                for: .init(
                    graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
                credentials: SessionCredentials(login: login, presenter: presenter, token: .provider),
                retryPolicy: .never))
        await #expect(throws: MendError.self) { try await strict.send(GraphRequest(path: "me/permissions")) }
        mark = tracer.finishedSpans.count
        _ = try await strict.send(GraphRequest(path: "me", fields: ["id"]))
        let held = try #require(
            tracer.finishedSpans[mark...].first { $0.operationName == "GET \(template)" && $0.kind == .internal })
        let hold = try #require(held.events.first { $0.name == "mend.wait" })
        #expect(hold.attributes["mend.wait.reason"]?.toSpanAttribute() == .string("rateLimitHold"))
        #expect(hold.attributes["error.type"]?.toSpanAttribute() == .string("graph/4"))

        // 4. The access token expires at the server: session/1, a renewal span, the refresh nested in it, down to
        // the server's refresh span; the session check says where it looked.
        let api = APIClient(
            transport: transport, configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .login),
            steps: .standard(credentialProvider: SessionCredentials(login: login, presenter: presenter)))
        let check = APIRequest(
            method: .get, url: server.baseURL.appendingPathComponent("v1/session"),
            options: RequestOptions(urlTemplate: "/v1/session"))
        clock.advance(by: 901)
        mark = tracer.finishedSpans.count
        #expect(try await api.send(check).attempts == 2)
        spans = Array(tracer.finishedSpans[mark...])
        let checkLogical = try #require(
            spans.first { $0.operationName == "GET /v1/session" && $0.kind == .internal })
        let checkAttempts = spans.filter { $0.operationName == "GET /v1/session" && $0.kind == .client }
        #expect(checkAttempts.count == 2)
        #expect(checkAttempts.contains { Self.string($0, "error.type") == "session/1" })
        let renewal = try #require(spans.first { $0.operationName == "mend.reauthenticate" })
        #expect(renewal.parentSpanID == checkLogical.spanID)
        let serverRefresh = try #require(
            spans.first { $0.operationName == "POST /v1/session/refresh" && $0.kind == .server })
        #expect(Self.ancestors(of: serverRefresh, in: spans).contains { $0.spanID == renewal.spanID })
        // The credentials manager's refresh is a span between the renewal and its request.
        let sessionRefresh = try #require(spans.first { $0.operationName == "mend.refresh" })
        #expect(sessionRefresh.parentSpanID == renewal.spanID)
        #expect(Self.ancestors(of: serverRefresh, in: spans).contains { $0.spanID == sessionRefresh.spanID })
        let sessionChecks = spans.filter { $0.operationName == "mend.session.check" }
        #expect(!sessionChecks.isEmpty)
        #expect(sessionChecks.allSatisfy { ["view", "database"].contains(Self.string($0, "mend.session.source")) })
        let serverCheck = try #require(
            spans.first { $0.operationName == "GET /v1/session" && $0.kind == .server && $0.status?.code == nil })
        #expect(serverCheck.traceID == checkLogical.traceID)

        // 5. An error body's reference id is the trace id (the caller sent no X-Request-Id).
        mark = tracer.finishedSpans.count
        let bare = APIClient(
            transport: transport, configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .login))
        var refused: MendError?
        do {
            _ = try await bare.send(
                APIRequest(
                    method: .get, url: server.baseURL.appendingPathComponent("v1/session"),
                    headers: [.authorization: "Bearer not-a-token"]))
        } catch let error as MendError { refused = error }
        let error = try #require(refused)
        let serverSpan = try #require(tracer.finishedSpans[mark...].first { $0.kind == .server })
        #expect(error.referenceID == serverSpan.traceID)
        #expect(serverSpan.status == nil, "a 4xx is no error on a server span")
        #expect(Self.string(serverSpan, "error.type") == "session/2")

        // Nothing secret in any attribute or event.
        let secrets =
            [session.accessToken.tokenString] + [session.refreshToken, session.providerAccessToken].compactMap { $0 }
        for span in tracer.finishedSpans {
            let text = "\(span.attributes) \(span.events)"
            for secret in secrets { #expect(!text.contains(secret)) }
        }
    }
}
