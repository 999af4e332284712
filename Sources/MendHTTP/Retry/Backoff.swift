import Foundation
import MendCore

/// Exponential backoff with full jitter and a cap.
///
/// The delay before retry *n* (n ≥ 1) is drawn uniformly from `0 … min(cap, base · 2^(n−1))` ("full jitter",
/// as AWS's architecture blog measured it: the least total work and the fewest collisions among clients that
/// retry at once).
public struct Backoff: Sendable, Hashable {
    /// The ceiling of the first retry's delay.
    package var base: Duration
    /// The largest delay, whatever the attempt.
    package var cap: Duration

    /// Creates a backoff.
    public init(base: Duration = .milliseconds(200), cap: Duration = .seconds(20)) {
        self.base = base
        self.cap = cap
    }

    /// The ceiling of retry `retry`'s delay: `min(cap, base · 2^(retry−1))`.
    package func ceiling(forRetry retry: Int) -> Duration {
        let exponent = max(0, min(retry - 1, 62))
        let factor = Double(UInt64(1) << UInt64(exponent))
        let seconds = min(base.seconds * factor, cap.seconds)
        return .seconds(seconds)
    }

    /// The delay before retry `retry`, given a uniform random number in `0 ..< 1`.
    package func delay(forRetry retry: Int, unitRandom: Double) -> Duration {
        .seconds(ceiling(forRetry: retry).seconds * min(max(unitRandom, 0), 1))
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
