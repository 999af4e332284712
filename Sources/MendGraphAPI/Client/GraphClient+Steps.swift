import HTTPTypes
public import MendCore
public import MendHTTP

extension Array where Element == any ClientMiddleware {
    /// A Graph client's usual steps, outermost first: `usage` (the provider's usage headers), then Mend's standard
    /// steps with the Graph's token errors (102, 190) as credential rejections and the app as the rate-limit key.
    ///
    /// ```swift
    /// // No retries and no re-login (the vendor SDK's `isGraphErrorRecoveryEnabled = false`): a token error only
    /// // clears the token.
    /// let steps: [any ClientMiddleware] = .graph(for: configuration, tokens: credentials, retryPolicy: .never)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration (token placement, app id).
    ///   - tokens: The user's token; `nil` sends requests without one (or with each request's override).
    ///   - recoveryAttempter: What recovers a token error (MendLogin's logs in again); `nil` only clears the token.
    ///   - retryPolicy: When and how often transient errors are retried (`RetryPolicy.never` turns retries off).
    ///   - retryBudget: The budget retries are paid from.
    ///   - usage: The usage step (pass one with `slowDownAbove` to space requests out before a throttle).
    ///   - logging: What the steps log (nothing by default).
    ///   - clock: How the steps wait, read the time and draw jitter.
    public static func graph(
        for configuration: GraphClient.Configuration,
        tokens: (any GraphTokenSource)?,
        recoveryAttempter: (any ErrorRecoveryAttempter)? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(),
        retryBudget: RetryBudget = RetryBudget(),
        usage: GraphUsageStep = GraphUsageStep(),
        logging: LoggingBehaviors = [],
        clock: PipelineClock = .system
    ) -> [any ClientMiddleware] {
        [usage]
            + .standard(
                credentialProvider: tokens.map {
                    GraphCredentialProvider(
                        source: $0, attempter: recoveryAttempter, placement: configuration.tokenPlacement)
                },
                isCredentialRejection: GraphCredentialProvider.isTokenError,
                retryPolicy: retryPolicy, retryBudget: retryBudget,
                rateLimitKey: { [appID = configuration.appID] request in appID ?? request.head.authority ?? "" },
                logging: logging, clock: clock)
    }
}
