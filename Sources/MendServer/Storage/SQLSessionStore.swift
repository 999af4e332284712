import Foundation
import SQLKit

/// The sessions and their refresh tokens, on SQLite or PostgreSQL.
struct SQLSessionStore: SessionStore, SQLStore {
    let connection: StoreConnection

    // MARK: Sessions

    func createSession(_ session: SessionRecord) async throws {
        try await sql.raw(
            """
            INSERT INTO mend_sessions (id, user_id, scopes, created_at, expires_at, revoked_at, revoked_reason, client,
                client_platform, first_address, last_address, refreshed_at, provider, flow, dpop_jkt)
            VALUES (\(bind: session.id), \(bind: session.userID), \(bind: ScopeList.encode(session.scopes)),
                \(bind: session.createdAt), \(bind: session.expiresAt), NULL, NULL, \(bind: session.client),
                \(bind: session.clientPlatform), \(bind: session.firstAddress), \(bind: session.lastAddress),
                \(bind: session.refreshedAt), \(bind: session.provider), \(bind: session.flow),
                \(bind: session.proofKey))
            """
        ).run()
        logAudit(
            AuditRecord(
                at: session.createdAt, event: AuditRecord.Event.login.rawValue, userID: session.userID,
                sessionID: session.id, provider: session.provider, detail: session.flow, address: session.firstAddress,
                client: session.client))
    }

    static let sessionColumns = """
        id, user_id, scopes, created_at, expires_at, revoked_at, revoked_reason, revoked_detail, client, \
        client_platform, first_address, last_address, refreshed_at, provider, flow, dpop_jkt
        """

