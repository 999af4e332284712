#if canImport(Darwin)
    import os
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a lock: `os_unfair_lock` on Apple platforms, a `pthread_mutex_t` elsewhere.
///
/// Mend's client modules use this instead of `Synchronization.Mutex` and `Atomic`, for two reasons: the thread
/// sanitizer understands these locks (Synchronization's `Mutex` waits on Linux futexes that TSan cannot see, so TSan
/// reports races inside it), and they exist on every platform version the client modules declare.
///
/// The closure runs with the lock held: keep it short, never `await` or call out to code that could take the same
/// lock.
///
/// ```swift
/// let counter = Locked(0)
/// let next = counter.withLock { value in
///     value += 1
///     return value
/// }
/// ```
package final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only read or written between `lock` and `unlock` of `mutex` — which is also why the runtime's
    // exclusivity check of each access (a thread-local lookup and a record per `withLock`) is off: the lock already
    // makes every access exclusive.
    @exclusivity(unchecked) private var value: Value
    #if canImport(Darwin)
        private let mutex: UnsafeMutablePointer<os_unfair_lock>
    #else
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    /// A lock around `initialValue`.
    package init(_ initialValue: Value) {
        value = initialValue
        #if canImport(Darwin)
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: os_unfair_lock())
        #else
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed (\(status))")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            pthread_mutex_destroy(mutex)
        #endif
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    private func lock() {
        #if canImport(Darwin)
            os_unfair_lock_lock(mutex)
        #else
            pthread_mutex_lock(mutex)
        #endif
    }

    private func unlock() {
        #if canImport(Darwin)
            os_unfair_lock_unlock(mutex)
        #else
            pthread_mutex_unlock(mutex)
        #endif
    }
}

extension Locked where Value: Sendable {
    /// The current value (a copy, read under the lock).
    package var current: Value {
        withLock { $0 }
    }

    /// Replaces the value and returns the previous one.
    @discardableResult
    package func exchange(_ newValue: Value) -> Value {
        withLock { value in
            let old = value
            value = newValue
            return old
        }
    }
}
