import Foundation
import MendClientTesting
import MendCore
import MendLogin
import Testing

/// A Keychain in a dictionary: what `KeychainTokenStore` sees of the system's, with failures on demand.
final class FakeKeychain: KeychainItemAccess, @unchecked Sendable {
    // Safe: every field is only touched under `lock`.
    private let lock = NSLock()
    private var items: [KeychainItem: Data] = [:]
    private var failure: Int32?

    /// Makes every call fail with `status` (`-25308`, errSecInteractionNotAllowed: a locked device), or succeed.
    func fail(with status: Int32?) { lock.withLock { failure = status } }

    private var currentFailure: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    private func update(_ item: KeychainItem, _ data: Data?) {
        lock.lock()
        defer { lock.unlock() }
        items[item] = data
    }

    private func stored(_ item: KeychainItem) -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return items[item]
    }

    func data(for item: KeychainItem) throws(KeychainFailure) -> Data? {
        if let status = currentFailure { throw KeychainFailure(status: status) }
        return stored(item)
    }

    func setData(_ data: Data, for item: KeychainItem) throws(KeychainFailure) {
        if let status = currentFailure { throw KeychainFailure(status: status) }
        update(item, data)
    }

    func removeData(for item: KeychainItem) throws(KeychainFailure) {
        if let status = currentFailure { throw KeychainFailure(status: status) }
        update(item, nil)
    }
}

/// Records the order in which holders entered and left a lock.
actor Trace {
    private(set) var events: [String] = []
    func record(_ event: String) { events.append(event) }
}

@Suite("Store locks: the Keychain store through its seam, the in-memory store, timeouts")
struct StoreLockTests {
    @Test("The Keychain store round-trips a session; a locked Keychain is login/320, never logged out")
    func keychainThroughItsSeam() async throws {
        let keychain = FakeKeychain()
        let store = KeychainTokenStore(service: "dev.mend.tests", keychain: keychain)
        #expect(try await store.read() == nil)
        let session = sampleSession()
        try await store.write(session)
        #expect(try await store.read()?.isSameIssue(as: session) == true)
        keychain.fail(with: -25308)
        let error = try await #require(throws: MendError.self) { try await store.read() }
        #expect(error.matches(.Login.tokenStoreUnavailable))
        #expect(error.category == .transient)
        keychain.fail(with: nil)
        try await store.write(sampleSession(token: "EAAnext"))
        #expect(try await store.read()?.accessToken.tokenString == "EAAnext")
        try await store.delete()
        #expect(try await store.read() == nil)
    }

    /// Holds the lock of `first` while `second` tries to take its own; `second` must enter only after `first` left.
    static func excludes(_ first: any TokenStore, _ second: any TokenStore) async throws -> [String] {
        let trace = Trace()
        let (entered, signal) = AsyncStream<Void>.makeStream()
        async let holder: Void = first.withExclusiveAccess {
            await trace.record("first in")
            signal.yield()
            for _ in 0..<50 { await Task.yield() }
            await trace.record("first out")
        }
        var iterator = entered.makeAsyncIterator()
        await iterator.next()
        try await second.withExclusiveAccess { await trace.record("second in") }
        try await holder
        return await trace.events
    }

    @Test("Two Keychain stores of one item exclude each other within the process (no shared container)")
    func keychainProcessLocalLock() async throws {
        let keychain = FakeKeychain()
        let events = try await Self.excludes(
            KeychainTokenStore(service: "dev.mend.tests.local", keychain: keychain),
            KeychainTokenStore(service: "dev.mend.tests.local", keychain: keychain))
        #expect(events == ["first in", "first out", "second in"])
    }

    @Test("Managers sharing one in-memory store exclude each other")
    func inMemoryLock() async throws {
        let store = InMemoryTokenStore()
        #expect(try await Self.excludes(store, store) == ["first in", "first out", "second in"])
    }

    @Test("The lock is re-entrant within the task that holds it")
    func reentrant() async throws {
        let store = InMemoryTokenStore()
        let value = try await store.withExclusiveAccess {
            try await store.withExclusiveAccess { 42 }
        }
        #expect(value == 42)
    }

