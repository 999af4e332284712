import Foundation
import SQLKit

/// A provider's account of a user: `(provider, subject)` is unique, and one user may have several (Facebook and
/// Apple). Facebook's is also `mend_users.provider_user_id`, which the provider's callbacks look users up by.
struct IdentityRecord: Sendable, Hashable {
    var provider: String
    var subject: String
    var userID: String
    var email: String?
    /// The client the kept provider token was issued to.
    var providerClientID: String? = nil
    /// The token kept for the identity (decrypted): what the provider revokes with at account deletion, and — for a
    /// provider whose kept token is its access token (Facebook) — what the validity check and the profile use.
    var providerToken: String? = nil
    /// When the kept token expires, if the provider said.
    var providerTokenExpiresAt: Int64? = nil
    /// When the validity check last checked the kept token.
    var providerTokenCheckedAt: Int64? = nil
    /// Why the kept token was found invalid (it is then removed).
    var providerTokenInvalidReason: String? = nil
}

/// What a provider says of a login's subject (an id_token's claims, or what the provider's API answered).
struct IdentityClaims: Sendable {
    var provider: String
    var subject: String
    var email: String?
    var emailVerified: Bool?
    var isPrivateEmail: Bool?
}

/// The users and their identities at the providers, with the provider tokens kept for them.
struct SQLIdentityStore: IdentityStore, SQLStore {
    let connection: StoreConnection

    // MARK: Identities

    static let identityColumns = """
        provider, subject, user_id, email, provider_client_id, provider_token, provider_token_expires_at,
        provider_token_checked_at, provider_token_invalid_reason
        """

    /// Keeps the provider token of a login on its identity (sealed like every stored provider token), as checked
    /// now.
    func keepProviderToken(
        provider: String, subject: String, clientID: String, token: String, expiresAt: Int64?, now: Int64
    ) async throws {
        let sealed = try cipher.seal(token)
        try await sql.raw(
            """
            UPDATE mend_identities SET provider_client_id = \(bind: clientID), provider_token = \(bind: sealed),
                provider_token_expires_at = \(bind: expiresAt), provider_token_checked_at = \(bind: now),
                provider_token_invalid_reason = NULL
            WHERE provider = \(bind: provider) AND subject = \(bind: subject)
            """
        ).run()
    }

    /// Records a validity check of the identity's kept token: when, and (for an invalid token) why; an invalid token
    /// is removed.
    func recordTokenCheck(provider: String, subject: String, now: Int64, invalidReason: String?) async throws {
        if let invalidReason {
            try await sql.raw(
                """
                UPDATE mend_identities SET provider_token = NULL, provider_token_checked_at = \(bind: now),
                    provider_token_invalid_reason = \(bind: invalidReason)
                WHERE provider = \(bind: provider) AND subject = \(bind: subject)
                """
            ).run()
        } else {
            try await sql.raw(
                """
                UPDATE mend_identities SET provider_token_checked_at = \(bind: now)
                WHERE provider = \(bind: provider) AND subject = \(bind: subject)
                """
            ).run()
        }
    }

