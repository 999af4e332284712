import Foundation
import HTTPTypes
import Logging
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import SQLKit
import Testing

@testable import MendServer

/// Several instances behind a load balancer share PostgreSQL and stay correct.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct PostgresInstancesTests {
    static let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        try await withEmulator { emulator in
            try await PostgresTestDatabase.with(adminURL: TestDatabase.postgresURL!) { url in
                var configuration = ServerConfiguration.forEmulator(emulator)
                configuration.storage.databaseURL = url
                async let first = LoginBackend.open(configuration: configuration, logger: Self.silent)
                async let second = LoginBackend.open(configuration: configuration, logger: Self.silent)
                async let third = LoginBackend.open(configuration: configuration, logger: Self.silent)
                let backends = try await [first, second, third]
                let versions = try await backends[0].database.sql.raw("SELECT version FROM mend_schema_migrations")
                    .all().map { try $0.decode(column: "version", as: Int.self) }
                #expect(versions == Migrations.all.map(\.version))
                for backend in backends { await backend.close() }
            }
        }
    }

    @Test func concurrentRefreshesOnTwoInstancesAnswerTheSameSuccessor() async throws {
        try await withTwoPostgresInstances { emulator, first, second, clock in
            let clients = [ServerClient(first.baseURL), ServerClient(second.baseURL)]
            var session = try await clients[0].post(
                "/v1/login/code", json: try await emulator.loginCodeBody()
            ).json()
            // A session from one instance is valid on the other.
            _ = try await clients[1].get("/v1/session", bearer: session["access_token"]!.stringValue!)

            for _ in 0..<5 {
                let token = session["refresh_token"]!
                // Two refreshes of one token on each instance, all at once.
                let outcomes = await withTaskGroup(of: (Int, JSONValue?).self) { group in
                    for client in clients + clients {
                        group.addTask {
                            do {
                                return (200, try await client.refresh(token))
                            } catch let error as MendError {
                                return (error.httpStatus ?? -1, nil)
                            } catch {
                                return (-1, nil)
                            }
                        }
                    }
                    return await group.reduce(into: [(Int, JSONValue?)]()) { $0.append($1) }
                }
                #expect(outcomes.map(\.0) == [200, 200, 200, 200])
                let successors = Set(outcomes.compactMap { $0.1?["refresh_token"]?.stringValue })
                #expect(successors.count == 1)
                #expect(successors.first != token.stringValue)
                session = try #require(outcomes.first { $0.0 == 200 }?.1)
            }

            // Reuse after the grace window on one instance revokes the family everywhere.
            let current = session
            let stale = try await clients[1].post(
                "/v1/session/refresh", json: .object(["refresh_token": current["refresh_token"]!])
            ).json()
            _ = stale
            clock.advance(by: 61)
            let reuse = await clients[0].failure { try await clients[0].refresh(current["refresh_token"]) }
            #expect(reuse?.isSession(.Session.refreshTokenReused) == true)
            // The other instance learns of it by notification: refused within the staleness bound.
            let (revoked, _) = try await clients[1].timeUntilRefused(
                stale["access_token"]!.stringValue!, since: .now)
            #expect(revoked.isSession(.Session.refreshTokenReused))
        }
    }
}

/// Rate limits on PostgreSQL are one bucket per key for every instance, not one per instance.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct SharedRateLimitTests {
    @Test func twoInstancesTogetherAllowWhatOneRuleAllows() async throws {
        try await withTwoPostgresInstances(configure: {
            $0.sessions.rateLimits.refreshPerAddress = RateLimitRule(requests: 4, per: .seconds(600))
        }) { _, first, second, clock in
            let clients = [ServerClient(first.baseURL), ServerClient(second.baseURL)]
            // Four refreshes in all, alternating instances: each is refused as unknown (401), none limited.
            for attempt in 0..<4 {
                let client = clients[attempt % 2]
                let error = await client.failure { try await client.refresh(.string("mrt_unknown")) }
                #expect(error?.code == .Session.refreshTokenUnknown, "attempt \(attempt)")
            }
            // The fifth, on either instance, is over the one shared allowance: 429 with Retry-After.
            for client in clients {
                let limited = await client.failure { try await client.refresh(.string("mrt_unknown")) }
                #expect(limited?.httpStatus == 429)
                #expect(
                    limited?.header("Retry-After").flatMap(Int.init).map { $0 >= 1 && $0 <= 150 } == true)
            }
            // A token comes back after 600 s / 4 (a new client: the old ones hold their own throttle).
            clock.advance(by: 151)
            let fresh = ServerClient(second.baseURL)
            let error = await fresh.failure { try await fresh.refresh(.string("mrt_unknown")) }
            #expect(error?.code == .Session.refreshTokenUnknown)
        }
    }
}
