public import Foundation
public import MendHTTP

/// The emulator's clock: a start time plus the time that was advanced on command, plus (when running) the time
/// that passed on its source — MendHTTP's `PipelineClock`, the one clock of the clients and the server — since the
/// start.
///
/// Every expiry (codes, tokens, rate-limit windows, id_tokens) reads this clock, never the wall clock alone, so
/// tests move time with ``advance(by:)`` instead of sleeping.
public struct EmulatorClock: Sendable {
    /// Whether real time moves the clock.
    public enum Mode: String, Sendable, Codable {
        /// Time stands still except when advanced: fully deterministic.
        case frozen
        /// Real time moves the clock too (the default for `mend emulate`).
        case running
    }

    /// The emulator time at the start.
    public let start: Date
    /// Whether real time moves the clock.
    public let mode: Mode
    /// The total time advanced on command.
    public private(set) var advanced: TimeInterval = 0
    /// Where running time comes from (the system's clock, or a test's).
    public let source: PipelineClock
    private let sourceStart: Date

    /// Creates a clock whose running time comes from `source`.
    public init(start: Date, mode: Mode, source: PipelineClock = .system) {
        self.start = start
        self.mode = mode
        self.source = source
        self.sourceStart = source.now()
    }

    /// The current emulator time.
    public var now: Date {
        var elapsed = advanced
        if mode == .running { elapsed += max(0, source.now().timeIntervalSince(sourceStart)) }
        return start.addingTimeInterval(elapsed)
    }

    /// Moves the clock forward (never backwards).
    public mutating func advance(by seconds: TimeInterval) {
        advanced += max(0, seconds)
    }
}
