import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import NIOCore
import Testing

@testable import MendServer

/// Request ids, the error shape, health, metrics, the OpenAPI document and rate limits; in router mode (no
/// sockets) and live.
@Suite struct OperationsTests {
    static func offlineConfiguration() -> ServerConfiguration {
        var configuration = ServerConfiguration(
            appID: "111111111111111", appSecret: Secret("0123456789abcdef0123456789abcdef"), port: 0,
            graphURL: URL(string: "http://127.0.0.1:9")!, databaseURL: "sqlite::memory:")
        configuration.sessions.allowedRedirectURIs = ["https://app.example/callback"]
        configuration.providers.facebook?.validityCheckInterval = .zero
        configuration.providers.maxAttempts = 1
        return configuration
    }

    static func withRouterApp(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ test: @escaping @Sendable (any TestClientProtocol, LoginBackend) async throws -> Void
    ) async throws {
        // Hummingbird's Application (and so the router test) needs macOS 14, iOS 17 or tvOS 17.
        guard #available(macOS 14, iOS 17, tvOS 17, *) else { throw OperationsTestError.requiresNewerSystem }
        var configuration = offlineConfiguration()
        configure(&configuration)
        let backend = try await LoginBackend.open(
            configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let app = buildApplication(backend: backend)
        try await app.test(.router) { client in try await test(client, backend) }
    }

    static func json(_ response: TestResponse) -> JSONValue? {
        try? JSONValue.parse(Data(response.body.readableBytesView)).get()
    }

    @Test func echoesASaneRequestIDAndMakesOneOtherwise() async throws {
        try await Self.withRouterApp { client, _ in
            try await client.execute(uri: "/health/live", method: .get, headers: [.init("X-Request-Id")!: "trace-42"]) {
                #expect($0.status == .ok)
                #expect($0.headers[.init("X-Request-Id")!] == "trace-42")
            }
            try await client.execute(
                uri: "/health/live", method: .get, headers: [.init("X-Request-Id")!: "no spaces allowed"]
            ) {
                #expect($0.headers[.init("X-Request-Id")!]?.count == 24)
            }
        }
    }

    @Test func everyErrorIsTheMendShapeWithTheRequestIDAsReference() async throws {
        try await Self.withRouterApp { client, _ in
            let cases: [(String, HTTPRequest.Method, ByteBuffer?, HTTPResponse.Status, String)] = [
                ("/nowhere", .get, nil, .notFound, "rest/404"),
                ("/v1/session", .delete, nil, .methodNotAllowed, "http/405"),
                ("/v1/login/code", .post, ByteBuffer(string: "{not json"), .badRequest, "rest/400"),
                ("/v1/session", .get, nil, .unauthorized, "session/3"),
                (
                    "/v1/session/refresh", .post, ByteBuffer(string: #"{"refresh_token":"mrt_x"}"#), .unauthorized,
                    "session/16"
                ),
                ("/v1/session/logout", .post, nil, .unauthorized, "session/3"),
                (
                    "/v1/session/revoke", .post, ByteBuffer(string: "token_type_hint=access_token"), .badRequest,
                    "rest/400"
                ),
                (
                    "/v1/login/code", .post, ByteBuffer(string: String(repeating: "x", count: 70_000)),
                    .contentTooLarge,
                    "http/413"
                ),
            ]
            for (uri, method, body, status, identity) in cases {
                try await client.execute(uri: uri, method: method, body: body) { response in
                    #expect(response.status == status, "\(method) \(uri)")
                    let requestID = try #require(response.headers[.init("X-Request-Id")!])
                    let json = try #require(Self.json(response))
                    let error = try #require(MendError(wireBody: json, catalog: .login))
                    #expect("\(error.code)" == identity)
                    #expect(error.referenceID == requestID)
                    #expect(json["error"]?["category"]?.stringValue == error.category.rawValue)
                    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                }
            }
        }
    }

    @Test(
        "A request head over the parser's limit (a 100 KB query value) gets the Mend error shape, not a bare 400",
        arguments: [9_000, 100_000])
    func anOversizedHeadIsTheMendShape(length: Int) async throws {
        try await TestStack.run { stack in
            let refused = await stack.client.failure {
                try await stack.client.get("/v1/admin/users?query=" + String(repeating: "a", count: length))
            }
            let oversized = length > 80_000
            #expect(refused?.httpStatus == (oversized ? 400 : 404))
            #expect(refused?.code == (oversized ? .REST.badRequest : .REST.notFound), "\(String(describing: refused))")
            #expect(refused?.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(refused?.referenceID != nil && refused?.referenceID == refused?.header("X-Request-Id"))
            if length > 80_000 { #expect(refused?.developerMessage.contains("larger than the server reads") == true) }
        }
    }

    @Test func anUnknownFailureIsNeverABare500() async throws {
        // The database is closed under the server: the route fails inside, the answer is still the Mend shape.
        try await Self.withRouterApp { client, backend in
            await backend.close()
            try await client.execute(
                uri: "/v1/session/refresh", method: .post, body: ByteBuffer(string: #"{"refresh_token":"mrt_x"}"#)
            ) { response in
                #expect(response.status == .internalServerError)
                let error = try #require(Self.json(response).flatMap { MendError(wireBody: $0, catalog: .login) })
                #expect(error.code == .REST.internalServerError)
                #expect(error.category == .transient)
            }
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(
                    Self.json(response).flatMap { MendError(wireBody: $0, catalog: .login) }?.code
                        == .REST.dataAccessError)
            }
        }
    }

    @Test func healthReadinessAndMetrics() async throws {
        try await Self.withRouterApp { client, _ in
            try await client.execute(uri: "/health/live", method: .get) {
                #expect(Self.json($0)?["status"]?.stringValue == "ok")
            }
            try await client.execute(uri: "/health/ready", method: .get) {
                #expect($0.status == .ok)
                #expect(Self.json($0)?["status"]?.stringValue == "ready")
            }
            try await client.execute(uri: "/nowhere", method: .get) { _ in }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("mend_http_requests_total"))
                #expect(text.contains(#"route="/health/ready""#))
                #expect(text.contains(#"status="404""#))
                #expect(text.contains("mend_http_request_duration_seconds_bucket"))
            }
        }
    }

    @Test func theOpenAPIDocumentMatchesTheRoutes() async throws {
        try await Self.withRouterApp { client, _ in
            let document = try await client.execute(uri: "/openapi.json", method: .get) { Self.json($0) }
            let paths = try #require(document?["paths"]?.objectValue)
            var documented: Set<String> = []
            for (path, operations) in paths {
                for method in operations.objectValue?.keys ?? [:].keys {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
            let expected: Set<String> = [
                "POST /v1/login/code", "POST /v1/login/id_token", "POST /v1/login/provider-token",
                "POST /v1/session/refresh", "POST /v1/session/logout", "GET /v1/sessions", "DELETE /v1/sessions/{id}",
                "POST /v1/session/revoke", "GET /v1/session",
                "GET /v1/me", "GET /v1/me/activity", "DELETE /v1/me", "GET /.well-known/jwks.json",
                "POST /v1/provider/deauthorize",
                "POST /v1/provider/data-deletion", "GET /v1/provider/deletion/{code}", "GET /health/live",
                "GET /health/ready", "GET /metrics", "GET /openapi.json",
            ]
            #expect(documented == expected)
            #expect(document?["openapi"]?.stringValue == "3.1.0")
            // Every documented operation is served (none answers "No endpoint").
            for operation in documented {
                let parts = operation.split(separator: " ")
                let uri = String(parts[1]).replacingOccurrences(of: "{code}", with: "ABC")
                try await client.execute(
                    uri: uri, method: HTTPRequest.Method(String(parts[0]))!, body: ByteBuffer(string: "{}")
                ) { response in
                    let message = Self.json(response)?["error"]?["message"]?.stringValue ?? ""
                    #expect(!message.contains("No endpoint"), "\(operation)")
                }
            }
            // Every referenced schema exists.
            let schemas = try #require(document?["components"]?["schemas"]?.objectValue)
            let text = document?.jsonText() ?? ""
            for match in text.matches(of: /#\/components\/schemas\/(\w+)/) {
                #expect(schemas[String(match.1)] != nil, "\(match.1)")
            }
        }
    }

    @Test func rateLimitsAnswer429WithRetryAfter() async throws {
        try await TestStack.run(configure: {
            $0.sessions.rateLimits = .init(
                loginPerAddress: RateLimitRule(requests: 2, per: .seconds(60)), loginPerUser: nil,
                refreshPerAddress: RateLimitRule(requests: 3, per: .seconds(60)), refreshPerUser: nil)
        }) { stack in
            let start = ContinuousClock.now
            _ = try await stack.login()
            _ = try await stack.login()
            let limited = await stack.client.failure { try await stack.login() }
            // One login every 30 s: the wait is 30 s less the time the logins took (seconds on a loaded machine).
            let elapsed = Int((ContinuousClock.now - start).components.seconds) + 1
            #expect(limited?.httpStatus == 429)
            #expect(limited?.code == .HTTP.tooManyRequests)
            #expect(limited?.category == .transient)
            #expect(limited?.recovery.action == .waitForRateLimit)
            let retryAfter = try #require(limited?.header("Retry-After").flatMap(Int.init))
            #expect((30 - elapsed...30).contains(retryAfter))
            #expect(limited?.recovery.notBefore != nil)

            // A new client: MendHTTP's rate-limit gate rightly holds the first one until Retry-After has passed.
            let client = ServerClient(stack.server.baseURL)
            for _ in 0..<3 {
                _ = await client.failure {
                    try await client.post("/v1/session/refresh", json: .object(["refresh_token": .string("mrt_x")]))
                }
            }
            let refresh = await client.failure {
                try await client.post("/v1/session/refresh", json: .object(["refresh_token": .string("mrt_x")]))
            }
            #expect(refresh?.httpStatus == 429)
            #expect(refresh?.header("Retry-After") != nil)
            // The limit counts per address: another forwarded address would pass when the proxy is trusted.
        }
    }

    /// One trusted proxy and one refresh per address per minute: how each forwarded-address test starts.
    static func withOneRefreshPerAddress(_ body: (TestStack) async throws -> Void) async throws {
        try await TestStack.run(
            configure: {
                $0.listening.trustedProxyCount = 1
                $0.sessions.rateLimits = .init(
                    loginPerAddress: nil, loginPerUser: nil,
                    refreshPerAddress: RateLimitRule(requests: 1, per: .seconds(60)), refreshPerUser: nil)
            }, body)
    }

    /// The HTTP status of a refresh with an unknown token (401 unless rate limited) sent with `forwardedFor`.
    static func refreshStatus(_ client: ServerClient, forwardedFor: String) async -> Int? {
        await client.failure {
            try await client.post(
                "/v1/session/refresh", json: .object(["refresh_token": .string("mrt_x")]),
                headers: [.init("X-Forwarded-For")!: forwardedFor])
        }?.httpStatus
    }

    @Test("Behind one trusted proxy the client is X-Forwarded-For's last entry: a spoofed first entry changes nothing")
    func forwardedForCountsFromTheRight() async throws {
        try await Self.withOneRefreshPerAddress { stack in
            // The proxy appends the address it saw (198.51.100.7); the client wrote the entries before it.
            #expect(await Self.refreshStatus(stack.client, forwardedFor: "203.0.113.1, 198.51.100.7") == 401)
            #expect(
                await Self.refreshStatus(stack.client, forwardedFor: "203.0.113.2, 198.51.100.7") == 429,
                "a new first entry must not buy a new allowance")
            // Fewer entries than trusted proxies: the request did not come through them; the peer is the client.
            // (A new client: MendHTTP's gate rightly holds the first one after its 429.)
            #expect(await Self.refreshStatus(ServerClient(stack.server.baseURL), forwardedFor: "") == 401)
        }
    }

    @Test("IPv6 clients are limited per /64: another address of the same network gets no new allowance")
    func ipv6ClientsAreLimitedPerNetwork() async throws {
        try await Self.withOneRefreshPerAddress { stack in
            #expect(await Self.refreshStatus(stack.client, forwardedFor: "2001:db8:1:2::1") == 401)
            #expect(await Self.refreshStatus(stack.client, forwardedFor: "2001:db8:1:2:ffff::99") == 429)
        }
    }

    @Test func perUserLimitsCountTheUserNotTheAddress() async throws {
        try await TestStack.run(configure: {
            $0.listening.trustedProxyCount = 2
            $0.sessions.rateLimits = .init(
                loginPerAddress: nil, loginPerUser: nil,
                refreshPerAddress: RateLimitRule(requests: 1, per: .seconds(60)),
                refreshPerUser: RateLimitRule(requests: 2, per: .seconds(60)))
        }) { stack in
            var refresh = try #require(try await stack.login()["refresh_token"])
            for index in 0..<2 {
                refresh = try #require(
                    try await stack.client.post(
                        "/v1/session/refresh", json: .object(["refresh_token": refresh]),
                        headers: [.init("X-Forwarded-For")!: "203.0.113.\(index), 10.0.0.1"]
                    ).json()["refresh_token"])
            }
            let limited = await stack.client.failure {
                try await stack.client.post(
                    "/v1/session/refresh", json: .object(["refresh_token": refresh]),
                    headers: [.init("X-Forwarded-For")!: "203.0.113.9, 10.0.0.1"])
            }
            #expect(limited?.httpStatus == 429)
            #expect(limited?.developerMessage.contains("per user") == true)
        }
    }

    @Test func logsNeverCarryTokensCodesOrSecrets() async throws {
        let capture = LogCapture()
        var logger = capture.logger(label: "mend.server", level: .trace)
        logger.logLevel = .trace
        try await TestStack.run(logger: logger, configure: { $0.providers.returnsProviderToken = true }) { stack in
            let body = try await stack.emulator.loginCodeBody()
            let code = try #require(body["code"]?.stringValue)
            let verifier = try #require(body["code_verifier"]?.stringValue)
            let session = try await stack.client.post("/v1/login/code", json: body).json()
            let refreshed = try await stack.client.post(
                "/v1/session/refresh", json: .object(["refresh_token": session["refresh_token"]!])
            ).json()
            // A replay within the grace, then reuse after it: both paths log, neither logs a token.
            let replayed = try await stack.client.refresh(session["refresh_token"])
            stack.clock.advance(by: 61)
            _ = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
            try await stack.emulator.inject(error: "graph/190/460", path: "/me")
            _ = await stack.client.failure { try await stack.login() }
            let text = capture.text
            #expect(text.contains("request"))
            #expect(text.contains("request_id"))
            #expect(text.contains("refresh replayed within the grace window"))
            #expect(text.contains("refresh token reuse detected"))
            let secrets = [
                code, verifier, "0123456789abcdef0123456789abcdef", session["access_token"]!.stringValue!,
                session["refresh_token"]!.stringValue!, session["provider_token"]!.stringValue!,
                refreshed["access_token"]!.stringValue!, refreshed["refresh_token"]!.stringValue!,
                replayed["access_token"]!.stringValue!,
            ]
            for secret in secrets { #expect(!text.contains(secret)) }
        }
    }
}

/// Why a router test could not run.
enum OperationsTestError: Error {
    /// Hummingbird's `Application` needs macOS 14, iOS 17 or tvOS 17.
    case requiresNewerSystem
}
