import Foundation
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// `DELETE /v1/me`: the user deletes their account.
@Suite("Account deletion")
struct AccountDeletionTests {
    @Test(
        "Deleting an account revokes at the provider, ends every session and deletes the user",
        arguments: TestDatabase.available)
    func deletion(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let first = try await stack.login()
            let second = try await stack.login()
            let userID = try #require(first["user"]?["id"]?.stringValue)
            let access = try #require(first["access_token"]?.stringValue)
            // An Apple identity linked to the same user, with the sign-in's code: the server keeps a token to revoke.
            let apple = try await IDTokenLoginTests.nativeToken(stack, "apple")
            _ = try await IDTokenLoginTests.signIn(stack, provider: "apple", apple, bearer: access, code: apple.code)
            // And a Google one, with the sign-in's serverAuthCode (for the server's web client): kept too.
            let google = try await IDTokenLoginTests.nativeToken(
                stack, "google", serverClientID: IDTokenLoginTests.googleServerClient)
            _ = try await IDTokenLoginTests.signIn(stack, provider: "google", google, bearer: access, code: google.code)

            let answer = try await stack.client.delete("/v1/me", bearer: access).json()
            #expect(answer["deleted"] == .bool(true))
            #expect(answer["sessions_ended"]?.intValue == 4)
            // In the order of the user's identities (by provider), Facebook's among them since its token lives on its
            // identity (schema 9); it came first while it lived on the user's row.
            #expect(answer["revoked_at"] == .array([.string("apple"), .string("facebook"), .string("google")]))
            #expect(answer["not_revoked"] == .array([]))
            // The emulator saw the app's permissions revoked for this user.
            let revocations = await stack.emulator.emulator.revocations()
            #expect(
                revocations.map { "\($0.issuer) \($0.clientID) \($0.userID) \($0.tokenKind)" } == [
                    "apple com.example.mend 100000000000001 refresh",
                    "facebook \(stack.emulator.emulator.configuration.defaultApp.id) 100000000000001 permissions",
                    "google \(IDTokenLoginTests.googleServerClient) 100000000000001 refresh",
                ])
            // Every session is over (session/14), by its access token and by its refresh token.
            for session in [first, second] {
                let bearer = try #require(session["access_token"]?.stringValue)
                let me = await stack.client.failure { try await stack.client.get("/v1/me", bearer: bearer) }
                #expect(me?.code == .Session.userDeleted)
                let refreshed = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
                // The refresh tokens are deleted with the user: unknown now (session/16), log in again.
                #expect(refreshed?.response?.status == 401)
                #expect(refreshed?.domain == .session)
            }
            #expect(try await stack.server.backend.store.identities.user(id: userID) == nil)
            #expect(try await stack.server.backend.store.identities.identities(userID: userID).isEmpty)
            // Signing in again makes a new user: nothing of the old one remains.
            let again = try await IDTokenLoginTests.signIn(
                stack, provider: "apple", try await IDTokenLoginTests.nativeToken(stack, "apple"))
            #expect(again["user"]?["id"]?.stringValue != userID)
        }
    }

    @Test("A provider that cannot be reached fails the deletion, and nothing is deleted")
    func providerDown() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            try await stack.emulator.inject(.error("http/503", method: "DELETE", path: "/me/permissions", times: 1))
            let error = await stack.client.failure { try await stack.client.delete("/v1/me", bearer: access) }
            #expect(error?.response?.status == 502)
            #expect(error?.category == .transient)
            // The account is intact: the app can retry.
            let me = try await stack.client.get("/v1/me", bearer: access).json()
            #expect(me["id"] == session["user"]?["id"])
            let answer = try await stack.client.delete("/v1/me", bearer: access).json()
            #expect(answer["revoked_at"] == .array([.string("facebook")]))
        }
    }

    @Test("A user who signed in with Google without a serverAuthCode is deleted; nothing could be revoked at Google")
    func googleOnly() async throws {
        try await TestStack.run { stack in
            let session = try await IDTokenLoginTests.signIn(
                stack, provider: "google", try await IDTokenLoginTests.nativeToken(stack, "google"))
            let access = try #require(session["access_token"]?.stringValue)
            let answer = try await stack.client.delete("/v1/me", bearer: access).json()
            #expect(answer["revoked_at"] == .array([]))
            #expect(answer["not_revoked"] == .array([.string("google")]))
            #expect(await stack.emulator.emulator.revocations().isEmpty)
        }
    }

    @Test(
        "A session that lands during an account deletion never outlives it; a login that finds its user gone gets none",
        arguments: TestDatabase.available)
    func deletionRace(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let backend = stack.server.backend
            // A login whose session was written after the deletion ended the user's sessions: the deletion's last
            // step removes it. Its access token must be refused by the view-answered check, not only by /v1/me.
            let login = try await stack.login()
            let access = try #require(login["access_token"]?.stringValue)
            let userID = try #require(login["user"]?["id"]?.stringValue)
            let user = try #require(try await backend.store.identities.user(id: userID))
            _ = try await backend.store.identities.deleteUser(id: userID, now: backend.now)
            let check = await stack.client.failure { try await stack.client.get("/v1/session", bearer: access) }
            #expect(check?.code == .Session.userDeleted, "\(check?.developerMessage ?? "no error: the token passed")")
            // A login that read its user before the deletion and opens the session after it: refused, nothing usable.
            let late = await #expect(throws: ServerFailure.self) {
                try await backend.sessions.openSession(for: user, client: nil)
            }
            #expect(late?.error.code == .Session.userDeleted)
        }
    }
}