    @Test(
        "With a shared container the Keychain store's lock excludes another process (flock on a file there)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")))
    func keychainSharedContainerLock() async throws {
        let container = temporaryDirectory()
        let store = KeychainTokenStore(
            service: "dev.mend.tests.shared", accessGroup: "TEAM.group.dev.mend", sharedContainer: container,
            keychain: FakeKeychain())
        let lockFile = try #require(
            try FileManager.default.contentsOfDirectory(atPath: container.path).isEmpty
                ? container.appendingPathComponent(".mend-keychain-dev.mend.tests.shared.session.lock") : nil)
        let marker = container.appendingPathComponent("released")
        // Another process takes the lock, says so, holds it, and writes the marker just before it lets go.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [lockFile.path, "-c", "echo locked; sleep 1; touch '\(marker.path)'"]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        await output.firstOutput()
        let markerSeen = try await store.withExclusiveAccess {
            FileManager.default.fileExists(atPath: marker.path)
        }
        #expect(markerSeen, "the store entered while the other process held the lock")
        await holder.exited()
    }

    @Test("A lock held past the timeout gives login/320 (retryable), not a hang")
    func timeout() async throws {
        let name = "tests:\(UUID().uuidString)"
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let (release, releaser) = AsyncStream<Void>.makeStream()
        async let holder: Void = StoreLock(named: name).withLock {
            signal.yield()
            var iterator = release.makeAsyncIterator()
            await iterator.next()
        }
        var iterator = entered.makeAsyncIterator()
        await iterator.next()
        let error = try await #require(throws: MendError.self) {
            try await StoreLock(named: name, timeout: .milliseconds(100)).withLock {}
        }
        #expect(error.matches(.Login.tokenStoreUnavailable))
        releaser.yield()
        try await holder
        try await StoreLock(named: name, timeout: .milliseconds(100)).withLock {}
    }

    /// A caller cancelled before it asks for a held lock, or while it waits, stops at once with `CancellationError`
    /// (cancellation is never an error, and never `login/320`); the holder keeps the lock meanwhile. The holder lets
    /// go when the waiter has returned — or, if it never does, after a guard, so that the test fails instead of
    /// hanging.
    @Test(
        "A caller cancelled before or while it waits for a held lock stops at once with CancellationError",
        arguments: [true, false])
    func cancelledWaiter(cancelledBeforeAsking: Bool) async throws {
        let name = "tests:\(UUID().uuidString)"
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let (waiterReturned, returned) = AsyncStream<Void>.makeStream()
        let released = Locked(false)
        let holder = Task {
            try await StoreLock(named: name).withLock {
                signal.yield()
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        var iterator = waiterReturned.makeAsyncIterator()
                        await iterator.next()
                    }
                    group.addTask { try? await Task.sleep(for: .seconds(60)) }  // the guard
                    await group.next()
                    group.cancelAll()
                }
                released.withLock { $0 = true }
            }
        }
        var iterator = entered.makeAsyncIterator()
        await iterator.next()
        let waiter = Task { () -> (error: (any Error)?, holderHadLetGo: Bool) in
            // Whether the holder had let go is read as the waiter returns, before it tells the holder to: read
            // after `waiter.value`, it raced with the holder letting go (CI run 11, under the thread sanitizer).
            defer { returned.yield() }
            if cancelledBeforeAsking { withUnsafeCurrentTask { $0?.cancel() } }
            do {
                try await StoreLock(named: name).withLock {}
                return (nil, released.withLock { $0 })
            } catch {
                return (error, released.withLock { $0 })
            }
        }
        if !cancelledBeforeAsking {
            for _ in 0..<20 { await Task.yield() }  // most likely waiting by now; either way the outcome is the same
            waiter.cancel()
        }
        let (error, holderHadLetGo) = await waiter.value
        #expect(!holderHadLetGo, "the waiter returned before the holder let go")
        #expect(error is CancellationError, "\(String(describing: error))")
        try await holder.value
    }
}

/// A store that counts its reads and writes.
private final class CountingStore: TokenStore {
    let inner = InMemoryTokenStore()
    let reads = Locked<Int>(0)
    let writes = Locked<Int>(0)

    func read() async throws -> Session? {
        reads.withLock { $0 += 1 }
        return try await inner.read()
    }
    func write(_ session: Session) async throws {
        writes.withLock { $0 += 1 }
        try await inner.write(session)
    }
    func delete() async throws { try await inner.delete() }
    func withExclusiveAccess<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        try await inner.withExclusiveAccess(body)
    }
}

/// An issuer whose refresh always succeeds with the next generation.
private struct RotatingAuthority: SessionAuthority {
    func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    )
        async throws -> Session
    { throw CancellationError() }  // never logs in
    func refresh(_ session: Session) async throws -> Session {
        sampleSession(token: "EAArefreshed\(session.generation + 1)", generation: session.generation + 1)
    }
    func checkValidity(of session: Session) async throws {}
    func revoke(_ session: Session) async throws {}
    func endsSession(_ error: MendError) -> Bool { false }
}

@Suite("The store is read once per refresh")
struct StoreReadsTests {
    @Test("A refresh reads the store once under its lock and writes once: no second read to compare")
    func oneReadOneWrite() async throws {
        let store = CountingStore()
        let manager = CredentialsManager(store: store, authority: RotatingAuthority())
        try await manager.signIn(sampleSession())
        let (readsBefore, writesBefore) = (store.reads.current, store.writes.current)
        let refreshed = try await manager.refresh()
        #expect(refreshed.generation == 1)
        #expect(store.reads.current - readsBefore == 1)
        #expect(store.writes.current - writesBefore == 1)
        #expect(try await store.inner.read()?.isSameIssue(as: refreshed) == true)
    }
}
