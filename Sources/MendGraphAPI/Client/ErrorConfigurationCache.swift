import Foundation
import MendCore

/// The provider's error configuration merged over the standard catalog, kept for a limited time.
final class ErrorConfigurationCache: Sendable {
    private struct Entry {
        var catalog: ErrorCatalog
        var fetchedAt: Date
    }

    private let entry = Locked<Entry?>(nil)
    let lifetime: TimeInterval

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    /// The merged catalog, while it is fresh.
    func catalog(now: Date) -> ErrorCatalog? {
        entry.withLock { entry in
            guard let current = entry, now.timeIntervalSince(current.fetchedAt) < lifetime else { return nil }
            return current.catalog
        }
    }

    /// Whether a fetch is due.
    func isStale(now: Date) -> Bool { catalog(now: now) == nil }

    func store(_ catalog: ErrorCatalog, now: Date) {
        entry.withLock { $0 = Entry(catalog: catalog, fetchedAt: now) }
    }
}
