import Foundation
import SQLKit

/// The DPoP proofs every instance has accepted (PostgreSQL): one conditional insert per proof decides, for all
/// instances at once, whether its key and `jti` were seen within their window.
struct SQLDPoPReplayStore: DPoPReplayStore, SQLStore {
    let connection: StoreConnection

    /// Inserts the proof, or renews a row whose window has ended; `false` when a row within its window was there.
    func firstUse(jkt: String, jti: String, expiresAt: Int64, now: Int64) async throws -> Bool {
        let inserted = try await sql.raw(
            """
            INSERT INTO mend_dpop_proofs AS p (jkt, jti, expires_at)
            VALUES (\(bind: jkt), \(bind: jti), \(bind: expiresAt))
            ON CONFLICT (jkt, jti) DO UPDATE SET expires_at = \(bind: expiresAt)
            WHERE p.expires_at <= \(bind: now)
            RETURNING jkt
            """
        ).all()
        return !inserted.isEmpty
    }

    func purgeProofs(now: Int64) async throws {
        try await sql.raw("DELETE FROM mend_dpop_proofs WHERE expires_at <= \(bind: now)").run()
    }
}
