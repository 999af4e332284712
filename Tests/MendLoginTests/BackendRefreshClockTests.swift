import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import MendLogin
import Testing

/// Records every wait instead of waiting.
private final class Waits: Sendable {
    private let recorded = Locked<[Duration]>([])
    var all: [Duration] { recorded.withLock { $0 } }
    var clock: PipelineClock {
        PipelineClock(
            sleep: { duration in
                try Task.checkCancellation()
                self.recorded.withLock { $0.append(duration) }
            }, now: { Date(timeIntervalSince1970: 1_800_000_000) }, random: { 1 })
    }
}

@Suite("A backend refresh is retried by the pipeline, on the client's clock")
struct BackendRefreshClockTests {
    static let backend = URL(string: "https://login.example.test")!
    static let session = Session(
        issuer: .backend, accessToken: AccessToken(tokenString: "access-1", refreshDate: Date()),
        refreshToken: "refresh-token-1", familyID: "family-1")
    static let success = #"{"access_token":"access-2","token_type":"Bearer","expires_in":900,"refresh_token":"r2"}"#

    /// A login's transaction (its PKCE verifier and redirect URI), for a code exchange.
    static func transaction() -> AuthorizationTransaction {
        AuthorizationRequest(
            provider: LoginProvider(
                authorizationEndpoint: URL(string: "https://id.example.test/authorize")!,
                tokenEndpoint: URL(string: "https://id.example.test/token")!, clientID: "app"),
            redirectURI: URL(string: "http://127.0.0.1:4000/callback")!, scopes: ["openid"]
        ).start().transaction
    }

    @Test("Two transient answers, then the session: three tries with the same token, two waits, no real sleep")
    func retriesOnTheTestClock() async throws {
        let transport = InMemoryTransport(replies: [
            .html(503, "<html>busy</html>"), .json(502, "{}"), .json(200, Self.success),
        ])
        let waits = Waits()
        let policy = BackendSessionClient.RefreshPolicy(
            maximumAttempts: 3, attemptTimeout: .seconds(9), retryDelay: .milliseconds(500))
        let client = BackendSessionClient(
            baseURL: Self.backend, transport: transport, refreshPolicy: policy, clock: waits.clock)
        let refreshed = try await client.refresh(Self.session)
        #expect(refreshed.accessToken.tokenString == "access-2")
        #expect(refreshed.refreshToken == "r2")
        #expect(refreshed.generation == Self.session.generation + 1)
        #expect(refreshed.familyID == "family-1")
        #expect(refreshed.accessToken.refreshDate == Date(timeIntervalSince1970: 1_800_000_000), "the clock's time")

        #expect(transport.requestCount == 3)
        let bodies = Set(transport.requests.compactMap { $0.body.map { String(decoding: $0, as: UTF8.self) } })
        #expect(bodies == [#"{"refresh_token":"refresh-token-1"}"#], "the same refresh token every try")
        #expect(transport.requests.allSatisfy { $0.timeout == .seconds(9) }, "each try bounded by attemptTimeout")
        // Full jitter with random = 1: the ceilings, 0.5 s then 1 s.
        #expect(waits.all == [.milliseconds(500), .seconds(1)])
    }

    @Test("Transient to the end: the last error, after maximumAttempts tries; a Retry-After past the budget at once")
    func givesUp() async throws {
        let waits = Waits()
        let failing = InMemoryTransport(replies: [.json(503, "{}")])
        let client = BackendSessionClient(baseURL: Self.backend, transport: failing, clock: waits.clock)
        let error = try await #require(throws: MendError.self) { try await client.refresh(Self.session) }
        #expect(error.code == .HTTP.serviceUnavailable)
        #expect(error.attempts == 3)
        #expect(waits.all.count == 2)

        // A server that asks for two minutes: longer than the refresh's budget (inside the server's grace window), so
        // the pipeline returns the error without waiting.
        let slow = InMemoryTransport(replies: [.status(503, headers: [("Retry-After", "120")])])
        let patient = Waits()
        let other = BackendSessionClient(baseURL: Self.backend, transport: slow, clock: patient.clock)
        let refused = try await #require(throws: MendError.self) { try await other.refresh(Self.session) }
        #expect(refused.attempts == 1)
        #expect(patient.all.isEmpty)
    }

    @Test("A login the backend rate-limits holds logins only: the session's refresh and logout go through at once")
    func aRateLimitedLoginHoldsNoOtherEndpoint() async throws {
        // mend-server limits logins and refreshes separately (per address, per user): its 429 on a login says nothing
        // about a refresh. The torture run saw a logout refused with http/429 after a rate-limited login.
        let transport = InMemoryTransport { head, _ in
            head.path?.hasPrefix("/v1/login/code") == true
                ? .json(
                    429, #"{"error":{"domain":"http","code":429,"message":"slow down"}}"#,
                    headers: [("Retry-After", "30")])
                : .json(200, Self.success)
        }
        let waits = Waits()
        let client = BackendSessionClient(baseURL: Self.backend, transport: transport, clock: waits.clock)
        let transaction = Self.transaction()
        let limited = try await #require(throws: MendError.self) {
            try await client.exchange(code: "code-1", transaction: transaction, granted: nil, denied: nil)
        }
        #expect(limited.code == .HTTP.tooManyRequests)
        let refreshed = try await client.refresh(Self.session)
        #expect(refreshed.accessToken.tokenString == "access-2")
        try await client.revoke(token: "refresh-token-1")
        #expect(transport.requestCount == 3, "the refresh and the revocation reached the backend")
        #expect(waits.all.isEmpty, "nothing was held")
    }

    @Test("A code exchange is never retried, not even after a failure that proves it never reached the server")
    func exchangeNeverRetried() async throws {
        let transport = InMemoryTransport(replies: [
            .failure(MendError(code: .Transport.cannotConnect, developerMessage: "refused", catalog: .core)),
            .json(200, Self.success),
        ])
        let waits = Waits()
        let client = BackendSessionClient(baseURL: Self.backend, transport: transport, clock: waits.clock)
        let transaction = Self.transaction()
        let error = try await #require(throws: MendError.self) {
            try await client.exchange(code: "single-use", transaction: transaction, granted: nil, denied: nil)
        }
        #expect(error.code == .Transport.cannotConnect)
        #expect(transport.requestCount == 1)
        #expect(waits.all.isEmpty)
    }
}