    func session(id: String) async throws -> SessionRecord? {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.sessionColumns) FROM mend_sessions WHERE id = \(bind: id)"
        ).first().map(Self.sessionRecord)
    }

    static func sessionRecord(_ row: any SQLRow) throws -> SessionRecord {
        SessionRecord(
            id: try row.text("id"), userID: try row.text("user_id"), scopes: ScopeList.decode(try row.text("scopes")),
            createdAt: try row.integer("created_at"), expiresAt: try row.integer("expires_at"),
            revokedAt: try row.optionalInteger("revoked_at"), revokedReason: try row.optionalText("revoked_reason"),
            revokedDetail: try row.optionalText("revoked_detail"), client: try row.optionalText("client"),
            clientPlatform: try row.optionalText("client_platform"),
            firstAddress: try row.optionalText("first_address"),
            lastAddress: try row.optionalText("last_address"), refreshedAt: try row.optionalInteger("refreshed_at"),
            provider: try row.optionalText("provider"), flow: try row.optionalText("flow"),
            proofKey: try row.optionalText("dpop_jkt"))
    }

    /// The user's sessions that are neither ended nor past `expires_at`, newest first (the devices list).
    func activeSessions(userID: String, now: Int64) async throws -> [SessionRecord] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.sessionColumns) FROM mend_sessions
            WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND expires_at > \(bind: now)
            ORDER BY created_at DESC, id
            """
        ).all().map(Self.sessionRecord)
    }

    /// A refresh kept the session going: its new expiry (a sliding lifetime), the address it came from and when.
    func touchSession(id: String, until expiresAt: Int64, address: String?, now: Int64) async throws {
        let touched = try await sql.raw(
            """
            UPDATE mend_sessions SET expires_at = \(bind: expiresAt), refreshed_at = \(bind: now),
                refreshes = refreshes + 1, last_address = COALESCE(\(bind: address), last_address)
            WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING user_id, provider, last_address, client
            """
        ).all()
        for row in touched {
            logAudit(
                AuditRecord(
                    at: now, event: AuditRecord.Event.refresh.rawValue, userID: try row.text("user_id"), sessionID: id,
                    provider: try row.optionalText("provider"), address: try row.optionalText("last_address"),
                    client: try row.optionalText("client")))
        }
    }

    /// Revokes one session (the whole refresh-token family) for `reason`; returns whether it was active. A session
    /// revoked before keeps its first reason.
    @discardableResult
    func revokeSession(id: String, reason: SessionEndReason, detail: String?, now: Int64) async throws -> Bool {
        let ended = try await sql.raw(
            """
            UPDATE mend_sessions SET revoked_at = \(bind: now), revoked_reason = \(bind: reason.rawValue),
                revoked_detail = \(bind: detail)
            WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING id, user_id, provider, last_address, client
            """
        ).all()
        guard let row = ended.first else { return false }
        revocations.record(sessionID: id, .init(reason: reason.rawValue, detail: detail, endedAt: now))
        logAudit(
            try .ending(id, user: try row.text("user_id"), reason: reason, detail: detail, at: now, row: row))
        return true
    }

    /// Revokes every active session of a user for `reason` (but `keeping` one, if named); returns how many.
    @discardableResult
    func revokeSessions(
        userID: String, keeping kept: String?, reason: SessionEndReason, detail: String?, now: Int64
    ) async throws -> Int {
        let ended = try await sql.raw(
            """
            UPDATE mend_sessions SET revoked_at = \(bind: now), revoked_reason = \(bind: reason.rawValue),
                revoked_detail = \(bind: detail)
            WHERE user_id = \(bind: userID) AND revoked_at IS NULL AND id <> \(bind: kept ?? "")
            RETURNING id, provider, last_address, client
            """
        ).all()
        for row in ended {
            let id = try row.text("id")
            revocations.record(sessionID: id, .init(reason: reason.rawValue, detail: detail, endedAt: now))
            logAudit(try .ending(id, user: userID, reason: reason, detail: detail, at: now, row: row))
        }
        return ended.count
    }

    // MARK: Revocation log

    /// The sessions that ended at or after `since` (unix seconds), from the `mend_revocations` log that a trigger
    /// on `mend_sessions` writes whenever a session's `revoked_at` is first set, by Mend or by an operator's SQL.
    func revocations(since: Int64) async throws -> [(sessionID: String, ending: RevocationView.Ending)] {
        try await sql.raw(
            """
            SELECT session_id, reason, detail, revoked_at FROM mend_revocations WHERE revoked_at >= \(bind: since)
            """
        ).all().map { row in
            (
                try row.text("session_id"),
                RevocationView.Ending(
                    reason: try row.optionalText("reason"), detail: try row.optionalText("detail"),
                    endedAt: try row.integer("revoked_at"))
            )
        }
    }

    // MARK: Refresh tokens

    func insertRefreshToken(_ token: RefreshTokenRecord) async throws {
        try await sql.raw(
            """
            INSERT INTO mend_refresh_tokens (token_hash, session_id, created_at, expires_at, rotated_at, replaced_by,
                successor_sealed)
            VALUES (\(bind: token.tokenHash), \(bind: token.sessionID), \(bind: token.createdAt),
                \(bind: token.expiresAt), NULL, NULL, NULL)
            """
        ).run()
    }

    func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await sql.raw(
            """
            SELECT token_hash, session_id, created_at, expires_at, rotated_at, replaced_by, successor_sealed
            FROM mend_refresh_tokens WHERE token_hash = \(bind: hash)
            """
        ).first().map { row in
            RefreshTokenRecord(
                tokenHash: try row.text("token_hash"), sessionID: try row.text("session_id"),
                createdAt: try row.integer("created_at"), expiresAt: try row.integer("expires_at"),
                rotatedAt: try row.optionalInteger("rotated_at"), replacedBy: try row.optionalText("replaced_by"),
                successorSealed: try row.optionalText("successor_sealed"))
        }
    }

    /// Marks `hash` rotated — replaced by `replacement`, whose token it keeps sealed (``SuccessorSeal``) — if and only
    /// if nobody rotated it before: the one atomic step of a refresh. Of any number of concurrent callers, on any
    /// number of instances, exactly one gets `true`; the others read the winner's successor from the row.
    func claimRefreshToken(
        hash: String, replacement: String, sealedSuccessor: String, now: Int64
    ) async throws -> Bool {
        try await !sql.raw(
            """
            UPDATE mend_refresh_tokens SET rotated_at = \(bind: now), replaced_by = \(bind: replacement),
                successor_sealed = \(bind: sealedSuccessor)
            WHERE token_hash = \(bind: hash) AND rotated_at IS NULL RETURNING token_hash
            """
        ).all().isEmpty
    }

    func deleteRefreshToken(hash: String) async throws {
        try await sql.raw("DELETE FROM mend_refresh_tokens WHERE token_hash = \(bind: hash)").run()
    }

    /// Removes what can no longer matter: refresh tokens and revoked or expired sessions past their expiry, login
    /// codes older than a day, and revocations older than `revocationRetention` seconds (no access token of theirs
    /// can still be valid).
    func purge(now: Int64, revocationRetention: Int64) async throws {
        try await sql.raw("DELETE FROM mend_revocations WHERE revoked_at < \(bind: now - revocationRetention)").run()
        try await sql.raw("DELETE FROM mend_refresh_tokens WHERE expires_at < \(bind: now)").run()
        try await sql.raw("DELETE FROM mend_sessions WHERE expires_at < \(bind: now)").run()
        try await sql.raw("DELETE FROM mend_login_codes WHERE created_at < \(bind: now - 86400)").run()
        try await sql.raw("DELETE FROM mend_dpop_proofs WHERE expires_at <= \(bind: now)").run()
        try await sql.raw("DELETE FROM mend_passkey_challenges WHERE expires_at < \(bind: now)").run()
    }
}
