import Foundation
import Logging
import SQLKit

/// The server's queries, written once for SQLite and PostgreSQL alike (sql-kit binds `?` or `$n` as the dialect
/// needs). Every decision that several instances could race on is a single conditional statement.
struct ServerStore: Sendable {
    let database: ServerDatabase
    let cipher: TokenCipher
    /// Told of every session this process ends, before the statement's caller goes on (other instances learn of it
    /// from the `mend_revocations` log the database keeps by trigger; see ``RevocationFeed``).
    let revocations: RevocationView
    /// Where the `audit` line of each event a trigger writes goes, once its change is made (`nil`: nowhere).
    var auditLogger: Logger? = nil

    var sql: any SQLDatabase { database.sql }

    /// Logs the `audit` line of an event the database's triggers wrote with the change just made.
    func logAudit(_ record: AuditRecord) {
        if let auditLogger { record.log(to: auditLogger) }
    }
}

extension ServerStore {
    // MARK: Users

    static let userColumns = """
        id, provider_user_id, name, email, picture, granted_scopes, declined_scopes, provider_token,
        provider_token_expires_at, provider_token_checked_at, provider_token_invalid_reason, profile_refreshed_at,
        created_at, updated_at
        """

    /// The profile and token a login brings.
    struct LoginUpsert: Sendable {
        var providerUserID: String
        var name: String
        var email: String?
        var picture: String?
        var grantedScopes: [String]
        var declinedScopes: [String]
        var providerToken: String
        var providerTokenExpiresAt: Int64?
    }

    /// Creates the user, or updates the profile, permissions and token of the one with the same provider id.
    func upsertUser(_ login: LoginUpsert, now: Int64) async throws -> UserRecord {
        let sealed = try cipher.seal(login.providerToken)
        let rows = try await sql.raw(
            """
            INSERT INTO mend_users (id, provider_user_id, name, email, picture, granted_scopes, declined_scopes,
                provider_token, provider_token_expires_at, provider_token_checked_at, provider_token_invalid_reason,
                profile_refreshed_at, created_at, updated_at)
            VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: login.providerUserID), \(bind: login.name),
                \(bind: login.email), \(bind: login.picture), \(bind: ScopeList.encode(login.grantedScopes)),
                \(bind: ScopeList.encode(login.declinedScopes)), \(bind: sealed), \(bind: login.providerTokenExpiresAt),
                \(bind: now), NULL, \(bind: now), \(bind: now), \(bind: now))
            ON CONFLICT (provider_user_id) DO UPDATE SET
                name = excluded.name, email = excluded.email, picture = excluded.picture,
                granted_scopes = excluded.granted_scopes, declined_scopes = excluded.declined_scopes,
                provider_token = excluded.provider_token, provider_token_expires_at = excluded.provider_token_expires_at,
                provider_token_checked_at = excluded.provider_token_checked_at, provider_token_invalid_reason = NULL,
                profile_refreshed_at = excluded.profile_refreshed_at, updated_at = excluded.updated_at
            RETURNING \(unsafeRaw: Self.userColumns)
            """
        ).all()
        guard let row = rows.first else { throw StoreFailure("the user upsert returned no row") }
        return try user(from: row)
    }

    func user(id: String) async throws -> UserRecord? {
        try await sql.raw("SELECT \(unsafeRaw: Self.userColumns) FROM mend_users WHERE id = \(bind: id)").first()
            .map(user(from:))
    }

    func user(providerUserID: String) async throws -> UserRecord? {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.userColumns) FROM mend_users WHERE provider_user_id = \(bind: providerUserID)"
        ).first().map(user(from:))
    }

    func updateProfile(userID: String, name: String, email: String?, picture: String?, now: Int64) async throws {
        try await sql.raw(
            """
            UPDATE mend_users SET name = \(bind: name), email = \(bind: email), picture = \(bind: picture),
                profile_refreshed_at = \(bind: now), updated_at = \(bind: now)
            WHERE id = \(bind: userID)
            """
        ).run()
    }

    /// Records a validity check: when, and (for an invalid token) why; an invalid token is removed.
    func recordTokenCheck(userID: String, now: Int64, invalidReason: String?) async throws {
        if let invalidReason {
            try await sql.raw(
                """
                UPDATE mend_users SET provider_token = NULL, provider_token_checked_at = \(bind: now),
                    provider_token_invalid_reason = \(bind: invalidReason), updated_at = \(bind: now)
                WHERE id = \(bind: userID)
                """
            ).run()
        } else {
            try await sql.raw(
                "UPDATE mend_users SET provider_token_checked_at = \(bind: now) WHERE id = \(bind: userID)"
            ).run()
        }
    }

    /// Users whose stored token was last checked before `checkedBefore` (or never), oldest check first.
    func usersDueForCheck(checkedBefore: Int64, limit: Int) async throws -> [UserRecord] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.userColumns) FROM mend_users
            WHERE provider_token IS NOT NULL
                AND (provider_token_checked_at IS NULL OR provider_token_checked_at < \(bind: checkedBefore))
            ORDER BY provider_token_checked_at LIMIT \(bind: limit)
            """
        ).all().map(user(from:))
    }

    /// Deletes the user, ending every session of theirs first (with `reason`, into the revocation view and log), then
    /// deleting the sessions, refresh tokens and identities. Returns whether the user existed, and how many sessions
    /// ended.
    ///
    /// The order closes the race with a login of the same user, without a transaction: the user row goes first, so a
    /// login that writes its session after the sessions were ended finds its user gone when it checks again
    /// (``LoginBackend/openSession(for:)``) and hands out nothing; a session written before that is ended here, so
    /// no session of a deleted user is ever deleted while active (which would leave its access token valid on every
    /// instance until it expired).
    func deleteUser(
        id: String, reason: SessionEndReason = .userDeleted, detail: String? = nil, now: Int64
    ) async throws -> (deleted: Bool, sessionsEnded: Int) {
        let deleted = try await !sql.raw("DELETE FROM mend_users WHERE id = \(bind: id) RETURNING id").all().isEmpty
        if deleted { logAudit(AuditRecord(at: now, event: AuditRecord.Event.accountDeleted.rawValue, userID: id)) }
        let ended = try await revokeSessions(userID: id, reason: reason, detail: detail, now: now)
        try await sql.raw(
            """
            DELETE FROM mend_refresh_tokens WHERE session_id IN (SELECT id FROM mend_sessions WHERE user_id = \(bind: id))
            """
        ).run()
        try await sql.raw("DELETE FROM mend_sessions WHERE user_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM mend_identities WHERE user_id = \(bind: id)").run()
        return (deleted, ended)
    }

    func user(from row: any SQLRow) throws -> UserRecord {
        UserRecord(
            id: try row.text("id"), providerUserID: try row.optionalText("provider_user_id"),
            name: try row.text("name"),
            email: try row.optionalText("email"), picture: try row.optionalText("picture"),
            grantedScopes: ScopeList.decode(try row.text("granted_scopes")),
            declinedScopes: ScopeList.decode(try row.text("declined_scopes")),
            providerToken: try row.optionalText("provider_token").flatMap(cipher.open),
            providerTokenExpiresAt: try row.optionalInteger("provider_token_expires_at"),
            providerTokenCheckedAt: try row.optionalInteger("provider_token_checked_at"),
            providerTokenInvalidReason: try row.optionalText("provider_token_invalid_reason"),
            profileRefreshedAt: try row.integer("profile_refreshed_at"), createdAt: try row.integer("created_at"),
            updatedAt: try row.integer("updated_at"))
    }
}

/// A storage invariant did not hold.
struct StoreFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