    /// The identities of `provider` whose kept token was last checked before `checkedBefore` (or never), oldest
    /// check first.
    func identitiesDueForCheck(provider: String, checkedBefore: Int64, limit: Int) async throws -> [IdentityRecord] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.identityColumns) FROM mend_identities
            WHERE provider = \(bind: provider) AND provider_token IS NOT NULL
                AND (provider_token_checked_at IS NULL OR provider_token_checked_at < \(bind: checkedBefore))
            ORDER BY provider_token_checked_at LIMIT \(bind: limit)
            """
        ).all().map(identity(from:))
    }

    /// The user's identity at `provider`, if they have one.
    func identity(provider: String, userID: String) async throws -> IdentityRecord? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.identityColumns) FROM mend_identities
            WHERE provider = \(bind: provider) AND user_id = \(bind: userID) ORDER BY subject
            """
        ).first().map(identity(from:))
    }

    /// The identity `(provider, subject)`, if a user has it.
    func identity(provider: String, subject: String) async throws -> IdentityRecord? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.identityColumns) FROM mend_identities
            WHERE provider = \(bind: provider) AND subject = \(bind: subject)
            """
        ).first().map(identity(from:))
    }

    /// The identities of a user, by provider.
    func identities(userID: String) async throws -> [IdentityRecord] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.identityColumns) FROM mend_identities WHERE user_id = \(bind: userID)
            ORDER BY provider, subject
            """
        ).all().map(identity(from:))
    }

    /// Gives `userID` the identity, unless some user has it already; returns whether it was added. A Facebook
    /// identity also becomes the user's `provider_user_id` when the user has none.
    func addIdentity(_ claims: IdentityClaims, userID: String, now: Int64) async throws -> Bool {
        let added = try await !sql.raw(
            """
            INSERT INTO mend_identities (provider, subject, user_id, email, email_verified, is_private_email,
                created_at, last_login_at)
            VALUES (\(bind: claims.provider), \(bind: claims.subject), \(bind: userID), \(bind: claims.email),
                \(bind: claims.emailVerified), \(bind: claims.isPrivateEmail), \(bind: now), \(bind: now))
            ON CONFLICT (provider, subject) DO NOTHING RETURNING user_id
            """
        ).all().isEmpty
        if added, try await identities(userID: userID).count > 1 {
            logAudit(
                AuditRecord(
                    at: now, event: AuditRecord.Event.accountLinked.rawValue, userID: userID,
                    provider: claims.provider))
        }
        if added, claims.provider == "facebook" {
            try await sql.raw(
                """
                UPDATE mend_users SET provider_user_id = \(bind: claims.subject), updated_at = \(bind: now)
                WHERE id = \(bind: userID) AND provider_user_id IS NULL
                """
            ).run()
        }
        return added
    }

    /// Records a sign-in with the identity: its time and the e-mail the provider now gives.
    func touchIdentity(_ claims: IdentityClaims, now: Int64) async throws {
        try await sql.raw(
            """
            UPDATE mend_identities SET last_login_at = \(bind: now), email = COALESCE(\(bind: claims.email), email),
                email_verified = COALESCE(\(bind: claims.emailVerified), email_verified),
                is_private_email = COALESCE(\(bind: claims.isPrivateEmail), is_private_email)
            WHERE provider = \(bind: claims.provider) AND subject = \(bind: claims.subject)
            """
        ).run()
    }

    /// Creates a user who signed in with an id_token: a profile from its claims, no provider token, no scopes (a
    /// Limited Login's subject is the Facebook user id, and becomes `provider_user_id`).
    /// Sets the scopes a user's sessions carry (an identity login adds what its provider granted).
    func setGrantedScopes(_ scopes: [String], userID: String, now: Int64) async throws {
        try await sql.raw(
            """
            UPDATE mend_users SET granted_scopes = \(bind: ScopeList.encode(scopes)), updated_at = \(bind: now)
            WHERE id = \(bind: userID)
            """
        ).run()
    }

    func createUser(name: String, email: String?, facebookUserID: String?, now: Int64) async throws -> UserRecord {
        let rows = try await sql.raw(
            """
            INSERT INTO mend_users (id, provider_user_id, name, email, picture, granted_scopes, declined_scopes,
                profile_refreshed_at, created_at, updated_at)
            VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: facebookUserID), \(bind: name), \(bind: email),
                NULL, '', '', \(bind: now), \(bind: now), \(bind: now))
            RETURNING \(unsafeRaw: UserRecord.columns)
            """
        ).all()
        guard let row = rows.first else { throw StoreFailure("the user insert returned no row") }
        return try UserRecord(row: row)
    }

    private func identity(from row: any SQLRow) throws -> IdentityRecord {
        IdentityRecord(
            provider: try row.text("provider"), subject: try row.text("subject"), userID: try row.text("user_id"),
            email: try row.optionalText("email"), providerClientID: try row.optionalText("provider_client_id"),
            providerToken: try row.optionalText("provider_token").flatMap(cipher.open),
            providerTokenExpiresAt: try row.optionalInteger("provider_token_expires_at"),
            providerTokenCheckedAt: try row.optionalInteger("provider_token_checked_at"),
            providerTokenInvalidReason: try row.optionalText("provider_token_invalid_reason"))
    }
}

extension SQLIdentityStore {
    // MARK: Users

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
            RETURNING \(unsafeRaw: UserRecord.columns)
            """
        ).first().map(UserRecord.init(row:))
    }

    func user(id: String) async throws -> UserRecord? {
        try await sql.raw("SELECT \(unsafeRaw: UserRecord.columns) FROM mend_users WHERE id = \(bind: id)").first()
            .map(UserRecord.init(row:))
    }

    func user(providerUserID: String) async throws -> UserRecord? {
        try await sql.raw(
            "SELECT \(unsafeRaw: UserRecord.columns) FROM mend_users WHERE provider_user_id = \(bind: providerUserID)"
        ).first().map(UserRecord.init(row:))
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
    /// (``SessionAuthority/openSession(for:client:provider:flow:)``) and hands out nothing; a session written before that is ended here, so
    /// no session of a deleted user is ever deleted while active (which would leave its access token valid on every
    /// instance until it expired).
    func deleteUser(
        id: String, reason: SessionEndReason, detail: String?, now: Int64
    ) async throws -> (deleted: Bool, sessionsEnded: Int) {
        let deleted = try await !sql.raw("DELETE FROM mend_users WHERE id = \(bind: id) RETURNING id").all().isEmpty
        if deleted { logAudit(AuditRecord(at: now, event: AuditRecord.Event.accountDeleted.rawValue, userID: id)) }
        let ended = try await SQLSessionStore(connection: connection).revokeSessions(
            userID: id, reason: reason, detail: detail, now: now)
        try await sql.raw(
            """
            DELETE FROM mend_refresh_tokens WHERE session_id IN (SELECT id FROM mend_sessions WHERE user_id = \(bind: id))
            """
        ).run()
        try await sql.raw("DELETE FROM mend_sessions WHERE user_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM mend_identities WHERE user_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM mend_passkeys WHERE user_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM mend_passkey_users WHERE user_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM mend_passkey_challenges WHERE user_id = \(bind: id)").run()
        return (deleted, ended)
    }
}

extension UserRecord {
    /// The columns of `mend_users` a ``UserRecord`` is read from.
    static let columns = """
        id, provider_user_id, name, email, picture, granted_scopes, declined_scopes, profile_refreshed_at, created_at,
        updated_at
        """

    /// The user a row of ``columns`` holds.
    init(row: any SQLRow) throws {
        self.init(
            id: try row.text("id"), providerUserID: try row.optionalText("provider_user_id"),
            name: try row.text("name"),
            email: try row.optionalText("email"), picture: try row.optionalText("picture"),
            grantedScopes: ScopeList.decode(try row.text("granted_scopes")),
            declinedScopes: ScopeList.decode(try row.text("declined_scopes")),
            profileRefreshedAt: try row.integer("profile_refreshed_at"), createdAt: try row.integer("created_at"),
            updatedAt: try row.integer("updated_at"))
    }
}
