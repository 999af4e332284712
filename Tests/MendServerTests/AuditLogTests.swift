import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin
import MendTesting
import SQLKit
import Testing

@testable import MendServer

/// The audit log: a scripted day of one user's authentication events, in order, on SQLite and PostgreSQL, with no
/// token, code or secret in the table or the logs.
@Suite struct AuditLogTests {
    @Test(
        "A scripted day — login, refresh, reuse, a refused sign-in, logout, deletion — is in the log in order",
        arguments: TestDatabase.available)
    func scriptedDay(database: TestDatabase) async throws {
        let capture = LogCapture()
        var logger = capture.logger(label: "mend.server", level: .trace)
        logger.logLevel = .trace
        try await TestStack.run(database: database, logger: logger) { stack in
            let body = try await stack.emulator.loginCodeBody()
            var secrets = [
                try #require(body["code"]?.stringValue), try #require(body["code_verifier"]?.stringValue),
                "0123456789abcdef0123456789abcdef",
            ]
            let first = try await stack.client.post(
                "/v1/login/code", json: body, headers: [SessionClient.header: "Diary/1.0 (iOS 18.1)"]
            ).json()
            let userID = try #require(first["user"]?["id"]?.stringValue)
            stack.clock.advance(by: 10)
            let second = try await stack.client.refresh(first["refresh_token"])
            stack.clock.advance(by: 61)
            // The first refresh token again, after the grace: reuse, the session revoked as stolen.
            _ = await stack.client.failure { try await stack.client.refresh(first["refresh_token"]) }
            // A sign-in with a tampered id_token is refused.
            _ = await stack.client.failure {
                try await stack.client.post(
                    "/v1/login/id_token",
                    json: .object([
                        "provider": .string("google"), "id_token": .string("eyJhbGciOiJSUzI1NiJ9.e30.c2ln"),
                        "nonce": .string("n"),
                    ]))
            }
            let third = try await stack.client.post("/v1/login/code", json: try await stack.emulator.loginCodeBody())
                .json()
            stack.clock.advance(by: 10)
            _ = try await stack.client.post(
                "/v1/session/logout", json: .object([:]), bearer: try #require(third["access_token"]?.stringValue),
                expectsJSON: false)
            let fourth = try await stack.client.post("/v1/login/code", json: try await stack.emulator.loginCodeBody())
                .json()
            let activity = try await stack.client.get(
                "/v1/me/activity", bearer: try #require(fourth["access_token"]?.stringValue)
            ).json()
            _ = try await stack.client.delete(
                "/v1/me", bearer: try #require(fourth["access_token"]?.stringValue))

            let events = try await stack.server.backend.store.audit.auditEvents(userID: nil, limit: 100).reversed()
            #expect(
                events.map(\.event) == [
                    // The deletion removes the user first (closing the race with a login), then ends the sessions.
                    "login", "refresh", "reuse_detected", "login_refused", "login", "logout", "login",
                    "account_deleted", "session_ended",
                ])
            let login = try #require(events.first)
            #expect(login.userID == userID && login.provider == "facebook" && login.detail == "code")
            #expect(login.client == "Diary/1.0" && login.address == "127.0.0.1")
            #expect(events.dropFirst().first?.sessionID == first["session_id"]?.stringValue)
            #expect(events.first { $0.event == "login_refused" }?.detail?.hasPrefix("id_token_rejected: login") == true)
            #expect(events.first { $0.event == "session_ended" }?.detail == "user_deleted: account deleted by the user")
            // The user's own view, newest first, before the deletion.
            #expect(
                activity["events"]?.arrayValue?.compactMap { $0["event"]?.stringValue } == [
                    "login", "logout", "login", "reuse_detected", "refresh", "login",
                ])

            secrets += [first, second, third, fourth].flatMap { session in
                ["access_token", "refresh_token"].compactMap { session[$0]?.stringValue }
            }
            let rows = try await stack.server.backend.database.sql.raw("SELECT * FROM mend_audit").all()
            let table = try rows.map { row in
                try row.allColumns.map { try row.decode(column: $0, as: String?.self) ?? "" }.joined(separator: " ")
            }.joined(separator: "\n")
            for secret in secrets {
                #expect(!table.contains(secret), "a secret in the audit table")
                #expect(!capture.text.contains(secret), "a secret in the logs")
            }
            // Every event, the triggers' too, is also one structured `audit` log line with the same fields.
            func fields(_ event: String?, _ user: String?, _ session: String?, _ detail: String?) -> String {
                [event, user, session, detail].map { $0 ?? "-" }.joined(separator: " ")
            }
            let lines = capture.records.filter { $0.message == "audit" }.map { line in
                fields(
                    line.metadata["event"], line.metadata["user_id"], line.metadata["session_id"],
                    line.metadata["detail"])
            }
            #expect(lines.sorted() == events.map { fields($0.event, $0.userID, $0.sessionID, $0.detail) }.sorted())
        }
    }

    @Test(
        "Every rotation is a refresh event, three within one second too (the trigger watched a whole-second time)",
        arguments: TestDatabase.available)
    func refreshesWithinOneSecond(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            var session = try await stack.login()
            for _ in 0..<3 {  // the test clock does not move: all three in the same second
                session = try await stack.client.refresh(session["refresh_token"])
            }
            let events = try await stack.server.backend.store.audit.auditEvents(userID: nil, limit: 10).reversed()
            #expect(events.map(\.event) == ["login", "refresh", "refresh", "refresh"])
        }
    }

    @Test func oldEventsArePrunedAfterTheRetention() async throws {
        try await TestStack.run(configure: { $0.storage.auditRetention = .seconds(3600) }) { stack in
            _ = try await stack.login()
            stack.clock.advance(by: 3601)
            _ = try await stack.login()
            await stack.server.backend.checkProviderTokens(force: true)
            let events = try await stack.server.backend.store.audit.auditEvents(userID: nil, limit: 10)
            #expect(events.map(\.event) == ["login"], "the first login's event is past the retention")
        }
    }
}
