import Foundation
import HTTPTypes
import InMemoryTracing
import MendClientTesting
import MendCore
import MendHTTP
import MendLogin
import MendTelemetry
import MetricsTestKit
import Testing
import Tracing

/// A session's own refreshes (MendLogin's `CredentialsManager`), which no rejected request started: each refresh at
/// the issuer is a `mend.refresh` span and is counted by outcome; one taken from the store is neither.
@Suite struct SessionRefreshTelemetryTests {
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()

    /// An issuer whose refresh sends one request through a client with the same observer, then answers what
    /// `answer` says.
    struct Issuer: SessionAuthority {
        let client: APIClient
        let answer: @Sendable (Session) throws -> Session

        func exchange(
            code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
        ) async throws -> Session { throw CancellationError() }
        func refresh(_ session: Session) async throws -> Session {
            _ = try await client.send(
                APIRequest(
                    method: .post, url: URL(string: "https://app.example/v1/session/refresh")!,
                    options: RequestOptions(urlTemplate: "/v1/session/refresh")))
            return try answer(session)
        }
        func checkValidity(of session: Session) async throws {}
        func revoke(_ session: Session) async throws {}
        func endsSession(_ error: MendError) -> Bool { MendError.Code.Session.endsSession(error.code) }
    }

    static func session(token: String, expiresIn: TimeInterval) -> Session {
        Session(
            issuer: .backend,
            accessToken: AccessToken(
                tokenString: token, userID: "u1", permissions: [], expirationDate: Date().addingTimeInterval(expiresIn)
            ),
            refreshToken: "refresh-\(token)", user: .init(id: "u1", name: "Ada"))
    }

    func manager(answer: @escaping @Sendable (Session) throws -> Session) async throws -> CredentialsManager {
        let observer = TelemetryObserver(tracer: tracer, metricsFactory: metrics)
        let client = APIClient(
            transport: InMemoryTransport(replies: [.json(200, "{}")]), configuration: .init(observer: observer))
        let store = InMemoryTokenStore()
        // Issued 15 minutes ago, 30 s left: inside the default 60 s margin, so validToken() refreshes first.
        var old = Self.session(token: "EAAold0123456789", expiresIn: 30)
        old.accessToken.refreshDate = Date().addingTimeInterval(-900)
        try await store.write(old)
        return CredentialsManager(
            store: store, authority: Issuer(client: client, answer: answer), observer: observer)
    }

    @Test func aRefreshBeforeExpiryIsASpanWithItsRequestInsideAndIsCounted() async throws {
        let manager = try await manager { _ in Self.session(token: "EAAnew0123456789", expiresIn: 900) }
        let token = try await manager.validToken()
        #expect(token.tokenString == "EAAnew0123456789")

        let refresh = try #require(tracer.finishedSpans.first { $0.operationName == "mend.refresh" })
        #expect(refresh.parentSpanID == nil)
        #expect(refresh.status == nil)
        let request = try #require(
            tracer.finishedSpans.first { $0.operationName == "POST /v1/session/refresh" && $0.kind == .internal })
        #expect(request.parentSpanID == refresh.spanID)
        #expect(request.traceID == refresh.traceID)
        #expect(
            metrics.counterTotal(
                label: TelemetryObserver.MetricName.refreshes, dimensions: [("mend.outcome", "success")])
                == 1)

        // A second call finds the fresh token: no refresh, no span, no count.
        _ = try await manager.validToken()
        #expect(tracer.finishedSpans.filter { $0.operationName == "mend.refresh" }.count == 1)
        for span in tracer.finishedSpans {
            let text = "\(span.attributes) \(span.events)"
            #expect(!text.contains("EAAold") && !text.contains("EAAnew"))
        }
    }

    @Test func aRefreshThatEndsTheSessionIsAFailureWithItsSessionCode() async throws {
        let manager = try await manager { _ in
            throw MendError(code: .Session.refreshTokenReused, developerMessage: "reuse", catalog: .login)
        }
        let error = try await #require(throws: MendError.self) { try await manager.validToken() }
        #expect(error.code == .Session.refreshTokenReused)
        #expect(try await manager.currentSession() == nil)

        let refresh = try #require(tracer.finishedSpans.first { $0.operationName == "mend.refresh" })
        #expect(refresh.status?.code == .error)
        #expect(refresh.attributes["error.type"]?.toSpanAttribute() == .string("session/12"))
        #expect(
            metrics.counterTotal(
                label: TelemetryObserver.MetricName.refreshes,
                dimensions: [
                    ("mend.outcome", "failure"), ("mend.error.category", error.category.rawValue),
                    ("error.type", "session/12"),
                ]) == 1)
    }
}
