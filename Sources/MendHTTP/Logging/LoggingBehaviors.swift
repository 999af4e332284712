/// What a client logs, through the `Logger` it was given (at debug level; request bodies never).
///
/// The vendor SDK's "logging behaviors", as an option set: turn on what you need per client.
public struct LoggingBehaviors: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates behaviors from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Each request and response: method, redacted URL, status, duration, attempt.
    public static let networkRequests = LoggingBehaviors(rawValue: 1 << 0)
    /// Each classified error: identity, category, recovery, reference id, redacted developer message.
    public static let developerErrors = LoggingBehaviors(rawValue: 1 << 1)
    /// Each retry decision: the wait, the reason to give up.
    public static let retries = LoggingBehaviors(rawValue: 1 << 2)
    /// Each re-authentication: rejected and fresh credential (redacted), outcome.
    public static let reauthentication = LoggingBehaviors(rawValue: 1 << 3)
    /// Each rate-limit hold: the key and the wait.
    public static let rateLimits = LoggingBehaviors(rawValue: 1 << 4)

    /// Everything.
    public static let all: LoggingBehaviors = [
        .networkRequests, .developerErrors, .retries, .reauthentication, .rateLimits,
    ]
}
