import Foundation
import HTTPTypes
import JWTKit
import Logging
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendLogin
import MendTesting
import SQLKit
import Testing

@testable import MendServer

/// Refresh rotation (idempotent within the grace, reuse detection after it), the session codes, logout, token
/// revocation, introspection, the profile and the JWKS, on SQLite and PostgreSQL.
@Suite struct SessionTests {
    @Test(arguments: TestDatabase.available)
    func refreshIsIdempotentWithinTheGraceAndDetectsReuse(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let first = try await stack.login()
            let sessionID = try #require(first["session_id"]?.stringValue)
            #expect(sessionID.hasPrefix("ses_"))
            let firstRefresh = try #require(first["refresh_token"]?.stringValue)
            let second = try await stack.client.refresh(.string(firstRefresh))
            let secondRefresh = try #require(second["refresh_token"]?.stringValue)
            #expect(secondRefresh != firstRefresh)
            #expect(second["access_token"] != first["access_token"])
            #expect(second["session_id"]?.stringValue == sessionID)
            #expect(second["user"] == first["user"])
            #expect(second["token_type"]?.stringValue == "Bearer")
            #expect(second["provider_token"] == nil)

            // The same token again (the answer was lost): the same successor, with a fresh access token.
            stack.clock.advance(by: 30)
            let replayed = try await stack.client.refresh(.string(firstRefresh))
            #expect(replayed["refresh_token"]?.stringValue == secondRefresh)
            #expect(replayed["session_id"]?.stringValue == sessionID)
            #expect(replayed["user"] == first["user"])
            let replayedAccess = try #require(replayed["access_token"]?.stringValue)
            #expect(replayedAccess != second["access_token"]?.stringValue)
            #expect(
                try await stack.client.get("/v1/session", bearer: replayedAccess).json()["session_id"]
                    == .string(sessionID))
            #expect(try #require(replayed["refresh_expires_in"]?.intValue) <= 2_592_000 - 30)

