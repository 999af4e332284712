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
