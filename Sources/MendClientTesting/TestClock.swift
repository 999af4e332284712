public import Foundation
public import MendHTTP

/// A `Clock` whose sleeps return at once: each moves the clock's time forward by the duration asked for, is
/// recorded in ``sleeps``, and runs `onSleep` — typically to move a frozen emulator's clock by the same amount, so
/// that both sides agree on how much time passed, or to act at a given moment (approve a device login after the
/// second poll).
///
/// ```swift
/// let clock = TestClock { slept, count in _ = await emulator.advanceClock(by: slept.timeInterval) }
/// let device = DeviceLogin(provider: provider, clientToken: token, transport: transport, clock: clock)
/// ```
public final class TestClock: Clock, @unchecked Sendable {
    // Safe: `elapsed` and `recorded` are only touched under `lock`.
    /// An instant of a ``TestClock``: the time since it was made.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock was made.
        public var offset: Duration

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var elapsed = Duration.zero
    private var recorded: [Duration] = []
    private let onSleep: (@Sendable (Duration, Int) async throws -> Void)?

    /// Creates a clock at offset zero.
    ///
    /// - Parameter onSleep: Runs after every sleep with its duration and its number (1 for the first); an error it
    ///   throws is thrown by the sleep.
    public init(onSleep: (@Sendable (_ slept: Duration, _ count: Int) async throws -> Void)? = nil) {
        self.onSleep = onSleep
    }

    /// The current instant.
    public var now: Instant { lock.withLock { Instant(offset: elapsed) } }

    /// No resolution limit.
    public var minimumResolution: Duration { .zero }

    /// Every sleep so far, in order.
    public var sleeps: [Duration] { lock.withLock { recorded } }

    /// Moves the clock to `deadline` (never backwards) at once, records the sleep, and runs `onSleep`. Throws
    /// `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let (slept, count) = lock.withLock {
            let slept = max(.zero, deadline.offset - elapsed)
            elapsed += slept
            recorded.append(slept)
            return (slept, recorded.count)
        }
        try await onSleep?(slept, count)
    }
}

extension TestClock {
    /// This clock as the client's one clock (`PipelineClock`): its sleeps are this clock's (instant, recorded,
    /// `onSleep` run), its time is `start` moved forward by every sleep, its jitter always 0.5.
    public func pipeline(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> PipelineClock {
        PipelineClock(
            sleep: { try await self.sleep(for: $0) }, now: { start.addingTimeInterval(self.now.offset.timeInterval) },
            random: { 0.5 })
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