            // The successor is used; the old token after that is reuse, and the whole family is revoked.
            let third = try await stack.client.refresh(.string(secondRefresh))
            let reuse = await stack.client.failure { try await stack.client.refresh(.string(firstRefresh)) }
            #expect(reuse?.isSession(.Session.refreshTokenReused) == true)
            #expect(reuse?.name == "refreshTokenReused")
            #expect(reuse.map { MendError.Code.Session.endsSession($0.code) } == true)
            let family = await stack.client.failure { try await stack.client.refresh(third["refresh_token"]) }
            #expect(family?.isSession(.Session.refreshTokenReused) == true)
            #expect(family?.developerMessage.contains("reused") == true)
            let introspection = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: third["access_token"]!.stringValue!)
            }
            #expect(introspection?.isSession(.Session.refreshTokenReused) == true)
            let row = try #require(try await stack.server.backend.store.sessions.session(id: sessionID))
            #expect(row.revokedReason == "refresh_token_reused")
        }
    }

    @Test(arguments: TestDatabase.available)
    func anOldTokenAfterTheGraceIsReuse(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            #expect(stack.server.backend.configuration.sessions.refreshReuseGrace == .seconds(60))
            let first = try await stack.login()
            let second = try await stack.client.refresh(first["refresh_token"])
            // The successor is unused, but the grace is over.
            stack.clock.advance(by: 61)
            let reuse = await stack.client.failure { try await stack.client.refresh(first["refresh_token"]) }
            #expect(reuse?.isSession(.Session.refreshTokenReused) == true)
            let successor = await stack.client.failure { try await stack.client.refresh(second["refresh_token"]) }
            #expect(successor?.isSession(.Session.refreshTokenReused) == true)
        }
    }

    @Test(arguments: TestDatabase.available)
    func concurrentRefreshesOfOneTokenAllGetTheSameSuccessor(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            let refresh = try #require(session["refresh_token"]?.stringValue)
            let results = await withTaskGroup(of: Result<JSONValue, MendError>.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            return .success(try await stack.client.refresh(.string(refresh)))
                        } catch let error as MendError {
                            return .failure(error)
                        } catch {
                            return .failure(
                                MendError(
                                    code: .Transport.invalidRequest, developerMessage: "\(error)", catalog: .login))
                        }
                    }
                }
                return await group.reduce(into: [Result<JSONValue, MendError>]()) { $0.append($1) }
            }
            let bodies = results.compactMap { try? $0.get() }
            #expect(bodies.count == 8, "\(results)")
            let successors = Set(bodies.compactMap { $0["refresh_token"]?.stringValue })
            #expect(successors.count == 1)
            #expect(successors.first != refresh)
            #expect(Set(bodies.compactMap { $0["access_token"]?.stringValue }).count == 8)
            #expect(Set(bodies.compactMap { $0["session_id"]?.stringValue }) == [session["session_id"]!.stringValue!])
            // One successor row was written: the family holds the first token and that one.
            let rows = try await stack.server.backend.database.sql.raw(
                "SELECT token_hash FROM mend_refresh_tokens WHERE session_id = \(bind: session["session_id"]!.stringValue!)"
            ).all()
            #expect(rows.count == 2)
            // The successor works.
            let next = try await stack.client.refresh(.string(try #require(successors.first)))
            #expect(next["refresh_token"]?.stringValue != successors.first)
        }
    }

    @Test(arguments: TestDatabase.available)
    func theDatabaseNeverHoldsAUsableRefreshToken(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let first = try #require(try await stack.login()["refresh_token"]?.stringValue)
            let second = try #require(try await stack.client.refresh(.string(first))["refresh_token"]?.stringValue)
            let sql = stack.server.backend.database.sql
            let row = try #require(
                try await sql.raw(
                    "SELECT replaced_by, successor_sealed FROM mend_refresh_tokens WHERE token_hash = \(bind: OpaqueToken.hash(first))"
                ).first())
            let sealed = try #require(try row.decode(column: "successor_sealed", as: String?.self))
            #expect(sealed != second)
            #expect(!sealed.contains(second))
            #expect(!sealed.contains(String(second.dropFirst(4))))
            #expect(try row.decode(column: "replaced_by", as: String.self) == OpaqueToken.hash(second))
            // Only the old token opens it.
            #expect(SuccessorSeal.open(sealed, with: first) == second)
            #expect(SuccessorSeal.open(sealed, with: OpaqueToken.hash(first)) == nil)
            // No column of any row holds either token.
            let columns = "token_hash, session_id, replaced_by, successor_sealed"
            for row in try await sql.raw("SELECT \(unsafeRaw: columns) FROM mend_refresh_tokens").all() {
                for column in ["token_hash", "session_id", "replaced_by", "successor_sealed"] {
                    let value = try row.decode(column: column, as: String?.self) ?? ""
                    #expect(!value.contains(first) && !value.contains(second), "\(column)")
                }
            }
        }
    }

    @Test func unknownAndExpiredRefreshTokensAreRefused() async throws {
        try await TestStack.run { stack in
            let unknown = await stack.client.failure { try await stack.client.refresh(.string("mrt_nope")) }
            #expect(unknown?.isSession(.Session.refreshTokenUnknown) == true)
            let session = try await stack.login()
            stack.clock.advance(by: 2_592_000 + 1)
            let expired = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
            #expect(expired?.isSession(.Session.sessionExpired) == true)
            let missing = await stack.client.failure { try await stack.client.refresh(.string("")) }
            #expect(missing?.code == .REST.badRequest)
        }
    }

    @Test(arguments: TestDatabase.available)
    func introspectsTheSession(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            let body = try await stack.client.get("/v1/session", bearer: access).json()
            #expect(body["valid"] == .bool(true))
            #expect(body["user_id"] == session["user"]?["id"])
            #expect(Set(body["scopes"]?.strings ?? []) == ["public_profile", "email"])
            #expect(body["session_id"] == session["session_id"])
            let expiresAt = try #require(body["expires_at"]?.intValue)
            #expect(abs(expiresAt - Int(stack.clock.now.timeIntervalSince1970) - 900) <= 2)

            // No token, or no bearer: session/3.
            for headers: HTTPFields in [[:], [.authorization: "Basic dXNlcjpwYXNz"], [.authorization: "Bearer  "]] {
                let missing = await stack.client.failure {
                    try await stack.client.get("/v1/session", headers: headers)
                }
                #expect(missing?.isSession(.Session.accessTokenMissing) == true, "\(headers)")
                #expect(missing.map { MendError.Code.Session.endsSession($0.code) } == false)
            }
            // A token that is not valid: session/2 (refresh, never sign out).
            let foreign = try await SessionSigner(
                configuration: [.generate(keyID: stack.server.backend.sessions.signer.signingKeyID)],
                issuer: "mend-server",
                audience: stack.server.backend.configuration.providers.facebook!.appID
            ).sign(
                AccessTokenClaims(
                    issuer: "mend-server", audience: stack.server.backend.configuration.providers.facebook!.appID,
                    subject: "u",
                    sessionID: "ses_x", scope: "", issuedAt: 0, expiresAt: Int64.max / 2, tokenID: "j"))
            for bad in ["garbage", access + "x", String(access.dropLast(4)), foreign] {
                let error = await stack.client.failure { try await stack.client.get("/v1/session", bearer: bad) }
                #expect(error?.isSession(.Session.accessTokenInvalid) == true)
                #expect(error.map { MendError.Code.Session.endsSession($0.code) } == false)
            }
            // Expired: session/1; a refresh gives a working one.
            stack.clock.advance(by: 901)
            let expired = await stack.client.failure { try await stack.client.get("/v1/session", bearer: access) }
            #expect(expired?.isSession(.Session.accessTokenExpired) == true)
            #expect(expired?.name == "accessTokenExpired")
            #expect(expired.map { MendError.Code.Session.endsSession($0.code) } == false)
            let refreshed = try await stack.client.refresh(session["refresh_token"])
            _ = try await stack.client.get("/v1/session", bearer: refreshed["access_token"]!.stringValue!)
        }
    }

    @Test(arguments: TestDatabase.available)
    func logoutRevokesTheSession(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            let other = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            let response = try await stack.client.post(
                "/v1/session/logout",
                json: .object(["refresh_token": session["refresh_token"]!, "revoke_provider_permissions": .bool(false)]
                ),
                bearer: access)
            #expect(response.head.status.code == 204)
            let after = await stack.client.failure { try await stack.client.get("/v1/session", bearer: access) }
            #expect(after?.isSession(.Session.loggedOut) == true)
            #expect(after?.developerMessage.contains("logged out") == true)
            let refresh = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
            #expect(refresh?.isSession(.Session.loggedOut) == true)
            // Another session of the same user stays.
            _ = try await stack.client.get("/v1/session", bearer: other["access_token"]!.stringValue!)
            // Logging out without any usable credential is refused: session/3.
            let anonymous = await stack.client.failure {
                try await stack.client.post("/v1/session/logout", json: .object([:]))
            }
            #expect(anonymous?.isSession(.Session.accessTokenMissing) == true)
            let unknown = await stack.client.failure {
                try await stack.client.post(
                    "/v1/session/logout", json: .object(["refresh_token": .string("mrt_nope")]), bearer: "garbage")
            }
            #expect(unknown?.isSession(.Session.accessTokenMissing) == true)
            // A logout repeated with the same (now ended) session's refresh token is no error.
            let again = try await stack.client.post(
                "/v1/session/logout", json: .object(["refresh_token": session["refresh_token"]!]))
            #expect(again.head.status.code == 204)
            let row = try #require(
                try await stack.server.backend.store.sessions.session(id: session["session_id"]!.stringValue!))
            #expect(row.revokedReason == "logged_out")
        }
    }

    @Test(arguments: TestDatabase.available)
    func logoutWithTheRefreshTokenAloneWhenTheAccessTokenExpired(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            let bare = try await stack.login()
            stack.clock.advance(by: 901)  // past MEND_ACCESS_TOKEN_TTL
            let expired = try #require(session["access_token"]?.stringValue)
            let response = try await stack.client.post(
                "/v1/session/logout", json: .object(["refresh_token": session["refresh_token"]!]), bearer: expired)
            #expect(response.head.status.code == 204)
            let refresh = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
            #expect(refresh?.isSession(.Session.loggedOut) == true)
            // No Authorization header at all works the same.
            _ = try await stack.client.post(
                "/v1/session/logout", json: .object(["refresh_token": bare["refresh_token"]!]))
            let bareRefresh = await stack.client.failure { try await stack.client.refresh(bare["refresh_token"]) }
            #expect(bareRefresh?.isSession(.Session.loggedOut) == true)
        }
    }

    @Test func logoutCanRevokeTheProviderPermissions() async throws {
        try await TestStack.run(configure: { $0.providers.returnsProviderToken = true }) { stack in
            let session = try await stack.login()
            let other = try await stack.login()
            let providerToken = try #require(session["provider_token"]?.stringValue)
            _ = try await stack.client.post(
                "/v1/session/logout", json: .object(["revoke_provider_permissions": .bool(true)]),
                bearer: session["access_token"]!.stringValue!)
            // The provider removed the app: the token is dead there.
            let me = await stack.emulator.emulator.handle(
                EmulatorRequest(method: .get, target: "/v25.0/me?access_token=\(providerToken)"))
            #expect(me.json?["error"]?["code"]?.intValue == 190)
            // Every session of the user ended: this one logged out, the other by the permissions' revocation.
            let error = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: other["access_token"]!.stringValue!)
            }
            #expect(error?.isSession(.Session.providerAccessRevoked) == true)
            #expect(error?.developerMessage.contains("permissions were revoked") == true)
            let own = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: session["access_token"]!.stringValue!)
            }
            #expect(own?.isSession(.Session.loggedOut) == true)
            let log = await stack.emulator.requestLog()
            #expect(log.contains { $0.method == "DELETE" && $0.path.hasSuffix("/me/permissions") })
        }
    }

    @Test func logoutWithTheRefreshTokenAloneCanRevokeTheProviderPermissions() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let other = try await stack.login()
            stack.clock.advance(by: 901)
            _ = try await stack.client.post(
                "/v1/session/logout",
                json: .object(["refresh_token": session["refresh_token"]!, "revoke_provider_permissions": .bool(true)]))
            let log = await stack.emulator.requestLog()
            #expect(log.contains { $0.method == "DELETE" && $0.path.hasSuffix("/me/permissions") })
            let refresh = await stack.client.failure { try await stack.client.refresh(other["refresh_token"]) }
            #expect(refresh?.isSession(.Session.providerAccessRevoked) == true)
        }
    }

    // MARK: Revocation (RFC 7009)

    enum Presented: String, CaseIterable, Sendable {
        case refreshForm, refreshJSON, earlierRefreshForm, accessForm, expiredAccessJSON
    }

    @Test(arguments: TestDatabase.available, Presented.allCases)
    func revocationEndsTheWholeSession(_ database: TestDatabase, _ presented: Presented) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            let other = try await stack.login()
            var current = session
            let token: String
            switch presented {
            case .refreshForm, .refreshJSON: token = session["refresh_token"]!.stringValue!
            case .earlierRefreshForm:
                current = try await stack.client.refresh(session["refresh_token"])
                stack.clock.advance(by: 61)
                token = session["refresh_token"]!.stringValue!
            case .accessForm: token = session["access_token"]!.stringValue!
            case .expiredAccessJSON:
                stack.clock.advance(by: 901)
                token = session["access_token"]!.stringValue!
            }
            let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response: APIResponse
            switch presented {
            case .refreshJSON:
                response = try await stack.client.post(
                    "/v1/session/revoke", json: .object(["token": .string(token)]), expectsJSON: false)
            case .expiredAccessJSON:
                response = try await stack.client.post(
                    "/v1/session/revoke",
                    json: .object(["token": .string(token), "token_type_hint": .string("access_token")]),
                    expectsJSON: false)
            case .accessForm:
                // A wrong hint is only advisory.
                response = try await stack.client.postForm(
                    "/v1/session/revoke", form: "token=\(encoded)&token_type_hint=refresh_token", expectsJSON: false)
            default:
                response = try await stack.client.postForm(
                    "/v1/session/revoke", form: "token_type_hint=refresh_token&token=\(encoded)", expectsJSON: false)
            }
            #expect(response.head.status.code == 200)
            #expect(response.body.isEmpty)
            let refresh = await stack.client.failure { try await stack.client.refresh(current["refresh_token"]) }
            #expect(refresh?.isSession(.Session.loggedOut) == true)
            let row = try #require(
                try await stack.server.backend.store.sessions.session(id: session["session_id"]!.stringValue!))
            #expect(row.revokedAt != nil)
            #expect(row.revokedReason == "logged_out")
            // Idempotent; the user's other session stays.
            let again = try await stack.client.postForm(
                "/v1/session/revoke", form: "token=\(encoded)", expectsJSON: false)
            #expect(again.head.status.code == 200)
            _ = try await stack.client.refresh(other["refresh_token"])
        }
    }

    @Test func revocationAnswers200ForWhatItDoesNotKnowAnd400WithoutAToken() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let foreign = try await SessionSigner(
                configuration: [.generate(keyID: stack.server.backend.sessions.signer.signingKeyID)],
                issuer: "mend-server",
                audience: stack.server.backend.configuration.providers.facebook!.appID
            ).sign(
                AccessTokenClaims(
                    issuer: "mend-server", audience: stack.server.backend.configuration.providers.facebook!.appID,
                    subject: session["user"]!["id"]!.stringValue!, sessionID: session["session_id"]!.stringValue!,
                    scope: "", issuedAt: 0, expiresAt: Int64.max / 2, tokenID: "j"))
            for token in ["mrt_unknown", "garbage", String(repeating: "x", count: 10_000), foreign] {
                let response = try await stack.client.postForm(
                    "/v1/session/revoke", form: "token=\(token)", expectsJSON: false)
                #expect(response.head.status.code == 200)
                #expect(response.body.isEmpty)
            }
            // A token signed by another key named this session: nothing was revoked.
            _ = try await stack.client.get("/v1/session", bearer: session["access_token"]!.stringValue!)
            for (body, json) in [
                ("", false), ("token_type_hint=refresh_token", false), ("token=", false), ("{\"token\": 7}", true),
                ("{not json", true),
            ] {
                let error = await stack.client.failure {
                    if json {
                        return try await stack.client.client.send(
                            APIRequest(
                                method: .post, url: stack.client.url("/v1/session/revoke"),
                                headers: [.contentType: "application/json"], body: Data(body.utf8)))
                    }
                    return try await stack.client.postForm("/v1/session/revoke", form: body, expectsJSON: false)
                }
                #expect(error?.code == .REST.badRequest, "\(body)")
                #expect(error?.httpStatus == 400)
                #expect(error?.referenceID?.isEmpty == false)
            }
        }
    }

    @Test(arguments: TestDatabase.available)
    func aVersion1DatabaseUpgradesAndKeepsItsSessionsAndUsers(_ database: TestDatabase) async throws {
        try await database.withURL { url in
            let opened = try await ServerDatabase.open(
                try DatabaseLocation.parse(url),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            // The schema as migration 1 left it, with a session revoked for a reason of that time.
            try await opened.sql.raw(
                "CREATE TABLE mend_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
            ).run()
            for statement in Migrations.all[0].statements { try await opened.sql.raw("\(unsafeRaw: statement)").run() }
            try await opened.sql.raw("INSERT INTO mend_schema_migrations VALUES (1, 'v1', 0)").run()
            try await opened.sql.raw(
                """
                INSERT INTO mend_sessions (id, user_id, scopes, created_at, expires_at, revoked_at, revoked_reason)
                VALUES ('ses_old', 'u1', 'email', 0, 99999999999, 5, 'refresh token reuse detected')
                """
            ).run()
            try await opened.sql.raw(
                """
                INSERT INTO mend_sessions (id, user_id, scopes, created_at, expires_at, revoked_at, revoked_reason)
                VALUES ('ses_active', 'u1', 'email', 0, 99999999999, NULL, NULL)
                """
            ).run()
            // A user of that time: its Facebook id becomes its first identity in migration 5.
            try await opened.sql.raw(
                """
                INSERT INTO mend_users (id, provider_user_id, name, email, picture, granted_scopes, declined_scopes,
                    provider_token, provider_token_expires_at, provider_token_checked_at,
                    provider_token_invalid_reason, profile_refreshed_at, created_at, updated_at)
                VALUES ('u1', '100000000000001', 'Alice', 'alice@example.com', NULL, 'email', '', NULL, NULL, NULL,
                    NULL, 1, 1, 2)
                """
            ).run()
            #expect(try await MigrationRunner.run(on: opened, now: Date()) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
            #expect(try await MigrationRunner.run(on: opened, now: Date()) == [])
            let store = SQLSessionStore(
                connection: StoreConnection(
                    database: opened, cipher: TokenCipher(key: nil),
                    revocations: RevocationView(retention: 1200, freshness: .always)))
            let users = SQLIdentityStore(connection: store.connection)
            // Migration 4 copies the sessions revoked before it into the revocation log the view is loaded from…
            #expect(try await store.revocations(since: 0).map(\.sessionID) == ["ses_old"])
            // …and its trigger logs every later revocation, however it is made (here an operator's SQL).
            try await opened.sql.raw(
                "UPDATE mend_sessions SET revoked_at = 7, revoked_reason = 'revoked' WHERE id = 'ses_active'"
            ).run()
            try await opened.sql.raw("UPDATE mend_sessions SET revoked_at = 9 WHERE id = 'ses_active'").run()
            let logged = try await store.revocations(since: 6)
            #expect(logged.map(\.sessionID) == ["ses_active"])
            #expect(logged.first?.ending == RevocationView.Ending(reason: "revoked", detail: nil, endedAt: 7))
            let legacy = try #require(try await store.session(id: "ses_old"))
            #expect(legacy.revokedDetail == nil)
            let failure = ServerFailure.sessionEnded(legacy)
            #expect(failure.error.code == .Session.sessionEnded)
            #expect(failure.error.developerMessage.contains("refresh token reuse detected"))
            #expect(failure.status == .unauthorized)
            // Migration 5: the user keeps its row and gets its Facebook identity; a user without one can be stored.
            let alice = try #require(try await users.user(id: "u1"))
            #expect(alice.providerUserID == "100000000000001")
            #expect(alice.name == "Alice" && alice.grantedScopes == ["email"] && alice.updatedAt == 2)
            #expect(
                try await users.identities(userID: "u1")
                    == [
                        IdentityRecord(
                            provider: "facebook", subject: "100000000000001", userID: "u1", email: "alice@example.com")
                    ])
            let apple = try await users.createUser(name: "Apple user", email: nil, facebookUserID: nil, now: 3)
            let another = try await users.createUser(name: "Apple user 2", email: nil, facebookUserID: nil, now: 3)
            #expect(apple.providerUserID == nil && another.providerUserID == nil)
            await opened.close()
        }
    }

    @Test func meServesAndRefreshesTheProfileWithAppSecretProof() async throws {
        var emulatorConfiguration = EmulatorConfiguration()
        emulatorConfiguration.apps[0].requiresAppSecretProof = true
        try await TestStack.run(
            emulatorConfiguration: emulatorConfiguration,
            configure: { $0.providers.facebook?.profileMaxAge = .seconds(60) }
        ) { stack in
            let session = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            let me = try await stack.client.get("/v1/me", bearer: access).json()
            #expect(me == session["user"])
            await stack.emulator.emulator.clearRequestLog()
            _ = try await stack.client.get("/v1/me", bearer: access)
            #expect(await stack.emulator.requestLog().isEmpty)  // fresh: served from storage

            stack.clock.advance(by: 61)
            let refreshed = try await stack.client.get("/v1/me", bearer: access).json()
            #expect(refreshed["name"]?.stringValue == "Alice Example")
            let calls = await stack.emulator.requestLog()
            #expect(
                calls.contains { $0.path.hasSuffix("/me") && $0.status == 200 && $0.query.contains("appsecret_proof") })

            // A dead provider token ends the sessions with the reason.
            stack.clock.advance(by: 61)
            try await stack.emulator.setUserState(.passwordChanged)
            let dead = await stack.client.failure { try await stack.client.get("/v1/me", bearer: access) }
            #expect(dead?.matches(.Graph.accessTokenInvalid, .passwordChanged) == true)
            let ended = await stack.client.failure { try await stack.client.get("/v1/session", bearer: access) }
            #expect(ended?.isSession(.Session.providerAccessRevoked) == true)
            #expect(ended?.developerMessage.contains("190") == true)
        }
    }

    @Test func meServesTheStoredProfileWhenTheProviderIsDown() async throws {
        try await TestStack.run(configure: { $0.providers.facebook?.profileMaxAge = .seconds(60) }) { stack in
            let session = try await stack.login()
            stack.clock.advance(by: 61)
            try await stack.emulator.inject(error: "graph/2", path: "/me")
            let me = try await stack.client.get("/v1/me", bearer: session["access_token"]!.stringValue!).json()
            #expect(me["email"]?.stringValue == "alice@example.com")
        }
    }

    @Test func accessTokensVerifyWithThePublishedJWKSAcrossAKeyRotation() async throws {
        let old = SigningKeyConfiguration.generate(keyID: "old", algorithm: .es256)
        let new = SigningKeyConfiguration.generate(keyID: "new")
        var oldAccess = ""
        try await TestStack.run(database: .sqlite, configure: { $0.sessions.signingKeys = [old] }) { stack in
            oldAccess = try #require(try await stack.login()["access_token"]?.stringValue)
        }
        try await TestStack.run(configure: { $0.sessions.signingKeys = [new, old] }) { stack in
            let jwks = try await stack.client.get("/.well-known/jwks.json").json()
            #expect(jwks["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } == ["new", "old"])
            let access = try #require(try await stack.login()["access_token"]?.stringValue)
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.jsonText())
            struct Claims: JWTPayload {
                var sub: String
                var sid: String
                var exp: Int
                func verify(using algorithm: some JWTAlgorithm) throws {}
            }
            let claims = try await keys.verify(access, as: Claims.self)
            #expect(claims.sid.hasPrefix("ses_"))
            // A token signed with the previous key still verifies (its session is in another database here).
            _ = try await keys.verify(oldAccess, as: Claims.self)
        }
    }
}
