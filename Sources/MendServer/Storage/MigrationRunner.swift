import Foundation
import SQLKit

/// Applies ``Migrations/all`` to a database: each migration that has not run yet, in order, in its own transaction,
/// recorded in `mend_schema_migrations`. On PostgreSQL a session-level advisory lock keeps two instances starting
/// together from racing.
enum MigrationRunner {
    /// The advisory lock key (any constant; "mend" in ASCII).
    static let advisoryLockKey = 0x6D65_6E64

    /// Runs the migrations that have not run yet; returns the versions it applied.
    @discardableResult
    static func run(on database: ServerDatabase, now: Date) async throws -> [Int] {
        try await database.sql.withSession { session in
            if database.kind == .postgres {
                try await session.raw("SELECT pg_advisory_lock(\(unsafeRaw: String(advisoryLockKey)))").run()
            }
            do {
                let applied = try await apply(on: session, kind: database.kind, now: now)
                if database.kind == .postgres {
                    try await session.raw("SELECT pg_advisory_unlock(\(unsafeRaw: String(advisoryLockKey)))").run()
                }
                return applied
            } catch {
                if database.kind == .postgres {
                    try? await session.raw("SELECT pg_advisory_unlock(\(unsafeRaw: String(advisoryLockKey)))").run()
                }
                throw error
            }
        }
    }

    private static func apply(on sql: any SQLDatabase, kind: ServerDatabase.Kind, now: Date) async throws -> [Int] {
        try await sql.raw(
            """
            CREATE TABLE IF NOT EXISTS mend_schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)
            """
        ).run()
        let done = Set(
            try await sql.raw("SELECT version FROM mend_schema_migrations").all().map {
                try $0.decode(column: "version", as: Int.self)
            })
        var applied: [Int] = []
        for migration in Migrations.all where !done.contains(migration.version) {
            try await sql.raw("BEGIN").run()
            do {
                for statement in migration.statements(for: kind) {
                    try await sql.raw("\(unsafeRaw: statement)").run()
                }
                try await sql.raw(
                    """
                    INSERT INTO mend_schema_migrations (version, name, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: Int64(now.timeIntervalSince1970)))
                    """
                ).run()
                try await sql.raw("COMMIT").run()
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
            applied.append(migration.version)
        }
        return applied
    }
}
