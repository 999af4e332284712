public import Foundation
public import HTTPTypes
import Logging
public import MendCore

extension APIClient {
    /// How a client decodes, retries, re-authenticates and logs.
    public struct Configuration: Sendable {
        /// The decoder that turns responses into errors (requests may override it).
        public var errorDecoder: any ErrorDecoder
        /// The catalog that classifies errors: `ErrorCatalog.core` by default, with the error decoder's
        /// own spaces (``ErrorDecoder/errorSpaces``) added when it lacks them.
        public var catalog: ErrorCatalog
        /// When and how often to retry.
        public var retryPolicy: RetryPolicy
        /// The per-client retry budget.
        public var retryBudget: RetryBudget.Configuration
        /// Whether a recoverable authentication error triggers one refresh and replay (requests may opt out).
        public var reauthenticationEnabled: Bool
        /// Which errors call for re-authentication (default: recoverable errors whose recovery is
        /// `reauthenticate`). An API client may widen it (the Graph client also recovers checkpoints).
        public var needsReauthentication: @Sendable (MendError) -> Bool
        /// Responses larger than this are refused with `responseTooLarge`, without reading further.
        public var maximumResponseBodySize: Int
        /// The header that carries the server's request id (`X-Request-Id`).
        public var requestIDHeader: HTTPField.Name
        /// What the client logs (nothing by default).
        public var loggingBehaviors: LoggingBehaviors
        /// The rate-limit bucket of a request when it names none (default: its host).
        public var rateLimitKey: @Sendable (APIRequest) -> String
        /// How long to hold a throttled key when the server gave no wait.
        public var defaultThrottleWait: Duration
        /// Your middleware, run outermost, in order.
        public var middlewares: [any ClientMiddleware]
        /// Waits; replaceable in tests. Must throw `CancellationError` when the task is cancelled.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// The current time; replaceable in tests.
        public var now: @Sendable () -> Date
        /// A uniform random number in `0 ..< 1` for backoff jitter; replaceable in tests.
        public var random: @Sendable () -> Double

        /// Creates a configuration.
        public init(
            errorDecoder: any ErrorDecoder = HTTPStatusErrorDecoder(),
            catalog: ErrorCatalog = .core,
            retryPolicy: RetryPolicy = RetryPolicy(),
            retryBudget: RetryBudget.Configuration = RetryBudget.Configuration(),
            reauthenticationEnabled: Bool = true,
            needsReauthentication: @escaping @Sendable (MendError) -> Bool = { error in
                error.category == .recoverable && error.recovery.action == .reauthenticate
            },
            maximumResponseBodySize: Int = 10 << 20,
            requestIDHeader: HTTPField.Name = .requestID,
            loggingBehaviors: LoggingBehaviors = [],
            rateLimitKey: @escaping @Sendable (APIRequest) -> String = { $0.head.authority ?? "" },
            defaultThrottleWait: Duration = .seconds(1),
            middlewares: [any ClientMiddleware] = [],
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            now: @escaping @Sendable () -> Date = { Date() },
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
        ) {
            self.errorDecoder = errorDecoder
            self.catalog = catalog.addingMissing(errorDecoder.errorSpaces)
            self.retryPolicy = retryPolicy
            self.retryBudget = retryBudget
            self.reauthenticationEnabled = reauthenticationEnabled
            self.needsReauthentication = needsReauthentication
            self.maximumResponseBodySize = maximumResponseBodySize
            self.requestIDHeader = requestIDHeader
            self.loggingBehaviors = loggingBehaviors
            self.rateLimitKey = rateLimitKey
            self.defaultThrottleWait = defaultThrottleWait
            self.middlewares = middlewares
            self.sleep = sleep
            self.now = now
            self.random = random
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the request id that Mend's services and many APIs answer with, and Mend's clients read as the
    /// reference id.
    public static let requestID = HTTPField.Name("X-Request-Id")!
}
