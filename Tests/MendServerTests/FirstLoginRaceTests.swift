import Foundation
import Logging
import MendTesting
import Testing

@testable import MendServer

/// Two or more first logins of one identity at once, made certain: every login finds no identity before any of them
/// creates a user (a store that holds each lookup until all have looked), then each creates its user and adds the
/// identity; one wins, the others delete their user and sign in the winner's.
@Suite("First logins of one identity at once")
struct FirstLoginRaceTests {
    /// Holds the first `parties` callers of ``arrive()`` until all of them have arrived; later callers pass.
    actor Barrier {
        let parties: Int
        private var arrived = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(parties: Int) { self.parties = parties }

        func arrive() async {
            arrived += 1
            if arrived == parties {
                for continuation in waiting { continuation.resume() }
                waiting = []
            } else if arrived < parties {
                await withCheckedContinuation { waiting.append($0) }
            }
        }
    }

    /// The server's identity store, with every lookup that finds nothing held at the barrier.
    struct LookupsHeldTogether: IdentityStore {
        let base: any IdentityStore
        let barrier: Barrier

        func identity(provider: String, subject: String) async throws -> IdentityRecord? {
            let found = try await base.identity(provider: provider, subject: subject)
            if found == nil { await barrier.arrive() }
            return found
        }

        func user(id: String) async throws -> UserRecord? { try await base.user(id: id) }
        func user(providerUserID: String) async throws -> UserRecord? {
            try await base.user(providerUserID: providerUserID)
        }
        func createUser(name: String, email: String?, facebookUserID: String?, now: Int64) async throws -> UserRecord {
            try await base.createUser(name: name, email: email, facebookUserID: facebookUserID, now: now)
        }
        func replaceProfile(
            userID: String, name: String, email: String?, picture: String?, granted: [String], declined: [String],
            now: Int64
        ) async throws -> UserRecord? {
            try await base.replaceProfile(
                userID: userID, name: name, email: email, picture: picture, granted: granted, declined: declined,
                now: now)
        }
        func updateProfile(userID: String, name: String, email: String?, picture: String?, now: Int64) async throws {
            try await base.updateProfile(userID: userID, name: name, email: email, picture: picture, now: now)
        }
        func setGrantedScopes(_ scopes: [String], userID: String, now: Int64) async throws {
            try await base.setGrantedScopes(scopes, userID: userID, now: now)
        }
        func deleteUser(
            id: String, reason: SessionEndReason, detail: String?, now: Int64
        ) async throws -> (deleted: Bool, sessionsEnded: Int) {
            try await base.deleteUser(id: id, reason: reason, detail: detail, now: now)
        }
        func identity(provider: String, userID: String) async throws -> IdentityRecord? {
            try await base.identity(provider: provider, userID: userID)
        }
        func identities(userID: String) async throws -> [IdentityRecord] { try await base.identities(userID: userID) }
        func addIdentity(_ claims: IdentityClaims, userID: String, now: Int64) async throws -> Bool {
            try await base.addIdentity(claims, userID: userID, now: now)
        }
        func touchIdentity(_ claims: IdentityClaims, now: Int64) async throws {
            try await base.touchIdentity(claims, now: now)
        }
        func keepProviderToken(
            provider: String, subject: String, clientID: String, token: String, expiresAt: Int64?, now: Int64
        ) async throws {
            try await base.keepProviderToken(
                provider: provider, subject: subject, clientID: clientID, token: token, expiresAt: expiresAt, now: now)
        }
        func recordTokenCheck(provider: String, subject: String, now: Int64, invalidReason: String?) async throws {
            try await base.recordTokenCheck(
                provider: provider, subject: subject, now: now, invalidReason: invalidReason)
        }
        func identitiesDueForCheck(
            provider: String, checkedBefore: Int64, limit: Int
        ) async throws -> [IdentityRecord] {
            try await base.identitiesDueForCheck(provider: provider, checkedBefore: checkedBefore, limit: limit)
        }
    }

    @Test(
        "Every login of a new identity at once signs in one user, with its Facebook id, and leaves no other user",
        arguments: TestDatabase.available)
    func everyLoginFindsNoIdentityFirst(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let backend = stack.server.backend
            let parties = 6
            let logins = backend.logins
            let held = ProviderLogins(
                services: backend.services, providerSettings: backend.configuration.providers,
                identities: LookupsHeldTogether(base: backend.store.identities, barrier: Barrier(parties: parties)),
                codes: backend.store.codes, sessions: backend.sessions, idTokenValidators: logins.idTokenValidators,
                facebook: logins.facebook)
            for provider in ["facebook", "apple"] {
                let identity = IdentityClaims(provider: provider, subject: "1000000000000\(provider.count)7")
                let users = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<parties {
                        group.addTask {
                            try await held.user(for: identity, name: "Eve", linkingTo: nil, logger: Logger(label: "t"))
                                .id
                        }
                    }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
                #expect(users.count == 1, "\(provider): \(users.count) users")
                let user = try #require(users.first)
                let stored = try #require(try await backend.store.identities.user(id: user))
                #expect(stored.providerUserID == (provider == "facebook" ? identity.subject : nil))
                #expect(
                    try await backend.store.identities.identities(userID: user).map(\.subject) == [identity.subject])
                // The losers' users are gone: only the winner is named Eve with this identity's subject.
                let eves = try await backend.store.directory.searchUsers(query: nil, limit: 200, offset: 0)
                    .filter { $0.name == "Eve" }
                #expect(eves.count == (provider == "facebook" ? 1 : 2), "\(eves.map(\.id))")
            }
        }
    }
}
