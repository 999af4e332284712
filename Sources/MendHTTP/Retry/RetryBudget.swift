public import Foundation
import MendCore

/// A per-client token bucket that caps retries at a fraction of successful traffic, plus a small floor, so that an
/// outage never multiplies the load on the server.
///
/// Every success deposits `ratio` tokens (0.1 by default: retries may add at most
/// 10 % to successful traffic); every retry withdraws one. The balance never exceeds
/// `maximumBalance` and starts at the floor; the floor also refills over time at
/// `floorRefillPerSecond` tokens a second, up to the floor, so that a client that
/// only ever sees failures still retries a little. Under a 100 % outage, total retries are bounded by the floor
/// plus the refill over the outage's length.
public final class RetryBudget: Sendable {
    /// The budget's parameters.
    public struct Configuration: Sendable, Hashable {
        /// Tokens deposited per success.
        package var ratio: Double
        /// The starting balance, and the level the time-based refill restores.
        package var floor: Double
        /// Tokens a second that the refill adds while the balance is below the floor.
        package var floorRefillPerSecond: Double
        /// The largest balance.
        package var maximumBalance: Double

        /// Creates a configuration.
        public init(
            ratio: Double = 0.1, floor: Double = 10, floorRefillPerSecond: Double = 1, maximumBalance: Double = 100
        ) {
            self.ratio = ratio
            self.floor = floor
            self.floorRefillPerSecond = floorRefillPerSecond
            self.maximumBalance = maximumBalance
        }

        /// No limit at all (for tests of other behaviour).
        public static let unlimited = Configuration(
            ratio: 1, floor: .infinity, floorRefillPerSecond: 0, maximumBalance: .infinity)
    }

    private struct State {
        var balance: Double
        var lastRefill: Date
    }

    /// The parameters.
    package let configuration: Configuration
    private let state: Locked<State>

    /// Creates a budget with a full floor.
    public init(configuration: Configuration = Configuration(), now: Date = Date()) {
        self.configuration = configuration
        self.state = Locked(State(balance: configuration.floor, lastRefill: now))
    }

    /// Records a success.
    package func recordSuccess() {
        state.withLock { state in
            state.balance = min(configuration.maximumBalance, state.balance + configuration.ratio)
        }
    }

    /// Withdraws one token for a retry; returns `false` (and withdraws nothing) when the budget is empty.
    package func tryWithdraw(now: Date = Date()) -> Bool {
        state.withLock { state in
            refill(&state, now: now)
            guard state.balance >= 1 - Self.tolerance else { return false }
            state.balance -= 1
            return true
        }
    }

    /// The current balance.
    package func balance(now: Date = Date()) -> Double {
        state.withLock { state in
            refill(&state, now: now)
            return state.balance
        }
    }

    /// Deposits of 0.1 add up to 0.999…; a token is a token.
    private static let tolerance = 1e-9

    private func refill(_ state: inout State, now: Date) {
        let elapsed = now.timeIntervalSince(state.lastRefill)
        guard elapsed > 0 else { return }
        state.lastRefill = now
        guard state.balance < configuration.floor, configuration.floorRefillPerSecond > 0 else { return }
        state.balance = min(configuration.floor, state.balance + elapsed * configuration.floorRefillPerSecond)
    }
}
