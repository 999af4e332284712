public import Foundation

/// The one clock of Mend's client modules: how they wait, what time it is, and the jitter of backoff.
///
/// It drives every wait and deadline of a request — the request's timeout, retry backoff, `Retry-After` and
/// rate-limit holds, the usage step's slowing down — and the waits and expiry checks of the login pieces (a backend
/// refresh's retries, device login's polling, the credentials manager's token expiry). Replace it in tests to make
/// waits instant and time and jitter predictable:
///
/// ```swift
/// let clock = PipelineClock(sleep: { _ in }, now: { fixedDate }, random: { 0.5 })
/// let client = APIClient(transport: transport, configuration: .init(clock: clock))
/// ```
///
/// Two waits are real time on purpose: a token store's wait for another process's file lock, and the loopback
/// receiver's wait for a person's browser; neither is the pipeline's.
public struct PipelineClock: Sendable {
    /// Waits; must throw `CancellationError` when the task is cancelled.
    package var sleep: @Sendable (Duration) async throws -> Void
    /// The current time.
    package var now: @Sendable () -> Date
    /// A uniform random number in `0 ..< 1`, for backoff jitter.
    package var random: @Sendable () -> Double

    /// Creates a clock.
    public init(
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.sleep = sleep
        self.now = now
        self.random = random
    }

    /// The system's clock and random numbers.
    public static let system = PipelineClock()
}
