import Foundation
import MendCore
import SQLKit

/// A passkey as stored: a user's WebAuthn credential.
struct PasskeyRecord: Sendable, Hashable {
    /// Mend's id of the passkey (what the routes name), not the credential ID.
    var id: String
    /// The credential ID, base64url.
    var credentialID: String
    var userID: String
    /// The COSE public key, base64url.
    var publicKey: String
    /// Its COSE algorithm (-7, -8, -257).
    var algorithm: Int64
    var signCount: Int64
    var backupEligible: Bool
    var backedUp: Bool
    var userVerified: Bool
    /// The transports the authenticator reported (`internal`, `hybrid`, …).
    var transports: [String]
    /// The authenticator model's AAGUID, hex (zeros when the browser hides it).
    var aaguid: String
    var attestationFormat: String
    /// The name its user gave it.
    var name: String
    /// When the counter last went back (a signal: a clone, or a restored device).
    var counterRegressedAt: Int64?
    var createdAt: Int64
    var lastUsedAt: Int64?
}

/// A ceremony's challenge, once claimed: whose it was and until when it could be answered.
struct ClaimedChallenge: Sendable, Hashable {
    var userID: String?
    var expiresAt: Int64
}

/// Passkeys, their users' handles, and the ceremonies' challenges (each answered once, on any instance).
protocol PasskeyStore: Sendable {
    /// The user's handle, made (random) the first time.
    func userHandle(userID: String) async throws -> String
    /// The user a handle belongs to.
    func user(handle: String) async throws -> String?
    func insertChallenge(hash: String, ceremony: String, userID: String?, expiresAt: Int64) async throws
    /// Takes a challenge of `ceremony` for one answer: `nil` when it was never issued, or was answered before.
    func claimChallenge(hash: String, ceremony: String) async throws -> ClaimedChallenge?
    /// Stores a new passkey; `false` when its credential ID is registered already.
    func addPasskey(_ passkey: PasskeyRecord) async throws -> Bool
    func passkey(credentialID: String) async throws -> PasskeyRecord?
    /// The user's passkeys, oldest first.
    func passkeys(userID: String) async throws -> [PasskeyRecord]
    /// Records a sign-in: the counter, BS, and when the counter went back (`regressed`).
    func recordUse(id: String, signCount: Int64, backedUp: Bool, regressed: Bool, now: Int64) async throws
    /// Renames the user's passkey; `false` when the user has none of this id.
    func renamePasskey(id: String, userID: String, name: String) async throws -> Bool
    /// Removes the user's passkey; `false` when the user has none of this id.
    func removePasskey(id: String, userID: String) async throws -> Bool
}

struct SQLPasskeyStore: PasskeyStore, SQLStore {
    let connection: StoreConnection

    func userHandle(userID: String) async throws -> String {
        let fresh = OpaqueToken.make()
        try await sql.raw(
            """
            INSERT INTO mend_passkey_users (user_id, handle) VALUES (\(bind: userID), \(bind: fresh))
            ON CONFLICT (user_id) DO NOTHING
            """
        ).run()
        guard
            let row = try await sql.raw("SELECT handle FROM mend_passkey_users WHERE user_id = \(bind: userID)")
                .first()
        else { throw StoreFailure("the user handle of \(userID) is not stored") }
        return try row.text("handle")
    }

    func user(handle: String) async throws -> String? {
        try await sql.raw("SELECT user_id FROM mend_passkey_users WHERE handle = \(bind: handle)").first()
            .map { try $0.text("user_id") }
    }

    func insertChallenge(hash: String, ceremony: String, userID: String?, expiresAt: Int64) async throws {
        try await sql.raw(
            """
            INSERT INTO mend_passkey_challenges (challenge_hash, ceremony, user_id, expires_at)
            VALUES (\(bind: hash), \(bind: ceremony), \(bind: userID), \(bind: expiresAt))
            """
        ).run()
    }

