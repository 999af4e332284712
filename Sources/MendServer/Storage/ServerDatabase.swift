import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit

/// The one SQL layer over SQLite or PostgreSQL: the same queries (sql-kit) run on both.
///
/// SQLite uses one connection (statements are serialized; one server instance per file). PostgreSQL uses a pool;
/// several instances may share the database, since every decision that must be atomic is one conditional statement.
final class ServerDatabase: Sendable {
    enum Kind: String, Sendable { case sqlite, postgres }

    let kind: Kind
    let sql: any SQLDatabase
    private let closer: @Sendable () async throws -> Void

    private init(kind: Kind, sql: any SQLDatabase, closer: @escaping @Sendable () async throws -> Void) {
        self.kind = kind
        self.sql = TracedSQLDatabase(database: sql, system: kind == .sqlite ? "sqlite" : "postgresql")
        self.closer = closer
    }

    /// Opens the database. Queries are never logged (their binds hold token hashes and provider tokens).
    static func open(_ location: DatabaseLocation, logger: Logger) async throws -> ServerDatabase {
        switch location {
        case .sqliteMemory, .sqliteFile:
            let storage: SQLiteConnection.Storage
            if case .sqliteFile(let path) = location { storage = .file(path: path) } else { storage = .memory }
            let connection = try await SQLiteConnection.open(
                storage: storage, threadPool: .singleton, logger: logger,
                on: MultiThreadedEventLoopGroup.singleton.any())
            let database = connection.sql(queryLogLevel: nil)
            if case .sqliteFile = location {
                _ = try await database.raw("PRAGMA journal_mode=WAL").all()
                try await database.raw("PRAGMA busy_timeout=5000").run()
            }
            return ServerDatabase(kind: .sqlite, sql: database) { try await connection.close().get() }
        case .postgres(let url):
            let configuration = try SQLPostgresConfiguration(url: url)
            let pool = EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration), maxConnectionsPerEventLoop: 8,
                requestTimeout: .seconds(10), logger: logger, on: MultiThreadedEventLoopGroup.singleton)
            let box = PoolBox(pool: pool)
            let database = pool.database(logger: logger).sql(queryLogLevel: nil)
            do {
                try await database.raw("SELECT 1").run()
            } catch {
                try? await box.pool.shutdownAsync()
                throw error
            }
            return ServerDatabase(kind: .postgres, sql: database) { try await box.pool.shutdownAsync() }
        }
    }

    /// The connection pool, shut down once when the database closes.
    ///
    /// `@unchecked Sendable`: async-kit's pool keeps its state behind a lock and is documented as safe to use from
    /// any thread; it is only shut down once, by ``close()``.
    private struct PoolBox: @unchecked Sendable {
        let pool: EventLoopGroupConnectionPool<PostgresConnectionSource>
    }

    /// Closes the connection or pool.
    func close() async {
        try? await closer()
    }

    /// Whether the database answers.
    func ping() async -> Bool {
        (try? await sql.raw("SELECT 1").run()) != nil
    }
}
