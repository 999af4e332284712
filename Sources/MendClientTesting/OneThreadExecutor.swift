import Foundation

/// Runs jobs on one thread of its own, as a task executor: for counting instructions with callgrind.
///
/// Under valgrind, libdispatch never starts the worker threads of Swift's global executor (its workqueue emulation
/// reads the threads' states from /proc), so a benchmark's `count` mode runs its tasks here — children inherit the
/// preference, so a server's whole task tree does too. Unlike SwiftNIO's event loops installed as the global executor
/// (which run each job *on* the loop as a serial executor, so that every call of a nonisolated async function enqueues
/// a job), a job run here runs on the generic executor, as on Swift's own pool: a hop costs what it costs there.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
package final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Safe: `jobs` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts the thread, which runs as long as the process.
    package init() {
        let thread = Thread { [unowned self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.start()
    }

    /// Queues `job` for the thread.
    package func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}

/// Runs `body` in a detached task and blocks the calling thread until it returns: a benchmark's top level that
/// callgrind can follow (valgrind cannot follow `dispatch_main`, which an async top level ends in, nor can it see
/// libdispatch's worker threads start). With `onOneThread`, where the system has task executors, the task and every
/// child it starts prefer a new ``OneThreadExecutor``. Detached: the top level is isolated to the main actor, which the
/// wait blocks, so a task that inherited it would never start.
package func runDetachedAndWait(onOneThread: Bool, _ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    let operation: @Sendable () async -> Void = {
        await body()
        done.signal()
    }
    if onOneThread, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
        // A task holds its executor preference unowned: the executor lives until the run is done.
        let executor = OneThreadExecutor()
        Task.detached(executorPreference: executor, operation: operation)
        withExtendedLifetime(executor) { done.wait() }
    } else {
        Task.detached(operation: operation)
        done.wait()
    }
}
