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
            var path: String?
            if case .sqliteFile(let file) = location { path = file }
            // SQLiteNIO's own words ("cantOpen: Failed to open to SQLite database at …") say neither why nor what
            // to do: the folder and the file are looked at first, and SQLite's answers are said in words.
            if let path, let problem = SQLiteFailure.fileProblem(at: path) {
                throw DatabaseUnavailable(location: location.redactedDescription, reason: problem)
            }
            let connection: SQLiteConnection
            do {
                connection = try await SQLiteConnection.open(
                    storage: path.map { .file(path: $0) } ?? .memory, threadPool: .singleton, logger: logger,
                    on: MultiThreadedEventLoopGroup.singleton.any())
            } catch {
                throw DatabaseUnavailable(
                    location: location.redactedDescription, reason: SQLiteFailure.reason(error, path: path))
            }
            let database = connection.sql(queryLogLevel: nil)
            if let path {
                do {
                    // The wait first: SQLiteNIO's own busy handler retries for ever, so a file another process holds
                    // locked hung the start silently; 5 s, then "locked by another process".
                    try await database.raw("PRAGMA busy_timeout=5000").run()
                    _ = try await database.raw("PRAGMA journal_mode=WAL").all()
                } catch {
                    try? await connection.close().get()  // a connection left open traps when it is released
                    throw DatabaseUnavailable(
                        location: location.redactedDescription, reason: SQLiteFailure.reason(error, path: path))
                }
            }
            return ServerDatabase(kind: .sqlite, sql: database) { try await connection.close().get() }
        case .postgres(let url):
            let configuration: SQLPostgresConfiguration
            do {
                configuration = try SQLPostgresConfiguration(url: url)
            } catch {
                throw DatabaseUnavailable(
                    location: location.redactedDescription,
                    reason: "DATABASE_URL is not a PostgreSQL URL PostgresKit reads (postgres://user:pass@host:5432/db)"
                )
            }
            // The pool's own lines (AsyncKit's "Opening new connection for pool failed") carry PostgresNIO's raw text
            // — its generic PSQLError description, NIO's errno — and nothing Mend's handling of the same failure
            // (the query's error, said in words by `reason(_:)`) does not: only critical ones are kept.
            var poolLogger = logger
            poolLogger.logLevel = max(logger.logLevel, .critical)
            let pool = EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration), maxConnectionsPerEventLoop: 8,
                requestTimeout: .seconds(10), logger: poolLogger, on: MultiThreadedEventLoopGroup.singleton)
            let box = PoolBox(pool: pool)
            let database = pool.database(logger: poolLogger).sql(queryLogLevel: nil)
            do {
                try await database.raw("SELECT 1").run()
            } catch {
                try? await box.pool.shutdownAsync()
                throw DatabaseUnavailable(location: location.redactedDescription, reason: Self.reason(error))
            }
            return ServerDatabase(kind: .postgres, sql: database) { try await box.pool.shutdownAsync() }
        }
    }

    /// Why PostgreSQL could not be used, in words an operator acts on: the server's own message and SQLSTATE, or what
    /// happened to the connection. Never PostgresNIO's generic description, never the URL (its password).
    static func reason(_ error: any Error) -> String {
        if let failure = error as? PSQLError {
            if let info = failure.serverInfo {
                let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return "PostgreSQL refused: \(info[.message] ?? "an error without a message")\(state)"
            }
            let cause = failure.underlying.map(connectionReason) ?? ""
            switch failure.code {
            case .connectionError: return "could not connect" + cause
            case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection" + cause
            case .sslUnsupported: return "the server does not support TLS (sslmode=disable for a local server)"
            case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
                return "authentication failed (\(failure.code))"
            default: return "PostgreSQL error \(failure.code)" + cause
            }
        }
        if error is ConnectionPoolTimeoutError { return "no connection within 10 s (the server did not answer)" }
        return connectionReason(error).dropFirst(2).description
    }

    /// A connection failure's cause, classified (`: the connection was refused …`), without the NIO text.
    private static func connectionReason(_ error: any Error) -> String {
        let text = "\(error)".lowercased()
        if text.contains("refused") { return ": the connection was refused (nothing listens there)" }
        if text.contains("timed out") || text.contains("timeout") { return ": the connection timed out" }
        if text.contains("resolve") || text.contains("name or service") || text.contains("nodename") {
            return ": the host name could not be resolved"
        }
        if text.contains("reset") { return ": the connection was reset" }
        return ": \(type(of: error))"
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

/// The database could not be used when the server started: where (never its password) and why.
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    /// The database, without its password (`postgres db.internal:5432/mend`).
    public var location: String
    /// Why, in PostgreSQL's words or the connection's (`could not connect: the connection was refused …`).
    public var reason: String

    /// `cannot use the database (postgres db.internal:5432/mend): could not connect: …`.
    public var description: String { "cannot use the database (\(location)): \(reason)" }
}
