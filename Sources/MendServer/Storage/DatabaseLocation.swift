import Foundation

/// Where the data lives, parsed from `DATABASE_URL`.
enum DatabaseLocation: Sendable, Hashable {
    /// An SQLite file (created when missing).
    case sqliteFile(path: String)
    /// An in-memory SQLite database, gone when the server stops (tests).
    case sqliteMemory
    /// A PostgreSQL server: `postgres://user:password@host:port/database[?sslmode=…]`.
    case postgres(url: String)

    static func parse(_ text: String) throws(ConfigurationError) -> DatabaseLocation {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") { return .postgres(url: trimmed) }
        if ["sqlite::memory:", "sqlite://:memory:", ":memory:"].contains(trimmed) { return .sqliteMemory }
        for prefix in ["sqlite://", "sqlite:"] where trimmed.hasPrefix(prefix) {
            let path = String(trimmed.dropFirst(prefix.count))
            guard !path.isEmpty else { break }
            return .sqliteFile(path: path)
        }
        throw ConfigurationError(
            "DATABASE_URL must be sqlite:///path/file.sqlite, sqlite::memory: or postgres://user:pass@host/db")
    }

    /// A description without the password.
    var redactedDescription: String {
        switch self {
        case .sqliteFile(let path): "sqlite file \(path)"
        case .sqliteMemory: "sqlite in memory"
        case .postgres(let url):
            if let parsed = URLComponents(string: url) {
                "postgres \(parsed.host ?? "?"):\(parsed.port ?? 5432)\(parsed.path)"
            } else {
                "postgres"
            }
        }
    }
}
