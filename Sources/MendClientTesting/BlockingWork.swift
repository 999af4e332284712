public import Foundation

/// Blocking work — waiting for a child process, reading its output to the end — run on a thread of its own while the
/// calling task suspends.
///
/// A test must never block a task's thread instead. Swift's cooperative pool has one thread per core (two on CI's
/// machine), and every test in the bundle shares it, as does each in-process server a child talks to (the emulator,
/// a test backend). A few tests blocked in `waitUntilExit()` at once stopped such a server for seconds: a refresh
/// answered after the client's 9 s attempt timeout, retried, and refused.
///
/// ```swift
/// let output = try await BlockingWork.run { pipe.fileHandleForReading.readDataToEndOfFile() }
/// await process.exited()
/// ```
public enum BlockingWork {
    /// Runs `work` on a new thread and returns what it returned, or throws what it threw.
    public static func run<Result: Sendable>(
        _ work: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
        }
    }

    /// Runs `work`, which cannot fail, on a new thread and returns what it returned.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}

extension FileHandle {
    /// Reads, on a thread of its own, until the text read so far contains `marker` or the writer closes its end;
    /// returns that text. How a test waits for a child's ready line without a sleep.
    public func text(until marker: String) async -> String {
        let handle = self
        return await BlockingWork.run {
            var text = ""
            while !text.contains(marker) {
                let data = handle.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
    }
}

extension Process {
    /// Waits for the process to end, on a thread of its own (see ``BlockingWork``).
    public func exited() async {
        let process = self
        await BlockingWork.run { process.waitUntilExit() }
    }
}
