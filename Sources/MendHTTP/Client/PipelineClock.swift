public import Foundation

/// Time and chance for the pipeline's steps: how they wait, what time it is, and the jitter of backoff.
/// Replace it in tests to make waits instant and backoff predictable.
public struct PipelineClock: Sendable {
    /// Waits; must throw `CancellationError` when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// The current time.
    public var now: @Sendable () -> Date
    /// A uniform random number in `0 ..< 1`, for backoff jitter.
    public var random: @Sendable () -> Double

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
