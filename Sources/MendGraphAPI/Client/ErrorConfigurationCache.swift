import Foundation
import MendCore

/// The provider's error configuration merged over the standard catalog, kept for a limited time.
final class ErrorConfigurationCache: Sendable {
    private struct Entry {
        var catalog: ErrorCatalog
        var fetchedAt: Date
    }

    private let entry = Locked<Entry?>(nil)
    /// The fetch in flight: concurrent first calls share it.
    private let fetching = Locked<Task<Void, Never>?>(nil)
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

    /// Runs `fetch` once for any number of concurrent callers while the catalog is stale, and waits for it. The fetch
    /// is the cache's, not its first caller's: it completes and is stored even when that caller is cancelled.
    func refreshIfStale(now: Date, _ fetch: @escaping @Sendable () async -> Void) async {
        guard isStale(now: now) else { return }
        let task = fetching.withLock { running -> Task<Void, Never> in
            if let running { return running }
            let task = Task {
                await fetch()
                self.fetching.withLock { $0 = nil }
            }
            running = task
            return task
        }
        await task.value
    }
}
