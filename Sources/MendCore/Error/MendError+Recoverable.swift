public import Foundation

/// Performs the recovery an error offers: logs in again, requests a permission, retries.
///
/// Mend's modules provide attempters (the login module's logs in again); apps can provide their own.
public protocol ErrorRecoveryAttempter: Sendable {
    /// Attempts to recover from `error` with the option the person picked.
    ///
    /// - Parameters:
    ///   - error: The error being recovered from.
    ///   - optionIndex: The index of the picked option in the error's recovery options (never the cancel option).
    /// - Returns: Whether the recovery succeeded, so that the operation may be tried again.
    func attemptRecovery(from error: MendError, optionIndex: Int) async -> Bool
}

extension MendError: RecoverableError {
    /// The localized recovery option labels in the process's preferred language.
    public var recoveryOptions: [String] { recoveryOptions(language: MendLocalization.preferredLanguage) }

    /// Whether `optionIndex` is the cancelling option (the last of two or more), which never attempts anything.
    func isCancelOption(_ optionIndex: Int) -> Bool {
        let count = recoveryOptions(language: "en").count
        return count >= 2 && optionIndex == count - 1
    }

    /// Attempts recovery through the injected ``recoveryAttempter``.
    ///
    /// Returns `false` without calling anything when there is no attempter, when the category is `other`, or when
    /// the cancelling option was picked.
    public func attemptRecovery(optionIndex: Int) async -> Bool {
        guard let recoveryAttempter, category != .other, !isCancelOption(optionIndex),
            optionIndex >= 0, optionIndex < recoveryOptions(language: "en").count
        else { return false }
        return await recoveryAttempter.attemptRecovery(from: self, optionIndex: optionIndex)
    }

    /// Attempts recovery and calls `handler` exactly once with the outcome, on an unspecified thread.
    public func attemptRecovery(optionIndex: Int, resultHandler handler: @escaping (_ recovered: Bool) -> Void) {
        let error = self
        // Safe: the handler is handed over to the task and called exactly once there; nothing else keeps it.
        nonisolated(unsafe) let handler = handler
        Task { handler(await error.attemptRecovery(optionIndex: optionIndex)) }
    }

    /// Attempts recovery synchronously, blocking the calling thread until the attempter finishes.
    ///
    /// This is the form Cocoa's modal error presentation calls. Prefer the `async` form: an attempter that needs
    /// the calling thread's actor (for example the main actor) would never finish here, so this form gives up
    /// after 120 seconds and returns `false`.
    public func attemptRecovery(optionIndex: Int) -> Bool {
        guard recoveryAttempter != nil, category != .other, !isCancelOption(optionIndex) else { return false }
        let outcome = RecoveryOutcome()
        let semaphore = DispatchSemaphore(value: 0)
        let error = self
        Task.detached {
            outcome.set(await error.attemptRecovery(optionIndex: optionIndex))
            semaphore.signal()
        }
        guard semaphore.wait(timeout: .now() + Self.synchronousRecoveryTimeout) == .success else { return false }
        return outcome.value
    }

    /// How long the synchronous `attemptRecovery(optionIndex:)` waits before it gives up.
    static let synchronousRecoveryTimeout: DispatchTimeInterval = .seconds(120)
}

/// A result box shared between the waiting thread and the recovery task.
private final class RecoveryOutcome: @unchecked Sendable {
    // Safe: `value` is written once by the task before it signals the semaphore, and read by the waiter only after
    // the semaphore's wait succeeded, which orders the write before the read; the lock makes that explicit.
    private let lock = NSLock()
    private var stored = false

    var value: Bool { lock.withLock { stored } }
    func set(_ value: Bool) { lock.withLock { stored = value } }
}
