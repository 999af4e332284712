import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendGraphAPI
import MendHTTP
import Testing

@Suite("Pipeline: retries, bodies, deadlines")
struct PipelineTests {
    @Test("A transient 5xx is retried with backoff, then succeeds")
    func retriesThenSucceeds() async throws {
        let transport = InMemoryTransport(replies: [.html(502, "<html>bad gateway</html>"), .json(200, #"{"id":"1"}"#)])
        let sleeper = SleepRecorder()
        let response = try await makeClient(transport, sleeper: sleeper).send(APIRequest(method: .get, url: apiURL))
        #expect(response.attempts == 2)
        #expect(transport.requestCount == 2)
        #expect(sleeper.recorded.map(\.seconds) == [0.1])  // full jitter of the 200 ms first ceiling, random 0.5
    }

    @Test(
        "Retry-After wins over a shorter backoff (seconds and HTTP-date)",
        arguments: ["7", "Fri, 15 Jan 2027 08:00:07 GMT"])
    func retryAfter(value: String) async throws {
        let transport = InMemoryTransport(replies: [.status(503, headers: [("Retry-After", value)]), .json(200, "{}")])
        let sleeper = SleepRecorder()
        _ = try await makeClient(transport, sleeper: sleeper).send(APIRequest(method: .get, url: apiURL))
        #expect(sleeper.recorded.map(\.seconds) == [7])
    }

    @Test("The final error keeps the last cause and the attempt count")
    func finalError() async throws {
        let transport = InMemoryTransport(replies: [
            .status(500), .html(502, "<html/>"),
            .json(503, #"{"message":"maintenance"}"#, headers: [("X-Request-Id", "r-3")]),
        ])
        let error = try await #require(throws: MendError.self) {
            try await makeClient(transport).send(APIRequest(method: .get, url: apiURL))
        }
        #expect(error.code == .HTTP.serviceUnavailable)
        #expect(error.attempts == 3)
        #expect(error.referenceID == "r-3")
        #expect(error.developerMessage.contains("maintenance"))
    }

    @Test("POST is not retried unless it carries an idempotency key or opts in")
    func nonIdempotent() async throws {
        let transport = InMemoryTransport(replies: [.status(503)])
        let client = makeClient(transport)
        let post = APIRequest(method: .post, url: apiURL, body: Data("{}".utf8))
        await #expect(throws: MendError.self) { try await client.send(post) }
        #expect(transport.requestCount == 1)

        let keyed = APIRequest(method: .post, url: apiURL, body: Data("{}".utf8), options: .init(idempotencyKey: "k-1"))
        await #expect(throws: MendError.self) { try await client.send(keyed) }
        #expect(transport.requestCount == 4)
        #expect(transport.requests.last?.head.headerFields[HTTPField.Name("Idempotency-Key")!] == "k-1")

        let optedIn = APIRequest(method: .post, url: apiURL, options: .init(allowsRetry: true))
        await #expect(throws: MendError.self) { try await client.send(optedIn) }
        #expect(transport.requestCount == 7)

        let optedOut = APIRequest(method: .get, url: apiURL, options: .init(allowsRetry: false))
        await #expect(throws: MendError.self) { try await client.send(optedOut) }
        #expect(transport.requestCount == 8)
    }

    @Test("A deadline across all attempts stops retries whose wait would pass it")
    func deadline() async throws {
        let transport = InMemoryTransport(replies: [.status(503, headers: [("Retry-After", "5")])])
        let request = APIRequest(method: .get, url: apiURL, options: .init(timeout: .seconds(2)))
        let error = try await #require(throws: MendError.self) { try await makeClient(transport).send(request) }
        #expect(error.code == .HTTP.serviceUnavailable)
        #expect(error.attempts == 1)
        #expect(transport.requests.first?.timeout.map { $0 > .zero && $0 <= .seconds(2) } == true)
    }

    @Test(
        "Every malformed response is a classified error, never a success",
        arguments: [
            (
                InMemoryTransport.Reply.html(200, "<html><body>captive portal</body></html>"),
                MendError.Code.Transport.nonJSONBody
            ),
            (.json(200, #"{"data":[{"id":"1"#), .Transport.malformedResponse),
            (.status(200), .Transport.emptyResponse),
            (.html(500, ""), .HTTP.internalServerError),
            (.html(503, "<html>Service Unavailable</html>"), .HTTP.serviceUnavailable),
            (.json(404, "not json at all"), .HTTP.notFound),
            (
                .failure(MendError(code: .Transport.connectionLost, catalog: .everyClientSpace)),
                .Transport.connectionLost
            ),
            (.failure(URLError(.badURL)), MendError.Code.Transport.unclassified),
        ])
    func malformed(reply: InMemoryTransport.Reply, code: MendError.Code) async throws {
        let transport = InMemoryTransport(replies: [reply])
        let error = try await #require(throws: MendError.self) {
            try await makeClient(transport, policy: .never).send(APIRequest(method: .get, url: apiURL))
        }
        #expect(error.code == code)
        #expect(error.attempts == 1)
    }

    @Test("Oversized bodies stop at the limit")
    func oversized() async throws {
        let transport = InMemoryTransport(replies: [.status(200, body: Data(repeating: 0x41, count: 64 << 10))])
        let error = try await #require(throws: MendError.self) {
            try await makeClient(transport, limit: 1024).send(APIRequest(method: .get, url: apiURL))
        }
        #expect(error.code == .Transport.responseTooLarge)
        #expect(error.response?.isBodyTruncated == true)
        #expect(error.category == .other)
    }

    @Test("Streaming bodies are read only up to the limit")
    func streamingLimit() async throws {
        let produced = Locked<Int>(0)
        let stream = AsyncThrowingStream<HTTPBody.Chunk, any Error> {
            let count = produced.withLock { count in
                count += 1
                return count
            }
            return count > 10_000 ? nil : ArraySlice(repeating: 0x20, count: 4096)
        }
        let collected = try await HTTPBody(stream: stream).collect(upTo: 64 << 10)
        guard case .tooLarge(let prefix, let limit) = collected else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(prefix.count == limit)
        #expect(produced.current <= 17)
    }

    @Test("Typed decoding failures are classified and name the path")
    func decoding() async throws {
        struct Item: Decodable, Sendable { var id: Int }
        let transport = InMemoryTransport(replies: [.json(200, #"{"id":"not a number"}"#)])
        let response = try await makeClient(transport).send(APIRequest(method: .get, url: apiURL))
        let error = try #require(throws: MendError.self) { try response.decode(Item.self) }
        #expect(error.code == .Transport.malformedResponse)
        #expect(error.developerMessage.contains("id"))
    }
}

@Suite("A Mend service's own classification")
struct ServiceClassificationTests {
    /// mend-server says "transient" for a code that the catalog files as `other` (it saw the provider fail). The
    /// category and the retry permission both come from that one statement, so the request is retried.
    @Test("A transient answer in Mend's wire shape is retried, whatever the catalog says of the code")
    func transientWireAnswerIsRetried() async throws {
        let wire =
            #"{"error":{"domain":"graph","code":100,"category":"transient","recovery":"retry","message":"upstream"}}"#
        let transport = InMemoryTransport(replies: [.json(503, wire), .json(200, #"{"ok":true}"#)])
        let response = try await makeClient(transport, decoder: MendServiceErrorDecoder())
            .send(APIRequest(method: .get, url: apiURL))
        #expect(response.attempts == 2)

        let json = try JSONValue.parse(Data(wire.utf8)).get()
        let error = try #require(MendError(wireBody: json, catalog: .everyClientSpace))
        #expect(error.category == .transient)
        #expect(error.isAutomaticallyRetryable)
        #expect(error.entry.override == .mendWire(category: .transient, recovery: .retry))
        // The row itself is untouched: a local error of the same code is still `other`, and never retried.
        #expect(MendError(code: .Graph.invalidParameter, catalog: .everyClientSpace).category == .other)
        #expect(!MendError(code: .Graph.invalidParameter, catalog: .everyClientSpace).isAutomaticallyRetryable)
    }

    /// A row that forbids automatic retries (a policy block of hours) stays unretried even when a service says
    /// transient.
    @Test("A stated transient does not lift a row's ban on automatic retries")
    func statedTransientKeepsTheRowsBan() throws {
        let entry = ErrorCatalog.everyClientSpace.entry(code: .Graph.invalidParameter)
        #expect(entry.overridden(by: .mendWire(category: .transient, recovery: .retry)).isAutomaticallyRetryable)
        let banned = try #require(
            ErrorCatalog.everyClientSpace.entries.first { $0.category == .transient && !$0.isAutomaticallyRetryable })
        #expect(!banned.overridden(by: .mendWire(category: .transient, recovery: .retry)).isAutomaticallyRetryable)
        #expect(banned.overridden(by: .providerTransient).isAutomaticallyRetryable)
    }
}

@Suite("The one deadline check")
struct DeadlineCheckTests {
    @Test("A request whose deadline already passed is never handed to the transport, and counts no attempt")
    func passedDeadlineIsNeverSent() async throws {
        let transport = InMemoryTransport(replies: [.json(200, "{}")])
        let error = try await #require(throws: MendError.self) {
            try await makeClient(transport).send(APIRequest(method: .get, url: apiURL, options: .init(timeout: .zero)))
        }
        #expect(error.code == .Transport.timedOut)
        #expect(error.attempts == 0)
        #expect(transport.requestCount == 0)
    }

    @Test("The transport gets the time left on the client's clock, bounded by the attempt's own timeout")
    func transportGetsTheTimeLeft() async throws {
        let transport = InMemoryTransport(replies: [.json(200, "{}")])
        let client = makeClient(transport)  // its clock stands still: the time left is exact
        for options in [
            RequestOptions(timeout: .seconds(30)), RequestOptions(timeout: .seconds(30), attemptTimeout: .seconds(9)),
            RequestOptions(timeout: .seconds(5), attemptTimeout: .seconds(9)),
            RequestOptions(attemptTimeout: .seconds(9)),
            RequestOptions(),
        ] {
            _ = try await client.send(APIRequest(method: .get, url: apiURL, options: options))
        }
        #expect(transport.requests.map(\.timeout) == [.seconds(30), .seconds(9), .seconds(5), .seconds(9), nil])
    }
}

@Suite("A request's own error decoder")
struct RequestDecoderTests {
    @Test("A REST decoder given to one request classifies with the REST space on a plain client")
    func requestDecoderBringsItsSpace() async throws {
        let body = #"{"status":{"code":"409","message":"revision","referenceid":"ref-1","additionalmessages":[]}}"#
        let client = APIClient(
            transport: InMemoryTransport(replies: [.json(409, body)]), steps: .standard(retryPolicy: .never))
        let error = try await #require(throws: MendError.self) {
            try await client.send(
                APIRequest(method: .put, url: apiURL, options: .init(errorDecoder: RESTErrorDecoder())))
        }
        #expect(error.code == .REST.updateConflict)
        #expect(error.name == "updateConflict")
        #expect(error.category == .recoverable)
    }
}
