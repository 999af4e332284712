import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP
import MendLogin
import Testing

@Suite("Rate-limit gate")
struct RateLimitGateTests {
    @Test("After a throttle, the next request to the key waits it out instead of calling into it")
    func holds() async throws {
        let transport = InMemoryTransport(replies: [
            .json(429, #"{"message":"slow"}"#, headers: [("Retry-After", "30")]), .json(200, "{}"),
        ])
        let sleeper = SleepRecorder()
        let client = makeClient(transport, sleeper: sleeper, policy: .never)
        await #expect(throws: MendError.self) { try await client.send(APIRequest(method: .get, url: apiURL)) }
        _ = try await client.send(APIRequest(method: .get, url: apiURL))
        #expect(sleeper.recorded.map(\.seconds) == [30])
        #expect(transport.requestCount == 2)
        // Another host is not held.
        _ = try await client.send(APIRequest(method: .get, url: URL(string: "https://other.example/x")!))
        #expect(sleeper.recorded.count == 1)
    }

    @Test("A throttle longer than the policy's longest hinted wait fails the next request at once, saying when")
    func longThrottleFailsFast() async throws {
        let transport = InMemoryTransport(replies: [
            .json(429, #"{"message":"slow"}"#, headers: [("Retry-After", "86400")]), .json(200, "{}"),
        ])
        let sleeper = SleepRecorder()
        let client = makeClient(transport, sleeper: sleeper, policy: .never)
        await #expect(throws: MendError.self) { try await client.send(APIRequest(method: .get, url: apiURL)) }
        let error = try await #require(throws: MendError.self) {
            try await client.send(APIRequest(method: .get, url: apiURL))
        }
        #expect(sleeper.recorded.isEmpty, "no request waits a day for a throttle")
        #expect(error.code == .HTTP.tooManyRequests)
        #expect(error.recovery.notBefore == testNow.addingTimeInterval(86400))
        #expect(error.developerMessage.hasPrefix("Not sent"))
        #expect(transport.requestCount == 1)
    }

    @Test("A request whose deadline ends before the throttle is not sent at all")
    func notSent() async throws {
        let transport = InMemoryTransport(replies: [.json(429, "{}", headers: [("Retry-After", "30")])])
        let client = makeClient(transport, policy: .never)
        await #expect(throws: MendError.self) { try await client.send(APIRequest(method: .get, url: apiURL)) }
        let short = APIRequest(method: .get, url: apiURL, options: .init(timeout: .seconds(5)))
        let error = try await #require(throws: MendError.self) { try await client.send(short) }
        #expect(error.code == .HTTP.tooManyRequests)
        #expect(error.attempts == 0)
        #expect(error.developerMessage.hasPrefix("Not sent"))
        #expect(transport.requestCount == 1)
    }
}

@Suite("Cancellation and completions")
struct CancellationTests {
    @Test("Cancelling mid-backoff stops at once with CancellationError, never retried or logged as a failure")
    func cancelMidBackoff() async throws {
        let transport = InMemoryTransport(replies: [.status(503, headers: [("Retry-After", "50")])])
        let capture = LogCapture()
        let client = APIClient(
            transport: transport,
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 5), logging: .all),
            logger: capture.logger())
        let task = Task { try await client.send(APIRequest(method: .get, url: apiURL)) }
        while transport.requestCount == 0 { await Task.yield() }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(transport.requestCount == 1)
        let cancellationLines = capture.records.filter {
            $0.message.contains("Cancelled") || $0.message.contains("ancel")
        }
        #expect(cancellationLines.allSatisfy { $0.level == .trace })
        #expect(!capture.records.contains { $0.message.contains("✗") && $0.message.contains("ancel") })
    }

    @Test("A cancelled task never starts the request")
    func cancelledBeforeStart() async throws {
        let transport = InMemoryTransport(replies: [.json(200, "{}")])
        let client = makeClient(transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(APIRequest(method: .get, url: apiURL))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.requestCount == 0)
    }

    final class Calls: Sendable {
        let outcomes = Locked<[String]>([])
        func add(_ outcome: String) { outcomes.withLock { $0.append(outcome) } }
        var all: [String] { outcomes.withLock { $0 } }
    }

    @Test("Completions fire exactly once: success, failure, re-authentication, cancellation")
    func exactlyOnce() async throws {
        let calls = Calls()
        @Sendable func label<T>(_ completion: Completion<T>) -> String {
            switch completion {
            case .success: "success"
            case .failure(let error): "failure:\(error.code)"
            case .cancelled: "cancelled"
            }
        }
        let ok = makeClient(InMemoryTransport(replies: [.json(200, "{}")]))
        await ok.send(APIRequest(method: .get, url: apiURL)) { calls.add(label($0)) }.wait()
        let failing = makeClient(InMemoryTransport(replies: [.json(400, "{}")]))
        await failing.send(APIRequest(method: .get, url: apiURL)) { calls.add(label($0)) }.wait()
        let reauth = makeClient(tokenCheckingTransport(), provider: RotatingProvider())
        await reauth.send(APIRequest(method: .get, url: apiURL)) { calls.add(label($0)) }.wait()
        let failedRefresh = makeClient(
            tokenCheckingTransport(),
            provider: RotatingProvider(failure: MendError(code: .Login.passwordChanged, catalog: .everyClientSpace)))
        await failedRefresh.send(APIRequest(method: .get, url: apiURL)) { calls.add(label($0)) }.wait()
        let slow = APIClient(
            transport: InMemoryTransport(replies: [.status(503, headers: [("Retry-After", "50")])]),
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 5)))
        let handle = slow.send(APIRequest(method: .get, url: apiURL)) { calls.add(label($0)) }
        handle.cancel()
        await handle.wait()
        #expect(calls.all == ["success", "failure:http/400", "success", "failure:login/302", "cancelled"])
    }

    @Test("The REST client's success/failure flavour calls exactly one handler once")
    func restHandlers() async throws {
        struct Note: Codable, Sendable { var title: String }
        let calls = Calls()
        let rest = RESTClient(
            baseURL: URL(string: "https://baas.example/v1/")!,
            transport: InMemoryTransport(replies: [
                .json(200, #"{"title":"hi"}"#),
                .json(
                    409,
                    #"{"status":{"code":"409","message":"revision","referenceid":"ref-9","additionalmessages":["__revision: 4"]}}"#
                ),
            ]),
            configuration: .init(errorDecoder: RESTErrorDecoder()), steps: .standard(retryPolicy: .never))
        await rest.send(
            .get, "objects/note/1", as: Note.self, success: { calls.add("ok:\($0.title)") },
            failure: { calls.add("fail:\($0.code)") }
        ).wait()
        await rest.send(
            .put, "objects/note/1", body: Note(title: "x"), as: Note.self, success: { _ in calls.add("ok") },
            failure: {
                calls.add("fail:\($0.code):\($0.referenceIDOrNone):\($0.additionalMessages.joined())")
            }
        ).wait()
        #expect(calls.all == ["ok:hi", "fail:rest/409:ref-9:__revision: 4"])
    }
}
