import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns SIGINT and SIGTERM into a callback (cancelling the work, so that servers shut down in order), and restores
/// the default behaviour when stopped.
final class InterruptHandler: @unchecked Sendable {
    // Safe: the sources are created in init and only cancelled in stop(); DispatchSource is thread-safe.
    private let sources: [any DispatchSourceSignal]
    private let signals: [Int32]

    /// Calls `onInterrupt` on each of `signals` (SIGINT and SIGTERM by default) instead of the default action.
    init(signals: [Int32] = [SIGINT, SIGTERM], _ onInterrupt: @escaping @Sendable () -> Void) {
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: onInterrupt)
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
