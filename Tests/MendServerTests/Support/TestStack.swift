import Foundation
import HTTPTypes
import Logging
import MendCore
import MendEmulator
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import SQLKit
import Testing

@testable import MendServer

/// Which database a test runs on. PostgreSQL runs when `MEND_TEST_POSTGRES_URL` names a server (scripts/test
/// installs and starts one); each test gets a database of its own.
enum TestDatabase: String, CustomTestStringConvertible, Sendable, CaseIterable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The admin URL of the test PostgreSQL server, if there is one.
    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["MEND_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SQLite always; PostgreSQL when available.
    static var available: [TestDatabase] {
        postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    static let postgresSkipReason: Comment =
        "PostgreSQL tests skipped: MEND_TEST_POSTGRES_URL is not set (scripts/test installs and starts PostgreSQL)"

    /// Runs `body` with a fresh database URL of this kind, dropping a PostgreSQL database afterwards.
    func withURL<T>(_ body: (String) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            return try await body("sqlite::memory:")
        case .postgres:
            guard let admin = Self.postgresURL else { throw SkipFailure() }
            return try await PostgresTestDatabase.with(adminURL: admin, body)
        }
    }

    struct SkipFailure: Error {}
}

/// Creates and drops throwaway PostgreSQL databases.
enum PostgresTestDatabase {
    static func with<T>(adminURL: String, _ body: (String) async throws -> T) async throws -> T {
        let name = "mend_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))"
        let admin = try await ServerDatabase.open(.postgres(url: adminURL), logger: Logger(label: "test"))
        try await admin.sql.raw("CREATE DATABASE \(unsafeRaw: name)").run()
        var components = URLComponents(string: adminURL)!
        components.path = "/\(name)"
        do {
            let value = try await body(components.string!)
            try? await admin.sql.raw("DROP DATABASE \(unsafeRaw: name) WITH (FORCE)").run()
            await admin.close()
            return value
        } catch {
            try? await admin.sql.raw("DROP DATABASE \(unsafeRaw: name) WITH (FORCE)").run()
            await admin.close()
            throw error
        }
    }
}

final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // Every access goes through the lock.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { self.stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        change(&stored)
    }
}

/// The emulator, a live server in front of it, a client, and the test clock.
struct TestStack: Sendable {
    let emulator: RunningEmulator
    let server: RunningMendServer
    let client: ServerClient
    let clock: OffsetClock

    /// Runs the emulator and a live server on `database` for the duration of `body`.
    static func run<T>(
        database: TestDatabase = .sqlite, emulatorConfiguration: EmulatorConfiguration = EmulatorConfiguration(),
        logger: Logger? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestStack) async throws -> T
    ) async throws -> T {
        try await withEmulator(configuration: emulatorConfiguration) { emulator in
            try await database.withURL { url in
                let clock = OffsetClock()
                var configuration = ServerConfiguration.forEmulator(emulator)
                configuration.storage.databaseURL = url
                configuration.sessions.rateLimits = .unlimited
                configuration.clock = clock.pipeline()
                await configuration.useAppleCredentials(of: emulator)
                configure(&configuration)
                return try await withMendServer(configuration: configuration, logger: logger) { server in
                    try await body(
                        TestStack(
                            emulator: emulator, server: server, client: ServerClient(server.baseURL), clock: clock))
                }
            }
        }
    }

    /// Logs in through the server with a fresh code from the emulator's dialog.
    func login(
        scopes: [String] = ["public_profile", "email"], grant: [String]? = nil, userID: String? = nil,
        redirectURI: String = "https://app.example/callback"
    ) async throws -> JSONValue {
        let body = try await emulator.loginCodeBody(
            scopes: scopes, grant: grant, redirectURI: redirectURI, userID: userID)
        return try await client.post("/v1/login/code", json: body).json()
    }
}

/// A plain MendHTTP client for the server: errors decoded by `MendServiceErrorDecoder`, no retries.
struct ServerClient: Sendable {
    let baseURL: URL
    let client: APIClient

    init(_ baseURL: URL) {
        self.baseURL = baseURL
        self.client = APIClient(
            transport: AsyncHTTPClientTransport(defaultTimeout: .seconds(30)),
            configuration: APIClient.Configuration(errorDecoder: MendServiceErrorDecoder()),
            steps: .standard(retryPolicy: .never))
    }

