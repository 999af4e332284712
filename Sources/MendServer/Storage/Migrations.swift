import Foundation
import SQLKit

/// The schema, as numbered migrations that ``MigrationRunner`` runs in order at start; each runs once per database,
/// recorded in `mend_schema_migrations`.
enum Migrations {
    struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: [String]
        /// Statements that differ by database (triggers), run after ``statements``.
        var sqlite: [String] = []
        var postgres: [String] = []

        /// What runs on a database of `kind`.
        func statements(for kind: ServerDatabase.Kind) -> [String] {
            statements + (kind == .postgres ? postgres : sqlite)
        }
    }

    /// Every migration, oldest first. Never edit a released one: add the next.
    static let all: [Migration] = [
        Migration(
            version: 1, name: "users, sessions, refresh tokens, login codes, deletions",
            statements: [
                """
                CREATE TABLE mend_users (
                    id TEXT PRIMARY KEY,
                    provider_user_id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    email TEXT,
                    picture TEXT,
                    granted_scopes TEXT NOT NULL,
                    declined_scopes TEXT NOT NULL,
                    provider_token TEXT,
                    provider_token_expires_at BIGINT,
                    provider_token_checked_at BIGINT,
                    provider_token_invalid_reason TEXT,
                    profile_refreshed_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE mend_sessions (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    revoked_reason TEXT
                )
                """,
                "CREATE INDEX mend_sessions_user ON mend_sessions (user_id)",
                """
                CREATE TABLE mend_refresh_tokens (
                    token_hash TEXT PRIMARY KEY,
                    session_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    rotated_at BIGINT,
                    replaced_by TEXT
                )
                """,
                "CREATE INDEX mend_refresh_tokens_session ON mend_refresh_tokens (session_id)",
                """
                CREATE TABLE mend_login_codes (
                    code_hash TEXT PRIMARY KEY,
                    session_id TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE mend_deletions (
                    confirmation_code TEXT PRIMARY KEY,
                    provider_user_id TEXT NOT NULL,
                    status TEXT NOT NULL,
                    requested_at BIGINT NOT NULL,
                    completed_at BIGINT
                )
                """,
            ]),
        Migration(
            version: 2, name: "sealed refresh-token successors (idempotent refresh), session end details",
            statements: [
                "ALTER TABLE mend_refresh_tokens ADD COLUMN successor_sealed TEXT",
                "ALTER TABLE mend_sessions ADD COLUMN revoked_detail TEXT",
            ]),
        Migration(
            version: 3, name: "signed_request callbacks seen (replays are refused)",
            statements: [
                """
                CREATE TABLE mend_seen_signed_requests (
                    digest TEXT PRIMARY KEY,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX mend_seen_signed_requests_expiry ON mend_seen_signed_requests (expires_at)",
            ]),
        Migration(
            version: 4,
            name:
                "revocation log (the revocation view's source) and its trigger, NOTIFY on PostgreSQL; shared rate limits",
            statements: [
                """
                CREATE TABLE mend_rate_limits (
                    key TEXT PRIMARY KEY,
                    tokens DOUBLE PRECISION NOT NULL,
                    updated_at DOUBLE PRECISION NOT NULL
                )
                """,
                """
                CREATE TABLE mend_revocations (
                    session_id TEXT PRIMARY KEY,
                    reason TEXT,
                    detail TEXT,
                    revoked_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX mend_revocations_time ON mend_revocations (revoked_at)",
                """
                INSERT INTO mend_revocations (session_id, reason, detail, revoked_at)
                SELECT id, revoked_reason, revoked_detail, revoked_at FROM mend_sessions WHERE revoked_at IS NOT NULL
                """,
            ],
            sqlite: [
                """
                CREATE TRIGGER mend_sessions_revoked AFTER UPDATE OF revoked_at ON mend_sessions
                FOR EACH ROW WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
                BEGIN
                    INSERT OR IGNORE INTO mend_revocations (session_id, reason, detail, revoked_at)
                    VALUES (NEW.id, NEW.revoked_reason, NEW.revoked_detail, NEW.revoked_at);
                END
                """
            ],
            postgres: [
                """
                CREATE FUNCTION mend_record_revocation() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO mend_revocations (session_id, reason, detail, revoked_at)
                    VALUES (NEW.id, NEW.revoked_reason, NEW.revoked_detail, NEW.revoked_at)
                    ON CONFLICT (session_id) DO NOTHING;
                    PERFORM pg_notify('\(RevocationFeed.channel)', json_build_object(
                        'session_id', NEW.id, 'reason', NEW.revoked_reason, 'detail', left(NEW.revoked_detail, 1000),
                        'revoked_at', NEW.revoked_at)::text);
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER mend_sessions_revoked AFTER UPDATE OF revoked_at ON mend_sessions
                FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
                EXECUTE FUNCTION mend_record_revocation()
                """,
            ]),
        Migration(
            version: 5,
            name:
                "identities by provider and subject (several per user, with a token to revoke); users without a Facebook id",
            statements: [
                """
                CREATE TABLE mend_identities (
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    email TEXT,
                    email_verified BOOLEAN,
                    is_private_email BOOLEAN,
                    provider_client_id TEXT,
                    provider_refresh_token TEXT,
                    created_at BIGINT NOT NULL,
                    last_login_at BIGINT NOT NULL,
                    PRIMARY KEY (provider, subject)
                )
                """,
                "CREATE INDEX mend_identities_user ON mend_identities (user_id)",
                """
                INSERT INTO mend_identities (provider, subject, user_id, email, email_verified, is_private_email,
                    created_at, last_login_at)
                SELECT 'facebook', provider_user_id, id, email, NULL, NULL, created_at, updated_at FROM mend_users
                """,
            ],
            // `provider_user_id` (the Facebook user id) becomes optional: a user who signed in with Apple only has
            // none. SQLite cannot drop a NOT NULL in place: the table is rebuilt (it has no triggers or references).
            sqlite: [
                """
                CREATE TABLE mend_users_v5 (
                    id TEXT PRIMARY KEY,
                    provider_user_id TEXT UNIQUE,
                    name TEXT NOT NULL,
                    email TEXT,
                    picture TEXT,
                    granted_scopes TEXT NOT NULL,
                    declined_scopes TEXT NOT NULL,
                    provider_token TEXT,
                    provider_token_expires_at BIGINT,
                    provider_token_checked_at BIGINT,
                    provider_token_invalid_reason TEXT,
                    profile_refreshed_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                INSERT INTO mend_users_v5
                SELECT id, provider_user_id, name, email, picture, granted_scopes, declined_scopes, provider_token,
                    provider_token_expires_at, provider_token_checked_at, provider_token_invalid_reason,
                    profile_refreshed_at, created_at, updated_at
                FROM mend_users
                """,
                "DROP TABLE mend_users",
                "ALTER TABLE mend_users_v5 RENAME TO mend_users",
            ],
            postgres: ["ALTER TABLE mend_users ALTER COLUMN provider_user_id DROP NOT NULL"]),
        Migration(
            version: 6,
            name: "devices: each session's client, platform, first and last address, last refresh",
            statements: [
                "ALTER TABLE mend_sessions ADD COLUMN client TEXT",
                "ALTER TABLE mend_sessions ADD COLUMN client_platform TEXT",
                "ALTER TABLE mend_sessions ADD COLUMN first_address TEXT",
                "ALTER TABLE mend_sessions ADD COLUMN last_address TEXT",
                "ALTER TABLE mend_sessions ADD COLUMN refreshed_at BIGINT",
            ]),
        Migration(
            version: 7,
            name: "the audit log: authentication events, written by triggers in the transaction of their change",
            statements: [
                "ALTER TABLE mend_sessions ADD COLUMN provider TEXT",
                "ALTER TABLE mend_sessions ADD COLUMN flow TEXT",
            ],
            sqlite: [
                """
                CREATE TABLE mend_audit (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, at BIGINT NOT NULL, event TEXT NOT NULL, user_id TEXT,
                    session_id TEXT, provider TEXT, detail TEXT, address TEXT, client TEXT, actor TEXT
                )
                """,
                "CREATE INDEX mend_audit_user ON mend_audit (user_id, id)",
                "CREATE INDEX mend_audit_time ON mend_audit (at)",
                """
                CREATE TRIGGER mend_audit_login AFTER INSERT ON mend_sessions FOR EACH ROW
                BEGIN
                    INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
                    VALUES (NEW.created_at, 'login', NEW.user_id, NEW.id, NEW.provider, NEW.flow, NEW.first_address,
                        NEW.client);
                END
                """,
                """
                CREATE TRIGGER mend_audit_refresh AFTER UPDATE OF refreshed_at ON mend_sessions FOR EACH ROW
                WHEN NEW.refreshed_at IS NOT NULL AND (OLD.refreshed_at IS NULL OR NEW.refreshed_at <> OLD.refreshed_at)
                BEGIN
                    INSERT INTO mend_audit (at, event, user_id, session_id, provider, address, client)
                    VALUES (NEW.refreshed_at, 'refresh', NEW.user_id, NEW.id, NEW.provider, NEW.last_address,
                        NEW.client);
                END
                """,
                """
                CREATE TRIGGER mend_audit_ended AFTER UPDATE OF revoked_at ON mend_sessions
                FOR EACH ROW WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
                BEGIN
                    INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
                    VALUES (NEW.revoked_at, CASE
                        WHEN NEW.revoked_reason = 'refresh_token_reused' THEN 'reuse_detected'
                        WHEN NEW.revoked_reason = 'logged_out' AND NEW.revoked_detail = 'token revocation'
                            THEN 'revocation'
                        WHEN NEW.revoked_reason = 'logged_out' THEN 'logout'
                        ELSE 'session_ended' END, NEW.user_id, NEW.id, NEW.provider,
                        NEW.revoked_reason || COALESCE(': ' || NEW.revoked_detail, ''), NEW.last_address, NEW.client);
                END
                """,
                """
                CREATE TRIGGER mend_audit_deleted AFTER DELETE ON mend_users FOR EACH ROW
                BEGIN
                    INSERT INTO mend_audit (at, event, user_id) VALUES (CAST(strftime('%s', 'now') AS INTEGER),
                        'account_deleted', OLD.id);
                END
                """,
                """
                CREATE TRIGGER mend_audit_linked AFTER INSERT ON mend_identities FOR EACH ROW
                WHEN EXISTS (SELECT 1 FROM mend_identities WHERE user_id = NEW.user_id
                    AND NOT (provider = NEW.provider AND subject = NEW.subject))
                BEGIN
                    INSERT INTO mend_audit (at, event, user_id, provider) VALUES (NEW.created_at, 'account_linked',
                        NEW.user_id, NEW.provider);
                END
                """,
            ],
            postgres: [
                """
                CREATE TABLE mend_audit (
                    id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, event TEXT NOT NULL, user_id TEXT,
                    session_id TEXT, provider TEXT, detail TEXT, address TEXT, client TEXT, actor TEXT
                )
                """,
                "CREATE INDEX mend_audit_user ON mend_audit (user_id, id)",
                "CREATE INDEX mend_audit_time ON mend_audit (at)",
                """
                CREATE FUNCTION mend_audit_session() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'INSERT' THEN
                        INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
                        VALUES (NEW.created_at, 'login', NEW.user_id, NEW.id, NEW.provider, NEW.flow,
                            NEW.first_address, NEW.client);
                    ELSIF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
                        INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
                        VALUES (NEW.revoked_at, CASE
                        WHEN NEW.revoked_reason = 'refresh_token_reused' THEN 'reuse_detected'
                        WHEN NEW.revoked_reason = 'logged_out' AND NEW.revoked_detail = 'token revocation'
                            THEN 'revocation'
                        WHEN NEW.revoked_reason = 'logged_out' THEN 'logout'
                        ELSE 'session_ended' END, NEW.user_id, NEW.id, NEW.provider,
                            NEW.revoked_reason || COALESCE(': ' || NEW.revoked_detail, ''), NEW.last_address,
                            NEW.client);
                    ELSIF NEW.refreshed_at IS NOT NULL AND NEW.refreshed_at IS DISTINCT FROM OLD.refreshed_at THEN
                        INSERT INTO mend_audit (at, event, user_id, session_id, provider, address, client)
                        VALUES (NEW.refreshed_at, 'refresh', NEW.user_id, NEW.id, NEW.provider, NEW.last_address,
                            NEW.client);
                    END IF;
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER mend_audit_session AFTER INSERT OR UPDATE OF revoked_at, refreshed_at ON mend_sessions
                FOR EACH ROW EXECUTE FUNCTION mend_audit_session()
                """,
                """
                CREATE FUNCTION mend_audit_user() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'DELETE' THEN
                        INSERT INTO mend_audit (at, event, user_id)
                        VALUES (extract(epoch FROM now())::bigint, 'account_deleted', OLD.id);
                    ELSIF EXISTS (SELECT 1 FROM mend_identities WHERE user_id = NEW.user_id
                        AND NOT (provider = NEW.provider AND subject = NEW.subject)) THEN
                        INSERT INTO mend_audit (at, event, user_id, provider)
                        VALUES (NEW.created_at, 'account_linked', NEW.user_id, NEW.provider);
                    END IF;
                    RETURN NULL;
                END
                $$
                """,
                "CREATE TRIGGER mend_audit_deleted AFTER DELETE ON mend_users FOR EACH ROW EXECUTE FUNCTION mend_audit_user()",
                "CREATE TRIGGER mend_audit_linked AFTER INSERT ON mend_identities FOR EACH ROW EXECUTE FUNCTION mend_audit_user()",
            ]),
        Migration(
            version: 8,
            name: "every refresh is an audit event: a count of refreshes, not the whole second of the last one",
            // Migration 7's trigger fired when `refreshed_at` changed, and it is stored in whole seconds: two
            // rotations within one second left one `refresh` event. A count changes on every rotation.
            statements: ["ALTER TABLE mend_sessions ADD COLUMN refreshes BIGINT NOT NULL DEFAULT 0"],
            sqlite: [
                "DROP TRIGGER mend_audit_refresh",
                """
                CREATE TRIGGER mend_audit_refresh AFTER UPDATE OF refreshes ON mend_sessions FOR EACH ROW
                WHEN NEW.refreshes <> OLD.refreshes
                BEGIN
                    INSERT INTO mend_audit (at, event, user_id, session_id, provider, address, client)
                    VALUES (NEW.refreshed_at, 'refresh', NEW.user_id, NEW.id, NEW.provider, NEW.last_address,
                        NEW.client);
                END
                """,
            ],
            postgres: [
                """
                CREATE OR REPLACE FUNCTION mend_audit_session() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'INSERT' THEN
                        INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
                        VALUES (NEW.created_at, 'login', NEW.user_id, NEW.id, NEW.provider, NEW.flow,
                            NEW.first_address, NEW.client);
                    ELSIF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
                        INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
                        VALUES (NEW.revoked_at, CASE
                        WHEN NEW.revoked_reason = 'refresh_token_reused' THEN 'reuse_detected'
                        WHEN NEW.revoked_reason = 'logged_out' AND NEW.revoked_detail = 'token revocation'
                            THEN 'revocation'
                        WHEN NEW.revoked_reason = 'logged_out' THEN 'logout'
                        ELSE 'session_ended' END, NEW.user_id, NEW.id, NEW.provider,
                            NEW.revoked_reason || COALESCE(': ' || NEW.revoked_detail, ''), NEW.last_address,
                            NEW.client);
                    ELSIF NEW.refreshes <> OLD.refreshes THEN
                        INSERT INTO mend_audit (at, event, user_id, session_id, provider, address, client)
                        VALUES (NEW.refreshed_at, 'refresh', NEW.user_id, NEW.id, NEW.provider, NEW.last_address,
                            NEW.client);
                    END IF;
                    RETURN NULL;
                END
                $$
                """,
                "DROP TRIGGER mend_audit_session ON mend_sessions",
                """
                CREATE TRIGGER mend_audit_session AFTER INSERT OR UPDATE OF revoked_at, refreshes ON mend_sessions
                FOR EACH ROW EXECUTE FUNCTION mend_audit_session()
                """,
            ]),
        Migration(
            version: 9,
            name: "every provider's kept token lives with its identity: Facebook's moves from its user's row",
            // `provider_refresh_token` held what an identity's provider revokes with (a refresh token, else an access
            // token): it becomes `provider_token`, with the expiry and the last validity check that Facebook's had on
            // the user's row. Facebook's token, its expiry and check move to the user's Facebook identity (the one
            // whose subject is the user's `provider_user_id`); the user's columns are emptied, never read again.
            statements: [
                "ALTER TABLE mend_identities RENAME COLUMN provider_refresh_token TO provider_token",
                "ALTER TABLE mend_identities ADD COLUMN provider_token_expires_at BIGINT",
                "ALTER TABLE mend_identities ADD COLUMN provider_token_checked_at BIGINT",
                "ALTER TABLE mend_identities ADD COLUMN provider_token_invalid_reason TEXT",
                """
                UPDATE mend_identities SET
                    provider_token = (SELECT u.provider_token FROM mend_users u WHERE u.id = mend_identities.user_id),
                    provider_token_expires_at = (
                        SELECT u.provider_token_expires_at FROM mend_users u WHERE u.id = mend_identities.user_id),
                    provider_token_checked_at = (
                        SELECT u.provider_token_checked_at FROM mend_users u WHERE u.id = mend_identities.user_id),
                    provider_token_invalid_reason = (
                        SELECT u.provider_token_invalid_reason FROM mend_users u WHERE u.id = mend_identities.user_id)
                WHERE provider = 'facebook' AND EXISTS (
                    SELECT 1 FROM mend_users u
                    WHERE u.id = mend_identities.user_id AND u.provider_user_id = mend_identities.subject)
                """,
                """
                UPDATE mend_users SET provider_token = NULL, provider_token_expires_at = NULL,
                    provider_token_checked_at = NULL, provider_token_invalid_reason = NULL
                """,
                """
                CREATE INDEX mend_identities_token_check ON mend_identities (provider, provider_token_checked_at)
                """,
            ]),
        Migration(
            version: 10,
            name: "DPoP: the key a session is bound to, and the proofs every instance has accepted",
            // `dpop_jkt`: the RFC 7638 thumbprint of the key a session's tokens are bound to (NULL: a bearer session).
            // `mend_dpop_proofs`: each accepted proof's key and `jti` until its window ends — the replay check that
            // every instance sharing the database sees (PostgreSQL; one SQLite instance keeps it in memory).
            statements: [
                "ALTER TABLE mend_sessions ADD COLUMN dpop_jkt TEXT",
                """
                CREATE TABLE mend_dpop_proofs (
                    jkt TEXT NOT NULL, jti TEXT NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (jkt, jti))
                """,
                "CREATE INDEX mend_dpop_proofs_expiry ON mend_dpop_proofs (expires_at)",
            ]),
        Migration(
            version: 11,
            name: "passkeys: users' WebAuthn credentials, their user handles, and the ceremonies' challenges",
            // `mend_passkeys`: a credential (its id and COSE public key in base64url), whose user, its counter and
            // backup flags, the name its user gave it. `mend_passkey_users`: the user handle (random, never the user's
            // id or e-mail) authenticators keep. `mend_passkey_challenges`: each challenge issued, by its SHA-256,
            // until it is answered once (on any instance) or expires.
            statements: [
                """
                CREATE TABLE mend_passkeys (
                    id TEXT PRIMARY KEY,
                    credential_id TEXT NOT NULL UNIQUE,
                    user_id TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    algorithm INTEGER NOT NULL,
                    sign_count BIGINT NOT NULL,
                    backup_eligible INTEGER NOT NULL,
                    backed_up INTEGER NOT NULL,
                    user_verified INTEGER NOT NULL,
                    transports TEXT NOT NULL,
                    aaguid TEXT NOT NULL,
                    attestation_format TEXT NOT NULL,
                    name TEXT NOT NULL,
                    counter_regressed_at BIGINT,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX mend_passkeys_user ON mend_passkeys (user_id)",
                "CREATE TABLE mend_passkey_users (user_id TEXT PRIMARY KEY, handle TEXT NOT NULL UNIQUE)",
                """
                CREATE TABLE mend_passkey_challenges (
                    challenge_hash TEXT PRIMARY KEY,
                    ceremony TEXT NOT NULL,
                    user_id TEXT,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX mend_passkey_challenges_expiry ON mend_passkey_challenges (expires_at)",
            ]),
    ]
}
