import Logging
import NIOCore
import OTelSemanticConventions
import SQLKit
import Tracing

/// Every statement in a client span, to OpenTelemetry's database conventions, when a tracer records: named by its
/// operation and table (`SELECT mend_sessions`), with `db.system.name`, `db.operation.name` and
/// `db.collection.name`. Never the statement's text or its binds (they hold token hashes and provider tokens).
/// Without a tracer, or outside any span, a statement goes straight through.
struct TracedSQLDatabase: SQLDatabase {
    let database: any SQLDatabase
    /// `db.system.name`: `sqlite` or `postgresql`.
    let system: String

    var logger: Logger { database.logger }
    var eventLoop: any EventLoop { database.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { database.version }
    var dialect: any SQLDialect { database.dialect }
    var queryLogLevel: Logger.Level? { database.queryLogLevel }

    func execute(
        sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void
    ) -> EventLoopFuture<
        Void
    > {
        database.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        // Only inside a span (a request, the validity check): a statement of its own (a migration, the revocation
        // feed's poll) would be a trace of one line.
        guard ServerTracing.isTracing, let parent = ServiceContext.current else {
            return try await database.execute(sql: query, onRow)
        }
        let (operation, table) = Self.summary(of: database.serialize(query).sql)
        let span = InstrumentationSystem.tracer.startSpan(
            table.map { "\(operation) \($0)" } ?? operation, context: parent, ofKind: .client)
        defer { span.end() }
        span.attributes[OTelAttribute.db.system.name] = system
        span.attributes[OTelAttribute.db.operation.name] = operation
        if let table { span.attributes[OTelAttribute.db.collection.name] = table }
        do {
            try await database.execute(sql: query, onRow)
        } catch {
            span.attributes[OTelAttribute.error.type] = String(describing: type(of: error))
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await database.withSession { session in
            try await closure(TracedSQLDatabase(database: session, system: system))
        }
    }

    /// The statement's operation (its first keyword: `SELECT`, `INSERT`, `WITH`…) and the first `mend_` table it
    /// names, from its text.
    static func summary(of text: String) -> (operation: String, table: String?) {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == "," || $0 == ";" })
        let operation = words.first.map { $0.uppercased() } ?? "SQL"
        let table = words.first { $0.hasPrefix("mend_") }.map { String($0.prefix { $0.isLetter || $0 == "_" }) }
        return (operation, table)
    }
}
