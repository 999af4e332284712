import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendGraphAPI
import Testing

@testable import MendHTTP

/// A scripted server: what the next request gets, switchable between calls.
private final class Script: Sendable {
    let reply = Locked<InMemoryTransport.Reply>(.json(200, #"{"name":"alice"}"#))
    func set(_ reply: InMemoryTransport.Reply) { self.reply.withLock { $0 = reply } }
}

/// A clock whose time the test moves.
private final class MovableTime: Sendable {
    let now = Locked<Date>(Date(timeIntervalSince1970: 1_800_000_000))
    func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var clock: PipelineClock {
        PipelineClock(sleep: { _ in try Task.checkCancellation() }, now: { self.now.current }, random: { 0.5 })
    }
}

private let alice = Principal(subject: "alice", issuer: "backend")
private let bob = Principal(subject: "bob", issuer: "backend")
private let meURL = URL(string: "https://api.example/v1/me")!

private struct Harness {
    let script = Script()
    let time = MovableTime()
    let store: InMemoryResponseStore
    let transport: InMemoryTransport
    let credentials: StaticCredential
    let client: APIClient

    init(
        mode: LastKnownGood.Mode = .snapshot, principal: Principal? = alice, provider: (any CredentialProvider)? = nil
    ) {
        let script = self.script
        let time = self.time
        store = InMemoryResponseStore(clock: time.clock)
        transport = InMemoryTransport { _, _ in script.reply.current }
        credentials = StaticCredential(token: "EAAaliceTOKENaaaaaaaaaaaa1", principal: principal)
        client = APIClient(
            transport: transport, configuration: .init(clock: time.clock),
            steps: .standard(
                credentialProvider: provider ?? credentials, retryPolicy: RetryPolicy(maximumAttempts: 2),
                retryBudget: RetryBudget(configuration: .unlimited),
                lastKnownGood: LastKnownGood(store: store, mode: mode)))
    }

    func get(maxStale: Duration? = .seconds(3600), headers: HTTPFields = [:]) async throws -> APIResponse {
        try await client.send(
            APIRequest(method: .get, url: meURL, headers: headers, options: RequestOptions(maxStale: maxStale)))
    }

    /// Stores alice's answer, then moves the clock `age` seconds on.
    func primed(age: TimeInterval = 600, headers: [(String, String)] = []) async throws -> Harness {
        script.set(.json(200, #"{"name":"alice"}"#, headers: headers))
        _ = try await get()
        time.advance(age)
        return self
    }
}

@Suite("Last known good: what is served in place of a failure")
struct LastKnownGoodTests {
    static let transientFailures: [(String, InMemoryTransport.Reply, MendError.Code)] = [
        (
            "no connection",
            .failure(MendError(code: .Transport.notConnected, developerMessage: "offline", catalog: .core)),
            .Transport.notConnected
        ),
        (
            "a timeout", .failure(MendError(code: .Transport.timedOut, developerMessage: "slow", catalog: .core)),
            .Transport.timedOut
        ),
        ("a 503", .json(503, #"{"error":"down"}"#), .HTTP.serviceUnavailable),
        ("a 500", .json(500, #"{"error":"boom"}"#), .HTTP.internalServerError),
        ("a 429", .json(429, #"{"error":"slow down"}"#, headers: [("Retry-After", "1")]), .HTTP.tooManyRequests),
    ]

    @Test(
        "a transient failure is answered with the stored answer, marked stale with its age and the error",
        arguments: 0..<5)
    func transientServesStale(index: Int) async throws {
        let (name, failure, code) = Self.transientFailures[index]
        let harness = try await Harness().primed(age: 180)
        harness.script.set(failure)
        let response = try await harness.get()
        #expect(response.source == .store, "\(name)")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"name":"alice"}"#)
        let staleness = try #require(response.staleness)
        #expect(staleness.error.code == code)
        #expect(staleness.age == 180)
        #expect(staleness.description.hasPrefix("stale, 3 min old, because "))
    }

    static let refusals: [(String, InMemoryTransport.Reply)] = [
        ("a 401", .json(401, #"{"error":"expired"}"#)),
        ("a 403", .json(403, #"{"error":"no"}"#)),
        ("a 400 (a validation error)", .json(400, #"{"error":"bad"}"#)),
        ("a 422", .json(422, #"{"error":"invalid"}"#)),
        ("an HTML page where JSON was due", .html(404, "<html>not found</html>")),
        (
            "a response too large",
            .failure(MendError(code: .Transport.responseTooLarge, developerMessage: "big", catalog: .core))
        ),
    ]

    @Test("a failure that waiting cannot fix is thrown, never answered from the store", arguments: 0..<6)
    func nonTransientThrows(index: Int) async throws {
        let (name, failure) = Self.refusals[index]
        let harness = try await Harness().primed()
        harness.script.set(failure)
        await #expect(throws: MendError.self, "\(name)") { try await harness.get() }
    }

    @Test("a cancelled request is cancelled, not answered from the store")
    func cancellationIsNotServed() async throws {
        let harness = try await Harness().primed()
        harness.script.set(.failure(CancellationError()))
        await #expect(throws: CancellationError.self) { try await harness.get() }
    }

    @Test("an entry older than the request's maxStale is not served")
    func expiredEntry() async throws {
        let harness = try await Harness().primed(age: 7200)
        harness.script.set(
            .failure(MendError(code: .Transport.notConnected, developerMessage: "offline", catalog: .core)))
        await #expect(throws: MendError.self) { try await harness.get(maxStale: .seconds(3600)) }
        // Within a larger allowance the same entry stands in.
        #expect(try await harness.get(maxStale: .seconds(8000)).staleness != nil)
    }

    @Test("the origin's stale-if-error caps the caller's maxStale")
    func staleIfErrorCaps() async throws {
        let harness = try await Harness().primed(age: 600, headers: [("Cache-Control", "stale-if-error=60")])
        harness.script.set(.json(503, "{}"))
        await #expect(throws: MendError.self) { try await harness.get() }
    }

    @Test("a request without maxStale is neither stored nor answered from the store (snapshot)")
    func noMaxStaleNoStore() async throws {
        let harness = Harness()
        _ = try await harness.get(maxStale: nil)
        #expect(harness.store.count == 0)
        _ = try await harness.get()
        #expect(harness.store.count == 1)
        harness.script.set(.json(503, "{}"))
        await #expect(throws: MendError.self) { try await harness.get(maxStale: nil) }
    }

    @Test("another user never gets the first user's answer")
    func anotherUser() async throws {
        let harness = try await Harness().primed()
        harness.script.set(.json(503, "{}"))
        // Bob's client on the same store: nothing of Alice's.
        let client = APIClient(
            transport: harness.transport, configuration: .init(clock: harness.time.clock),
            steps: .standard(
                credentialProvider: StaticCredential(token: "EAAbobTOKENbbbbbbbbbbbbbbbb2", principal: bob),
                retryPolicy: .never, lastKnownGood: LastKnownGood(store: harness.store)))
        await #expect(throws: MendError.self) {
            try await client.send(
                APIRequest(method: .get, url: meURL, options: RequestOptions(maxStale: .seconds(3600))))
        }
    }

    @Test("with no principal nothing is stored")
    func noPrincipal() async throws {
        let harness = Harness(principal: nil)
        _ = try await harness.get()
        #expect(harness.store.count == 0)
    }

    @Test("a rejected credential is renewed first; a renewal that fails transiently lets the stored answer stand in")
    func recoveryFirst() async throws {
        final class Failing: CredentialProvider {
            let renewals = Locked(0)
            func currentCredential() async throws -> Credential? { Credential(token: "EAAaliceTOKENaaaaaaaaaaaa1") }
            func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
                renewals.withLock { $0 += 1 }
                throw MendError(code: .Transport.notConnected, developerMessage: "offline", catalog: .core)
            }
            func principal() async throws -> Principal? { alice }
        }
        let provider = Failing()
        let harness = try await Harness(provider: provider).primed()
        harness.script.set(.json(401, #"{"error":"expired"}"#))
        let response = try await harness.get()
        #expect(provider.renewals.current == 1)
        #expect(response.staleness?.error.code == .Transport.notConnected)
    }

    @Test("credential-bearing header fields are never stored")
    func noSecretHeaders() async throws {
        let harness = Harness()
        harness.script.set(
            .json(
                200, #"{"name":"alice"}"#,
                headers: [("Set-Cookie", "sid=SECRETcookieVALUE"), ("DPoP-Nonce", "nonce-1"), ("X-Request-Id", "r1")]))
        _ = try await harness.get()
        let stored = try #require(
            try await harness.store.answer(
                for: ResponseStoreKey(principal: alice, method: "GET", resource: "https://api.example/v1/me")))
        #expect(stored.headerFields[HTTPField.Name("Set-Cookie")!] == nil)
        #expect(stored.headerFields[HTTPField.Name("DPoP-Nonce")!] == nil)
        #expect(stored.headerFields[HTTPField.Name("X-Request-Id")!] == "r1")
    }

    @Test("the store's maximum age and size bound")
    func storeBounds() async throws {
        let time = MovableTime()
        let store = InMemoryResponseStore(limits: .init(maximumBytes: 100, maximumAge: 60), clock: time.clock)
        let answer = StoredAnswer(
            status: 200, headerFields: [:], body: Data(repeating: 0x61, count: 40), storedAt: time.now.current)
        for index in 0..<3 {
            try await store.store(answer, for: ResponseStoreKey(principal: alice, method: "GET", resource: "\(index)"))
        }
        #expect(store.count == 2)  // the first one evicted
        #expect(try await store.answer(for: ResponseStoreKey(principal: alice, method: "GET", resource: "0")) == nil)
        time.advance(61)
        #expect(try await store.answer(for: ResponseStoreKey(principal: alice, method: "GET", resource: "2")) == nil)
    }
}

@Suite("Last known good: RFC 9111 mode")
struct HTTPCachingModeTests {
    @Test("a fresh answer is served without the network; a stale one goes to the network")
    func freshServedFromStore() async throws {
        let harness = try await Harness(mode: .httpCaching).primed(
            age: 30, headers: [("Cache-Control", "private, max-age=60")])
        let fresh = try await harness.get(maxStale: nil)
        #expect(fresh.source == .store && fresh.staleness == nil)
        #expect(harness.transport.requestCount == 1)
        harness.time.advance(60)
        _ = try await harness.get(maxStale: nil)
        #expect(harness.transport.requestCount == 2)
    }

    @Test("no-store is never kept; no-cache is never served without revalidation")
    func noStoreNoCache() async throws {
        let noStore = try await Harness(mode: .httpCaching).primed(headers: [("Cache-Control", "no-store, max-age=600")]
        )
        #expect(noStore.store.count == 0)
        let noCache = try await Harness(mode: .httpCaching).primed(
            age: 10, headers: [("Cache-Control", "no-cache, max-age=600")])
        _ = try await noCache.get(maxStale: nil)
        #expect(noCache.transport.requestCount == 2)
        noCache.script.set(.json(503, "{}"))
        await #expect(throws: MendError.self) { try await noCache.get() }
    }

    @Test("stale-if-error lets a stale answer stand in; must-revalidate never does")
    func staleIfErrorAndMustRevalidate() async throws {
        let allowed = try await Harness(mode: .httpCaching).primed(
            age: 120, headers: [("Cache-Control", "max-age=60, stale-if-error=600")])
        allowed.script.set(.json(503, "{}"))
        let stale = try await allowed.get(maxStale: nil)
        #expect(stale.staleness?.error.code == .HTTP.serviceUnavailable)
        let strict = try await Harness(mode: .httpCaching).primed(
            age: 120, headers: [("Cache-Control", "max-age=60, must-revalidate")])
        strict.script.set(.json(503, "{}"))
        await #expect(throws: MendError.self) { try await strict.get() }
    }

    @Test("Vary: an entry is used only for the same varied fields; Vary: * is never kept")
    func vary() async throws {
        let harness = Harness(mode: .httpCaching)
        harness.script.set(
            .json(200, #"{"name":"alice"}"#, headers: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")]))
        _ = try await harness.get(maxStale: nil, headers: [.acceptLanguage: "fr"])
        _ = try await harness.get(maxStale: nil, headers: [.acceptLanguage: "fr"])
        #expect(harness.transport.requestCount == 1)
        _ = try await harness.get(maxStale: nil, headers: [.acceptLanguage: "de"])
        #expect(harness.transport.requestCount == 2)
        let star = try await Harness(mode: .httpCaching).primed(headers: [
            ("Cache-Control", "max-age=600"), ("Vary", "*"),
        ])
        #expect(star.store.count == 0)
    }
}

@Suite("Last known good: the Graph API")
struct GraphLastKnownGoodTests {
    static let reduceData =
        #"{"error":{"message":"Please reduce the amount of data you're asking for, then retry your request","type":"OAuthException","code":1,"fbtrace_id":"AbC"}}"#
    static let unknownError =
        #"{"error":{"message":"An unknown error occurred","type":"OAuthException","code":1,"is_transient":true,"fbtrace_id":"AbD"}}"#

    @Test("Graph's \"reduce the data\" is never answered from the store; another code 1 is")
    func reduceTheDataIsNotServed() async throws {
        let reply = Locked<InMemoryTransport.Reply>(.json(200, #"{"id":"1","name":"Alice"}"#))
        let store = InMemoryResponseStore()
        let graph = GraphClient(
            transport: InMemoryTransport { _, _ in reply.current },
            configuration: .init(clock: PipelineClock(sleep: { _ in }, now: { Date() }, random: { 0.5 })),
            credentials: StaticCredential(token: "EAAaliceTOKENaaaaaaaaaaaa1", principal: alice),
            lastKnownGood: LastKnownGood(store: store))
        let request = GraphRequest(path: "me/feed", parameters: ["limit": "100"], maxStale: .seconds(3600))
        _ = try await graph.send(request)
        reply.withLock { $0 = .json(500, Self.reduceData) }
        let error = await #expect(throws: MendError.self) { try await graph.send(request) }
        #expect(error?.recovery.action == .reduceRequestSize)
        reply.withLock { $0 = .json(500, Self.unknownError) }
        #expect(try await graph.send(request).staleness?.error.category == .transient)
    }
}

@Suite("Last known good: the user changes while a request runs")
struct PrincipalChangeTests {
    /// A provider whose user the test switches mid-request.
    final class Switching: CredentialProvider {
        let who = Locked<Principal?>(alice)
        func currentCredential() async throws -> Credential? {
            who.current.map { Credential(token: "EAA\($0.subject)TOKENxxxxxxxxxxxxxxxx") }
        }
        func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
            who.withLock { $0 = bob }  // a new login, by someone else
            return Credential(token: "EAAbobTOKENxxxxxxxxxxxxxxxx")
        }
        func principal() async throws -> Principal? { who.current }
    }

    @Test("an answer got after another user logged in is not stored under the first")
    func reloginAsAnotherUser() async throws {
        let provider = Switching()
        let store = InMemoryResponseStore()
        let replies = Locked<[InMemoryTransport.Reply]>([.json(401, "{}"), .json(200, #"{"name":"bob"}"#)])
        let client = APIClient(
            transport: InMemoryTransport { _, _ in replies.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] } },
            steps: .standard(credentialProvider: provider, lastKnownGood: LastKnownGood(store: store)))
        _ = try await client.send(
            APIRequest(method: .get, url: meURL, options: RequestOptions(maxStale: .seconds(600))))
        #expect(store.count == 0)
    }

    @Test("a session that ends while the request fails gets no stale answer")
    func signedOutMeanwhile() async throws {
        let provider = Switching()
        let store = InMemoryResponseStore()
        let failing = Locked(false)
        let client = APIClient(
            transport: InMemoryTransport { _, _ in
                guard failing.current else { return .json(200, #"{"name":"alice"}"#) }
                provider.who.withLock { $0 = nil }  // a logout elsewhere, while this request is out
                return .json(503, "{}")
            },
            steps: .standard(
                credentialProvider: provider, retryPolicy: .never, lastKnownGood: LastKnownGood(store: store)))
        let request = APIRequest(method: .get, url: meURL, options: RequestOptions(maxStale: .seconds(600)))
        _ = try await client.send(request)
        #expect(store.count == 1)
        failing.withLock { $0 = true }
        await #expect(throws: MendError.self) { try await client.send(request) }
    }
}
