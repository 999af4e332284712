import Foundation
import Logging
import SQLKit

/// One authentication event of the audit log (`mend_audit`): what happened, to whom, from where. Never a token, a
/// code or a secret: the columns hold ids, provider names, reasons, address keys and client names only.
struct AuditRecord: Sendable, Hashable {
    /// The event codes. The database's triggers write `login`, `refresh`, `logout`, `revocation`, `reuse_detected`,
    /// `session_ended`, `account_linked` and `account_deleted` in the transaction of their change; the server writes
    /// the others, which have no write of their own, best effort.
    enum Event: String, Sendable, CaseIterable {
        case login
        case loginRefused = "login_refused"
        case refresh
        case reuseDetected = "reuse_detected"
        case logout
        case revocation
        case sessionExpired = "session_expired"
        case sessionEnded = "session_ended"
        case accountLinked = "account_linked"
        case accountDeleted = "account_deleted"
        case adminAction = "admin_action"
        case callbackReceived = "callback_received"
        case passkeyAdded = "passkey_added"
        case passkeyRenamed = "passkey_renamed"
        case passkeyRemoved = "passkey_removed"
        case passkeyCounterRegressed = "passkey_counter_regressed"
    }

    /// Its order in the log (`nil` before it is written).
    var id: Int64?
    /// Unix seconds.
    var at: Int64
    /// The event code (an ``Event`` raw value; a trigger of a later version may write others).
    var event: String
    var userID: String?
    var sessionID: String?
    var provider: String?
    /// The flow of a login, the reason of an ending or a refusal (an error code, never a message).
    var detail: String?
    /// The client's address, keyed as the rate limits key it.
    var address: String?
    /// The `Mend-Client` name of the session's client.
    var client: String?
    /// Who did it, when not the user (an admin token's id).
    var actor: String?
}

extension AuditRecord {
    /// The event of a session's ending, as the triggers name it: `reuse_detected`, `revocation` (RFC 7009), `logout`,
    /// or `session_ended` for every other reason; its detail is `reason[: detail]`.
    static func ending(
        _ session: String, user: String, reason: SessionEndReason, detail: String?, at: Int64, row: any SQLRow
    ) throws -> AuditRecord {
        let event: Event =
            switch reason {
            case .refreshTokenReused: .reuseDetected
            case .loggedOut where detail == "token revocation": .revocation
            case .loggedOut: .logout
            default: .sessionEnded
            }
        return AuditRecord(
            at: at, event: event.rawValue, userID: user, sessionID: session, provider: try row.optionalText("provider"),
            detail: reason.rawValue + (detail.map { ": \($0)" } ?? ""), address: try row.optionalText("last_address"),
            client: try row.optionalText("client"))
    }

    /// The structured `audit` log line of the event.
    func log(to logger: Logger) {
        var metadata: Logger.Metadata = ["event": .string(event)]
        for (key, value) in [
            ("user_id", userID), ("session_id", sessionID), ("provider", provider), ("detail", detail),
            ("address", address), ("client", client), ("actor", actor),
        ] {
            if let value { metadata[key] = .string(value) }
        }
        logger.info("audit", metadata: metadata)
    }
}

/// The audit log.
struct SQLAuditStore: AuditStore, SQLStore {
    let connection: StoreConnection

    // MARK: Audit log

    /// Appends an event the server writes itself (one without a database write of its own).
    func recordAudit(_ record: AuditRecord) async throws {
        try await sql.raw(
            """
            INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client, actor)
            VALUES (\(bind: record.at), \(bind: record.event), \(bind: record.userID), \(bind: record.sessionID),
                \(bind: record.provider), \(bind: record.detail), \(bind: record.address), \(bind: record.client),
                \(bind: record.actor))
            """
        ).run()
    }

    /// The newest events (of `userID`, or of everyone; of one `event` code, or of all), newest first; `before` pages
    /// back by id.
    func auditEvents(
        userID: String?, event: String?, before: Int64?, limit: Int
    ) async throws -> [AuditRecord] {
        var query = SQLQueryString(
            "SELECT id, at, event, user_id, session_id, provider, detail, address, client, actor FROM mend_audit WHERE 1 = 1"
        )
        if let userID {
            query.appendInterpolation(unsafeRaw: " AND user_id = "); query.appendInterpolation(bind: userID)
        }
        if let event { query.appendInterpolation(unsafeRaw: " AND event = "); query.appendInterpolation(bind: event) }
        if let before { query.appendInterpolation(unsafeRaw: " AND id < "); query.appendInterpolation(bind: before) }
        query.appendInterpolation(unsafeRaw: " ORDER BY id DESC LIMIT \(max(1, min(limit, 1000)))")
        return try await sql.raw(query).all().map { row in
            AuditRecord(
                id: try row.integer("id"), at: try row.integer("at"), event: try row.text("event"),
                userID: try row.optionalText("user_id"), sessionID: try row.optionalText("session_id"),
                provider: try row.optionalText("provider"), detail: try row.optionalText("detail"),
                address: try row.optionalText("address"), client: try row.optionalText("client"),
                actor: try row.optionalText("actor"))
        }
    }

    /// Drops the events older than `before` (unix seconds): `MEND_AUDIT_RETENTION`.
    func pruneAudit(before: Int64) async throws {
        try await sql.raw("DELETE FROM mend_audit WHERE at < \(bind: before)").run()
    }
}
