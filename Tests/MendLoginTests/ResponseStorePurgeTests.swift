import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import Testing

@testable import MendLogin

/// The credentials manager keeps the response store to the signed-in user's answers: every end of a session it
/// learns of deletes them (the issuer's word at a refresh or a check, a logout, a logout in another process), and a
/// sign-in of another user deletes the previous user's.
@Suite("Credentials manager: the response store purged at every end of a session")
struct ResponseStorePurgeTests {
    static let u1 = Principal(subject: "u1", issuer: "backend")

    func primed() async throws -> (CredentialsManager, ScriptedAuthority, InMemoryResponseStore, InMemoryTokenStore) {
        let authority = ScriptedAuthority()
        let tokens = InMemoryTokenStore()
        let answers = InMemoryResponseStore()
        let manager = CredentialsManager(store: tokens, authority: authority, responseStore: answers)
        try await manager.signIn(testSession(user: "u1"))
        #expect(try await manager.principal() == Self.u1)
        try await answers.store(
            StoredAnswer(status: 200, headerFields: [:], body: Data("u1's answer".utf8), storedAt: Date()),
            for: ResponseStoreKey(principal: Self.u1, method: "GET", resource: "https://api.example/me"))
        return (manager, authority, answers, tokens)
    }

    @Test(
        "a refresh the issuer answers with a session-ending code purges",
        arguments: [MendError.Code.Session.loggedOut, MendError.Code.Session.revoked])
    func refreshEndsTheSession(code: MendError.Code) async throws {
        let (manager, authority, answers, _) = try await primed()
        authority.script(refreshes: [.fail(sessionError(code))])
        _ = try? await manager.refresh()
        #expect(try await manager.currentSession() == nil)
        #expect(answers.count == 0)
    }

    @Test("a validity check the issuer answers with a session-ending code purges")
    func checkEndsTheSession() async throws {
        let (manager, authority, answers, _) = try await primed()
        authority.script(checks: [.fail(sessionError(.Session.revoked))])
        _ = try? await manager.checkValidity(force: true)
        #expect(answers.count == 0)
    }

    @Test("a transient failure of a refresh keeps the session and its answers")
    func transientKeeps() async throws {
        let (manager, authority, answers, _) = try await primed()
        authority.script(refreshes: [
            .fail(MendError(code: .Transport.notConnected, developerMessage: "offline", catalog: .core))
        ])
        _ = try? await manager.refresh()
        #expect(try await manager.currentSession() != nil)
        #expect(answers.count == 1)
    }

    @Test("a logout in another process (the store emptied) purges when this manager learns of it")
    func logoutElsewhere() async throws {
        let (manager, _, answers, tokens) = try await primed()
        try await tokens.delete()
        _ = try await manager.reload()
        #expect(answers.count == 0)
    }
}
