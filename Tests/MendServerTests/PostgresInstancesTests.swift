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

/// A DPoP-bound session on two instances sharing PostgreSQL: the stored access token is refused on either without a
/// proof, with another key's, for another URL or method, and with a proof the other instance already accepted.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct PostgresDPoPTests {
    @Test func aBoundTokenIsRefusedOnEitherInstanceWithoutItsProofOrWithAReplayedOne() async throws {
        // Both instances behind one public URL, as behind a load balancer: a proof names that URL.
        let publicURL = URL(string: "https://login.example")!
        try await withTwoPostgresInstances(configure: { $0.listening.publicURL = publicURL }) {
            emulator, first, second, _ in
            var clients = [try ProvingClient(first.baseURL), try ProvingClient(second.baseURL)]
            clients[0].publicURL = publicURL
            let session = try await clients[0].login(emulator)
            let access = try #require(session["access_token"]?.stringValue)
            #expect(confirmationKey(of: access) == clients[0].key.thumbprint)
            var stranger = try ProvingClient(first.baseURL)
            stranger.publicURL = publicURL
            for (index, url) in [first.baseURL, second.baseURL].enumerated() {
                // The same key, as the session's client would use it against this instance.
                let client = ProvingClient(
                    server: ServerClient(url), key: clients[0].key, signer: clients[0].signer, publicURL: publicURL)
                let good = try client.proof("GET", "/v1/me", accessToken: access)
                _ = try await client.get("/v1/me", token: access, proof: good)
                let refusals: [(String, () async throws -> JSONValue)] = [
                    ("bearer", { try await client.get("/v1/me", token: access, scheme: "Bearer", proof: nil) }),
                    ("no proof", { try await client.get("/v1/me", token: access, proof: nil) }),
                    (
                        "another key",
                        {
                            try await client.get(
                                "/v1/me", token: access,
                                proof: try client.proof("GET", "/v1/me", accessToken: access, signer: stranger.signer))
                        }
                    ),
                    (
                        "another URL",
                        {
                            try await client.get(
                                "/v1/me", token: access,
                                proof: try client.proof("GET", "/v1/session", accessToken: access))
                        }
                    ),
                    (
                        "another method",
                        {
                            try await client.get(
                                "/v1/me", token: access,
                                proof: try client.proof("DELETE", "/v1/me", accessToken: access))
                        }
                    ),
                    // The proof this instance accepted, replayed to the other: the shared table refuses it there.
                    (
                        "replayed on the other instance",
                        {
                            let other = ServerClient([first.baseURL, second.baseURL][1 - index])
                            var headers: HTTPFields = [.authorization: "DPoP \(access)"]
                            headers[.dpop] = good
                            return try await other.get("/v1/me", headers: headers).json()
                        }
                    ),
                ]
                for (what, call) in refusals {
                    let refused = await client.server.failure(call)
                    #expect(refused?.code == .Session.dpopProofInvalid, "instance \(index + 1), \(what)")
                }
            }
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
