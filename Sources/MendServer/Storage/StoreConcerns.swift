import Foundation

// The server's stores, one protocol per concern: what a part of the backend may read and write is what its stores'
// protocols declare. ServerStore holds the SQL implementation of each.

/// The sessions, their refresh tokens and their endings.
protocol SessionStore: Sendable {
    /// Writes a new session (and its `session_started` event).
    func createSession(_ session: SessionRecord) async throws
    func session(id: String) async throws -> SessionRecord?
    /// The user's sessions that have not ended and whose idle deadline has not passed, newest first.
    func activeSessions(userID: String, now: Int64) async throws -> [SessionRecord]
    /// Moves an active session's idle deadline and records the address it was used from.
    func touchSession(id: String, until expiresAt: Int64, address: String?, now: Int64) async throws
    /// Ends one session; `false` when it had already ended.
    func revokeSession(id: String, reason: SessionEndReason, detail: String?, now: Int64) async throws -> Bool
    /// Ends every active session of the user but `kept`; returns how many ended.
    func revokeSessions(
        userID: String, keeping kept: String?, reason: SessionEndReason, detail: String?, now: Int64
    ) async throws -> Int
    /// The endings logged since `since` (unix seconds), for the revocation view.
    func revocations(since: Int64) async throws -> [(sessionID: String, ending: RevocationView.Ending)]
    func insertRefreshToken(_ token: RefreshTokenRecord) async throws
    func refreshToken(hash: String) async throws -> RefreshTokenRecord?
    /// Marks a refresh token used, naming its replacement, if no other refresh used it first.
    func claimRefreshToken(hash: String, replacement: String, sealedSuccessor: String, now: Int64) async throws -> Bool
    func deleteRefreshToken(hash: String) async throws
    /// Drops what expired: refresh tokens, ended sessions, old login codes, passkey challenges, the revocation log past
    /// its retention.
    func purge(now: Int64, revocationRetention: Int64) async throws
}

extension SessionStore {
    func revokeSession(id: String, reason: SessionEndReason, now: Int64) async throws -> Bool {
        try await revokeSession(id: id, reason: reason, detail: nil, now: now)
    }

    func revokeSessions(
        userID: String, reason: SessionEndReason, detail: String? = nil, now: Int64
    ) async throws -> Int {
        try await revokeSessions(userID: userID, keeping: nil, reason: reason, detail: detail, now: now)
    }
}

/// The users, their identities at the providers, and the provider tokens kept for them.
protocol IdentityStore: Sendable {
    func user(id: String) async throws -> UserRecord?
    /// The user whose Facebook id this is (the provider's callbacks name users by it).
    func user(providerUserID: String) async throws -> UserRecord?
    func createUser(name: String, email: String?, facebookUserID: String?, now: Int64) async throws -> UserRecord
    /// Replaces the profile and permissions with what a login read whole from its provider; the user as stored.
    func replaceProfile(
        userID: String, name: String, email: String?, picture: String?, granted: [String], declined: [String],
        now: Int64
    ) async throws -> UserRecord?
    func updateProfile(userID: String, name: String, email: String?, picture: String?, now: Int64) async throws
    func setGrantedScopes(_ scopes: [String], userID: String, now: Int64) async throws
    /// Deletes the user, ending every session of theirs first; whether the user existed and how many sessions ended.
    func deleteUser(
        id: String, reason: SessionEndReason, detail: String?, now: Int64
    ) async throws -> (deleted: Bool, sessionsEnded: Int)

    func identity(provider: String, subject: String) async throws -> IdentityRecord?
    func identity(provider: String, userID: String) async throws -> IdentityRecord?
    func identities(userID: String) async throws -> [IdentityRecord]
    /// Links an identity to a user; `false` when the identity was already someone's.
    func addIdentity(_ claims: IdentityClaims, userID: String, now: Int64) async throws -> Bool
    func touchIdentity(_ claims: IdentityClaims, now: Int64) async throws
    /// Keeps a login's provider token on its identity (sealed), as checked now.
    func keepProviderToken(
        provider: String, subject: String, clientID: String, token: String, expiresAt: Int64?, now: Int64
    ) async throws
    /// Records a check of the identity's kept token; an `invalidReason` removes the token.
    func recordTokenCheck(provider: String, subject: String, now: Int64, invalidReason: String?) async throws
    /// The provider's identities with a kept token not checked since `checkedBefore`, oldest check first.
    func identitiesDueForCheck(provider: String, checkedBefore: Int64, limit: Int) async throws -> [IdentityRecord]
}

extension IdentityStore {
    func deleteUser(id: String, now: Int64) async throws -> (deleted: Bool, sessionsEnded: Int) {
        try await deleteUser(id: id, reason: .userDeleted, detail: nil, now: now)
    }
}

/// What may be used once: login codes and provider tokens (by hash), handled callbacks' `signed_request` digests,
/// and the confirmation codes of data-deletion requests.
protocol CodeStore: Sendable {
    /// Claims a login code (or a provider token) for one login; `false` when another claimed it first.
    func claimLoginCode(hash: String, now: Int64) async throws -> Bool
    /// The session a claimed code opened, if any.
    func sessionIssued(byCodeHash hash: String) async throws -> String?
    func attachSession(_ sessionID: String, toCodeHash hash: String) async throws
    /// Gives a claimed code back (its exchange certainly did not use it).
    func releaseLoginCode(hash: String) async throws
    func hasSeenSignedRequest(digest: String, now: Int64) async throws -> Bool
    func rememberSignedRequest(digest: String, expiresAt: Int64, now: Int64) async throws
    func recordDeletion(_ deletion: DeletionRecord) async throws
    func deletion(confirmationCode: String) async throws -> DeletionRecord?
}

/// The audit log.
protocol AuditStore: Sendable {
    /// Appends an event the server writes itself (one without a database write of its own).
    func recordAudit(_ record: AuditRecord) async throws
    /// The newest events (of `userID`, or of everyone; of one `event` code, or of all), newest first; `before` pages
    /// back by id.
    func auditEvents(userID: String?, event: String?, before: Int64?, limit: Int) async throws -> [AuditRecord]
    /// Drops the events older than `before` (unix seconds).
    func pruneAudit(before: Int64) async throws
}

extension AuditStore {
    func auditEvents(userID: String?, limit: Int) async throws -> [AuditRecord] {
        try await auditEvents(userID: userID, event: nil, before: nil, limit: limit)
    }
}

/// The rate-limit buckets every instance shares.
protocol RateLimitStore: Sendable {
    /// Takes a token from the bucket of `key`; `nil` when one was taken, else the seconds until one is there.
    func takeRateLimitToken(key: String, rule: RateLimitRule, now: Double) async throws -> Double?
    /// Drops the buckets that are full again.
    func purgeRateLimits(now: Double) async throws
}

/// The admin API's search over users.
protocol UserDirectory: Sendable {
    /// The users `query` finds, or every user without one; newest first.
    func searchUsers(query: String?, limit: Int, offset: Int) async throws -> [UserRecord]
}
