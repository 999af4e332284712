public import Foundation

/// A server's drain before it stops: on the first signal ``ServerRunLoop/runUntilSignalled(_:signals:drain:logger:onReady:)``
/// sets ``isDraining`` (a readiness route then answers 503, so that a load balancer takes the instance out), keeps
/// serving for ``delay``, and only then closes the listener; a second signal stops the server at once.
///
/// ```swift
/// let drain = ServerDrain(delay: .seconds(5))
/// router.get("/health/ready") { _, _ in drain.isDraining ? HTTPResponse.Status.serviceUnavailable : .ok }
/// try await ServerRunLoop.runUntilSignalled(application, drain: drain) { server in … }
/// ```
public final class ServerDrain: Sendable {
    /// How long the server keeps serving, not ready, after the first signal before its listener closes (zero: at
    /// once). It must exceed a load balancer's failed checks times its check interval.
    public let delay: Duration
    private let state = DrainFlag()

    /// A drain of `delay` (a negative one counts as zero), not begun.
    public init(delay: Duration) {
        self.delay = max(delay, .zero)
    }

    /// Whether the drain has begun: the server still serves, but should no longer be sent new traffic.
    public var isDraining: Bool { state.isSet }

    /// Begins the drain (the run loop does, on the first signal); beginning it again changes nothing.
    public func begin() { state.set() }
}

/// A flag that is set once, read from any thread.
private final class DrainFlag: @unchecked Sendable {
    // Every access goes through the lock.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        defer { lock.unlock() }
        value = true
    }
}
