public import Foundation
import MendCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The exclusion every token store gives ``TokenStore/withExclusiveAccess(_:)``: one holder at a time within the
/// process (an asynchronous, first-come-first-served lock that never blocks a thread), and, when the lock has a file,
/// one holder at a time across processes (an advisory `flock` on that file).
///
/// - Within a task that holds it, the lock is re-entrant: a store operation that takes the lock again inside a
///   locked region runs at once instead of waiting for itself. (Task-local: a task started inside the region
///   inherits the hold, so do not let one outlive the region.)
/// - Waiting is bounded by `timeout`; a wait that passes it throws `login/320` (the store is unavailable), which is
///   retryable and never means "logged out".
///
/// ```swift
/// let lock = StoreLock(named: "my-store", file: containerURL.appendingPathComponent("session.lock"))
/// try await lock.withLock { /* read, refresh, write */ }
/// ```
public struct StoreLock: Sendable {
    /// The lock's name within the process: stores that share a name exclude each other.
    package let name: String
    /// The lock file that excludes other processes, or `nil` for a lock within this process only.
    package let file: URL?
    /// How long to wait for the lock before giving up with `login/320`.
    package var timeout: Duration

    /// The lock within the process, when it is owned rather than found by name.
    private let owned: AsyncLock?

    /// Creates a lock named `name`, across processes when `file` is given.
    public init(named name: String, file: URL? = nil, timeout: Duration = .seconds(45)) {
        self.name = name
        self.file = file
        self.timeout = timeout
        self.owned = nil
    }

    /// A lock of its own (not shared by name), within this process only: for a store instance that is its own
    /// unit of sharing, such as ``InMemoryTokenStore``.
    init(owning lock: AsyncLock, timeout: Duration = .seconds(45)) {
        self.name = "owned:\(ObjectIdentifier(lock).hashValue)"
        self.file = nil
        self.timeout = timeout
        self.owned = lock
    }

    @TaskLocal static var held: Set<String> = []

    /// Runs `body` while holding the lock.
    public func withLock<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        if Self.held.contains(name) { return try await body() }
        let local = owned ?? ProcessLocks.shared.lock(named: name)
        // Real time on purpose, not the client's `PipelineClock`: the wait is for another holder — another process's
        // `flock` — whose progress no test clock moves.
        let deadline = ContinuousClock.now.advanced(by: timeout)
        guard await local.acquire(until: deadline) else {
            try Task.checkCancellation()  // cancellation is never an error: not login/320
            throw MendError.storeUnavailable("another holder kept the lock \(name) longer than \(timeout)")
        }
        defer { local.release() }
        var descriptor: Int32 = -1
        if let file {
            descriptor = try await Self.lockFile(file, until: deadline)
        }
        defer {
            if descriptor >= 0 {
                flock(descriptor, LOCK_UN)
                close(descriptor)
            }
        }
        return try await Self.$held.withValue(Self.held.union([name])) { try await body() }
    }

    /// Opens `file` and takes an exclusive `flock` on it, polling without blocking a thread until `deadline`.
    private static func lockFile(_ file: URL, until deadline: ContinuousClock.Instant) async throws -> Int32 {
        let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw MendError.storeUnavailable("the lock file \(file.lastPathComponent) cannot be opened")
        }
        var pause = Duration.milliseconds(1)
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(descriptor)
                throw MendError.storeUnavailable(
                    "the lock \(file.lastPathComponent) cannot be taken (errno \(failure))")
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw MendError.storeUnavailable("another process kept the lock \(file.lastPathComponent) too long")
            }
            do {
                try await Task.sleep(for: pause)  // real time: another process holds the file lock
            } catch {
                close(descriptor)
                throw error
            }
            pause = min(pause * 2, .milliseconds(20))
        }
    }
}

/// The process-wide registry of named asynchronous locks.
final class ProcessLocks: @unchecked Sendable {
    // Safe: `locks` is only touched under `lock`.
    static let shared = ProcessLocks()
    private let lock = NSLock()
    private var locks: [String: AsyncLock] = [:]

    func lock(named name: String) -> AsyncLock {
        lock.withLock {
            if let existing = locks[name] { return existing }
            let created = AsyncLock()
            locks[name] = created
            return created
        }
    }
}

/// A first-come-first-served lock for tasks: waiting suspends the task, never a thread.
final class AsyncLock: @unchecked Sendable {
    // Safe: every field is only touched under `lock`.
    private let lock = NSLock()
    private var isLocked = false
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID: UInt64 = 0

    /// Takes the lock; `false` when `deadline` passed first, or the task was cancelled before or while it waited.
    func acquire(until deadline: ContinuousClock.Instant) async -> Bool {
        let (free, id): (Bool, UInt64) = lock.withLock {
            if !isLocked {
                isLocked = true
                return (true, 0)
            }
            nextID += 1
            return (false, nextID)
        }
        if free { return true }
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.giveUp(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.withLock {
                    if !isLocked {
                        isLocked = true
                        continuation.resume(returning: true)
                    } else if Task.isCancelled || ContinuousClock.now >= deadline {
                        // Cancelled, or past the deadline, before it could wait: `giveUp` ran already and found no
                        // waiter to end. (Either one that comes later finds this waiter: both take `lock`.)
                        continuation.resume(returning: false)
                    } else {
                        waiters.append((id, continuation))
                    }
                }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    /// Releases the lock, handing it to the longest waiter.
    func release() {
        lock.withLock {
            if waiters.isEmpty {
                isLocked = false
            } else {
                waiters.removeFirst().continuation.resume(returning: true)
            }
        }
    }

    private func giveUp(_ id: UInt64) {
        lock.withLock {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
            waiters.remove(at: index).continuation.resume(returning: false)
        }
    }
}
