import UnixSignals

/// Turns SIGINT and SIGTERM into a callback (cancelling the work, so that servers shut down in order) while it lives.
///
/// Built on swift-service-lifecycle's `UnixSignalsSequence` — what `mend emulate` and mend-server stop on — which
/// awaits the signal sources' registration (no early signal is missed) and leaves the dispositions as Dispatch needs
/// them on Linux. (A hand-made Dispatch source after `signal(SIGINT, SIG_IGN)` lost the interrupt of a loaded CI run.)
final class InterruptHandler: Sendable {
    private let watcher: Task<Void, Never>

    /// Calls `onInterrupt` on each of `signals` (SIGINT and SIGTERM by default) instead of the default action, from
    /// when this returns.
    init(signals: [UnixSignal] = [.sigint, .sigterm], _ onInterrupt: @escaping @Sendable () -> Void) async {
        let sequence = await UnixSignalsSequence(trapping: signals)
        watcher = Task {
            for await _ in sequence { onInterrupt() }
        }
    }

    /// Stops watching.
    func stop() {
        watcher.cancel()
    }
}
