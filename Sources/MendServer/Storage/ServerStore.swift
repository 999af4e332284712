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
        id, provider_user_id, name, email, picture, granted_scopes, declined_scopes, profile_refreshed_at, created_at,
        updated_at
        """

    /// Replaces the user's profile and permissions with what a login read whole from its provider (Facebook's `/me`
    /// and `/me/permissions`); returns the user as stored.
    func replaceProfile(
        userID: String, name: String, email: String?, picture: String?, granted: [String], declined: [String],
        now: Int64
    ) async throws -> UserRecord? {
        try await sql.raw(
            """
            UPDATE mend_users SET name = \(bind: name), email = \(bind: email), picture = \(bind: picture),
                granted_scopes = \(bind: ScopeList.encode(granted)), declined_scopes = \(bind: ScopeList.encode(declined)),
                profile_refreshed_at = \(bind: now), updated_at = \(bind: now)
            WHERE id = \(bind: userID)
            RETURNING \(unsafeRaw: Self.userColumns)
            """
        ).first().map(user(from:))
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
            profileRefreshedAt: try row.integer("profile_refreshed_at"), createdAt: try row.integer("created_at"),
            updatedAt: try row.integer("updated_at"))
    }
}

/// A storage invariant did not hold.
struct StoreFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
