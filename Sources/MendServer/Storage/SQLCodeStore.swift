import Foundation
import SQLKit

/// The one-time codes: login codes, the `signed_request` digests of handled callbacks, data-deletion confirmations.
struct SQLCodeStore: CodeStore, SQLStore {
    let connection: StoreConnection

    // MARK: Authorization codes (single use, RFC 9700)

    /// Claims a code (by its hash) for one login; `false` when it was claimed before: a replay.
    func claimLoginCode(hash: String, now: Int64) async throws -> Bool {
        try await !sql.raw(
            """
            INSERT INTO mend_login_codes (code_hash, session_id, created_at) VALUES (\(bind: hash), NULL, \(bind: now))
            ON CONFLICT (code_hash) DO NOTHING RETURNING code_hash
            """
        ).all().isEmpty
    }

    /// The session a claimed code issued, if it issued one.
    func sessionIssued(byCodeHash hash: String) async throws -> String? {
        try await sql.raw("SELECT session_id FROM mend_login_codes WHERE code_hash = \(bind: hash)").first()
            .flatMap { try $0.optionalText("session_id") }
    }

    func attachSession(_ sessionID: String, toCodeHash hash: String) async throws {
        try await sql.raw(
            "UPDATE mend_login_codes SET session_id = \(bind: sessionID) WHERE code_hash = \(bind: hash)"
        ).run()
    }

    /// Releases a claim whose exchange failed before the provider used the code, so that the app may retry.
    func releaseLoginCode(hash: String) async throws {
        try await sql.raw("DELETE FROM mend_login_codes WHERE code_hash = \(bind: hash) AND session_id IS NULL").run()
    }

    // MARK: Provider callbacks (signed_request, single use)

    /// Whether a `signed_request` (by its digest) was handled before and is still remembered.
    func hasSeenSignedRequest(digest: String, now: Int64) async throws -> Bool {
        try await !sql.raw(
            """
            SELECT digest FROM mend_seen_signed_requests WHERE digest = \(bind: digest) AND expires_at >= \(bind: now)
            """
        ).all().isEmpty
    }

    /// Remembers a handled `signed_request` (by its digest) until it would be refused as too old anyway, and forgets
    /// the ones that have expired. Remembering one twice (two instances handling it at once) is harmless.
    func rememberSignedRequest(digest: String, expiresAt: Int64, now: Int64) async throws {
        try await sql.raw("DELETE FROM mend_seen_signed_requests WHERE expires_at < \(bind: now)").run()
        try await sql.raw(
            """
            INSERT INTO mend_seen_signed_requests (digest, expires_at) VALUES (\(bind: digest), \(bind: expiresAt))
            ON CONFLICT (digest) DO NOTHING
            """
        ).run()
    }

    // MARK: Data deletion

    func recordDeletion(_ deletion: DeletionRecord) async throws {
        try await sql.raw(
            """
            INSERT INTO mend_deletions (confirmation_code, provider_user_id, status, requested_at, completed_at)
            VALUES (\(bind: deletion.confirmationCode), \(bind: deletion.providerUserID), \(bind: deletion.status),
                \(bind: deletion.requestedAt), \(bind: deletion.completedAt))
            """
        ).run()
    }

    func deletion(confirmationCode: String) async throws -> DeletionRecord? {
        try await sql.raw(
            """
            SELECT confirmation_code, provider_user_id, status, requested_at, completed_at
            FROM mend_deletions WHERE confirmation_code = \(bind: confirmationCode)
            """
        ).first().map { row in
            DeletionRecord(
                confirmationCode: try row.text("confirmation_code"), providerUserID: try row.text("provider_user_id"),
                status: try row.text("status"), requestedAt: try row.integer("requested_at"),
                completedAt: try row.optionalInteger("completed_at"))
        }
    }
}