    func claimChallenge(hash: String, ceremony: String) async throws -> ClaimedChallenge? {
        try await sql.raw(
            """
            DELETE FROM mend_passkey_challenges WHERE challenge_hash = \(bind: hash) AND ceremony = \(bind: ceremony)
            RETURNING user_id, expires_at
            """
        ).first().map {
            ClaimedChallenge(userID: try $0.optionalText("user_id"), expiresAt: try $0.integer("expires_at"))
        }
    }

    func addPasskey(_ passkey: PasskeyRecord) async throws -> Bool {
        try await !sql.raw(
            """
            INSERT INTO mend_passkeys (id, credential_id, user_id, public_key, algorithm, sign_count, backup_eligible,
                backed_up, user_verified, transports, aaguid, attestation_format, name, counter_regressed_at,
                created_at, last_used_at)
            VALUES (\(bind: passkey.id), \(bind: passkey.credentialID), \(bind: passkey.userID),
                \(bind: passkey.publicKey), \(bind: passkey.algorithm), \(bind: passkey.signCount),
                \(bind: passkey.backupEligible ? 1 : 0), \(bind: passkey.backedUp ? 1 : 0),
                \(bind: passkey.userVerified ? 1 : 0), \(bind: ScopeList.encode(passkey.transports)),
                \(bind: passkey.aaguid), \(bind: passkey.attestationFormat), \(bind: passkey.name), NULL,
                \(bind: passkey.createdAt), NULL)
            ON CONFLICT (credential_id) DO NOTHING RETURNING id
            """
        ).all().isEmpty
    }

    func passkey(credentialID: String) async throws -> PasskeyRecord? {
        try await sql.raw(
            "SELECT \(unsafeRaw: PasskeyRecord.columns) FROM mend_passkeys WHERE credential_id = \(bind: credentialID)"
        ).first().map(PasskeyRecord.init(row:))
    }

    func passkeys(userID: String) async throws -> [PasskeyRecord] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: PasskeyRecord.columns) FROM mend_passkeys WHERE user_id = \(bind: userID)
            ORDER BY created_at, id
            """
        ).all().map(PasskeyRecord.init(row:))
    }

    func recordUse(id: String, signCount: Int64, backedUp: Bool, regressed: Bool, now: Int64) async throws {
        try await sql.raw(
            """
            UPDATE mend_passkeys SET sign_count = \(bind: signCount), backed_up = \(bind: backedUp ? 1 : 0),
                last_used_at = \(bind: now),
                counter_regressed_at = CASE WHEN \(bind: regressed ? 1 : 0) = 1 THEN \(bind: now)
                    ELSE counter_regressed_at END
            WHERE id = \(bind: id)
            """
        ).run()
    }

    func renamePasskey(id: String, userID: String, name: String) async throws -> Bool {
        try await !sql.raw(
            """
            UPDATE mend_passkeys SET name = \(bind: name) WHERE id = \(bind: id) AND user_id = \(bind: userID)
            RETURNING id
            """
        ).all().isEmpty
    }

    func removePasskey(id: String, userID: String) async throws -> Bool {
        try await !sql.raw(
            "DELETE FROM mend_passkeys WHERE id = \(bind: id) AND user_id = \(bind: userID) RETURNING id"
        ).all().isEmpty
    }
}

extension PasskeyRecord {
    static let columns = """
        id, credential_id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, user_verified,
        transports, aaguid, attestation_format, name, counter_regressed_at, created_at, last_used_at
        """

    init(row: any SQLRow) throws {
        self.init(
            id: try row.text("id"), credentialID: try row.text("credential_id"), userID: try row.text("user_id"),
            publicKey: try row.text("public_key"), algorithm: try row.integer("algorithm"),
            signCount: try row.integer("sign_count"), backupEligible: try row.integer("backup_eligible") != 0,
            backedUp: try row.integer("backed_up") != 0, userVerified: try row.integer("user_verified") != 0,
            transports: ScopeList.decode(try row.text("transports")), aaguid: try row.text("aaguid"),
            attestationFormat: try row.text("attestation_format"), name: try row.text("name"),
            counterRegressedAt: try row.optionalInteger("counter_regressed_at"),
            createdAt: try row.integer("created_at"),
            lastUsedAt: try row.optionalInteger("last_used_at"))
    }
}