    func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path)! }

    func post(
        _ path: String, json: JSONValue, bearer: String? = nil, headers: HTTPFields = [:], expectsJSON: Bool = true
    ) async throws
        -> APIResponse
    {
        var fields = headers
        fields[.contentType] = "application/json"
        if let bearer { fields[.authorization] = "Bearer \(bearer)" }
        return try await client.send(
            APIRequest(
                method: .post, url: url(path), headers: fields, body: Data(json.jsonText().utf8),
                options: RequestOptions(expectsJSON: expectsJSON)))
    }

    func postForm(_ path: String, form: String, expectsJSON: Bool = true) async throws -> APIResponse {
        try await client.send(
            APIRequest(
                method: .post, url: url(path), headers: [.contentType: "application/x-www-form-urlencoded"],
                body: Data(form.utf8), options: RequestOptions(expectsJSON: expectsJSON)))
    }

    /// `POST /v1/session/refresh`.
    func refresh(_ token: JSONValue?) async throws -> JSONValue {
        try await post("/v1/session/refresh", json: .object(["refresh_token": token ?? .null])).json()
    }

    func get(
        _ path: String, bearer: String? = nil, headers: HTTPFields = [:], expectsJSON: Bool = true
    ) async throws
        -> APIResponse
    {
        var fields = headers
        if let bearer { fields[.authorization] = "Bearer \(bearer)" }
        return try await client.send(
            APIRequest(
                method: .get, url: url(path), headers: fields, options: RequestOptions(expectsJSON: expectsJSON)))
    }

    /// `DELETE path` with a bearer.
    func delete(_ path: String, bearer: String) async throws -> APIResponse {
        try await client.send(
            APIRequest(method: .delete, url: url(path), headers: [.authorization: "Bearer \(bearer)"]))
    }

    /// The error a call fails with (a test failure if it succeeds).
    func failure<T>(
        _ call: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> MendError? {
        do {
            let response = try await call()
            Issue.record("expected a failure, got \(response)", sourceLocation: sourceLocation)
            return nil
        } catch let error as MendError {
            return error
        } catch {
            Issue.record("expected a MendError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

extension MendError {
    /// Whether this is the 401 with `code` and the RFC 6750 challenge a session error carries.
    func isSession(_ code: MendError.Code) -> Bool {
        let challenge =
            code == .Session.accessTokenMissing ? "Bearer" : #"Bearer error="invalid_token""#
        return self.code == code && httpStatus == 401 && header("WWW-Authenticate") == challenge
            && category == .recoverable
    }

    /// A response header, by case-insensitive name.
    func header(_ name: String) -> String? {
        response?.headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

extension JSONValue {
    var strings: [String] { arrayValue?.compactMap(\.stringValue) ?? [] }
}

extension ServerClient {
    /// Polls `GET /v1/session` until it refuses `access`; returns the refusal and when the first refused check
    /// started, after `start` (a revocation's commit). Records an issue for any check that started later than the
    /// revocation view's staleness bound after `start` and was still allowed: the bound the design guarantees on
    /// every instance, whatever the machine's load.
    func timeUntilRefused(
        _ access: String, since start: ContinuousClock.Instant, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (MendError, Duration) {
        while true {
            let began = ContinuousClock.now - start
            do {
                _ = try await get("/v1/session", bearer: access)
            } catch let error as MendError {
                return (error, began)
            }
            if began > RevocationFeed.stalenessBound {
                Issue.record(
                    "a revoked session was allowed \(began) after its revocation", sourceLocation: sourceLocation)
                throw RefusalTimeout()
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    struct RefusalTimeout: Error {}
}

/// Two live instances on one fresh PostgreSQL database, as behind a load balancer: one signing key, the rate limits
/// off unless `configure` sets them, and the test clock on both.
func withTwoPostgresInstances(
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (RunningEmulator, RunningMendServer, RunningMendServer, OffsetClock) async throws -> Void
) async throws {
    try await withEmulator { emulator in
        try await PostgresTestDatabase.with(adminURL: TestDatabase.postgresURL!) { url in
            let clock = OffsetClock()
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.storage.databaseURL = url
            configuration.sessions.rateLimits = .unlimited
            configuration.sessions.signingKeys = [.generate(keyID: "shared")]
            configuration.clock = clock.pipeline()
            configure(&configuration)
            try await withMendServer(configuration: configuration) { first in
                try await withMendServer(configuration: configuration) { second in
                    try await body(emulator, first, second, clock)
                }
            }
        }
    }
}
