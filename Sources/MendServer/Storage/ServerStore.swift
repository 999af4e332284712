import Foundation
import Logging
import SQLKit

/// What every store of the server shares: the database, the cipher of the provider tokens it keeps, the revocation
/// view it tells of every ending, and where the `audit` lines of the events its triggers write go.
struct StoreConnection: Sendable {
    let database: ServerDatabase
    let cipher: TokenCipher
    /// Told of every session this process ends, before the statement's caller goes on (other instances learn of it
    /// from the `mend_revocations` log the database keeps by trigger; see ``RevocationFeed``).
    let revocations: RevocationView
    /// Where the `audit` line of each event a trigger writes goes, once its change is made (`nil`: nowhere).
    var auditLogger: Logger? = nil
}

/// A store whose queries are written once for SQLite and PostgreSQL alike (sql-kit binds `?` or `$n` as the dialect
/// needs). Every decision that several instances could race on is a single conditional statement.
protocol SQLStore: Sendable {
    var connection: StoreConnection { get }
}

extension SQLStore {
    var sql: any SQLDatabase { connection.database.sql }
    var cipher: TokenCipher { connection.cipher }
    var revocations: RevocationView { connection.revocations }

    /// Logs the `audit` line of an event the database's triggers wrote with the change just made.
    func logAudit(_ record: AuditRecord) {
        if let auditLogger = connection.auditLogger { record.log(to: auditLogger) }
    }
}

/// Every store of the server on one database, one per concern. ``LoginBackend`` builds its parts from it, and each
/// part receives only the stores it uses, by their protocols (``SessionStore``, ``IdentityStore``, ``CodeStore``,
/// ``AuditStore``, ``RateLimitStore``, ``UserDirectory``): no part holds this whole.
struct ServerStore: Sendable {
    let sessions: SQLSessionStore
    let identities: SQLIdentityStore
    let codes: SQLCodeStore
    let audit: SQLAuditStore
    let rateLimits: SQLRateLimitStore
    let directory: SQLUserDirectory
    let proofs: SQLDPoPReplayStore
    let passkeys: SQLPasskeyStore

    init(connection: StoreConnection) {
        proofs = SQLDPoPReplayStore(connection: connection)
        passkeys = SQLPasskeyStore(connection: connection)
        sessions = SQLSessionStore(connection: connection)
        identities = SQLIdentityStore(connection: connection)
        codes = SQLCodeStore(connection: connection)
        audit = SQLAuditStore(connection: connection)
        rateLimits = SQLRateLimitStore(connection: connection)
        directory = SQLUserDirectory(connection: connection)
    }

    /// The database, for what no concern covers (tests reading a row).
    var sql: any SQLDatabase { sessions.sql }
}

/// A storage invariant did not hold.
struct StoreFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
