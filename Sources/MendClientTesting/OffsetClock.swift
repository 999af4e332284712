public import Foundation
public import MendHTTP

/// A clock that runs with real time plus an offset that a test moves forward, so that tokens expire without
/// waiting. Give the same clock to a server (`ServerConfiguration.clock`) and to clients (`clock:`) to move them
/// together, or to one side only to make the two disagree.
///
/// ```swift
/// let clock = OffsetClock()
/// configuration.clock = clock.pipeline()
/// clock.advance(by: 901)   // past a 900 s access token
/// ```
public final class OffsetClock: @unchecked Sendable {
    // Safe: `offset` is only touched under `lock`.
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    /// Creates a clock at the real time.
    public init() {}

    /// The current time: the real time plus the offset.
    public var now: Date { lock.withLock { Date().addingTimeInterval(offset) } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) { lock.withLock { offset += seconds } }

    /// The pipeline's clock at this clock's time (waits are real time, jitter random).
    public func pipeline() -> PipelineClock { PipelineClock(now: { self.now }) }
}
