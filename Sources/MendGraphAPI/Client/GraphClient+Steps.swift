import HTTPTypes
import MendCore
public import MendHTTP

extension Array where Element == any ClientMiddleware {
    /// A Graph client's usual steps, outermost first: the last-known-good answers (when given), the usage step (the provider's usage headers), then Mend's standard
    /// steps with the Graph's token errors (``GraphClient/isTokenError(_:)``: 102, 190) as credential rejections,
    /// the configuration's token placement, and the app as the rate-limit key.
    ///
    /// ```swift
    /// // No retries, and a fixed token that a token error only clears (the vendor SDK's
    /// // `isGraphErrorRecoveryEnabled = false`).
    /// let steps: [any ClientMiddleware] = .graph(
    ///     for: configuration, credentials: StaticCredential(token: token), retryPolicy: .never)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration (token placement, app id).
    ///   - credentials: The user's token, renewed when the provider rejects it (MendLogin's `SessionCredentials`
    ///     refreshes the session, else logs in again); `nil` sends requests without one (or with each request's
    ///     override).
    ///   - retryPolicy: When and how often transient errors are retried (`RetryPolicy.never` turns retries off).
    ///   - retryBudget: The budget retries are paid from.
    ///   - slowDownAbove: Above this share (0…1) of any usage counter the provider reports, requests are delayed (up
    ///     to five seconds at 100 %) so that the app never calls into a throttle; `nil` never delays.
    ///   - logging: What the steps log (nothing by default).
    ///   - lastKnownGood: Where the user's last good answers are kept, to stand in for transient failures of the
    ///     requests that ask for it (``GraphRequest/maxStale``); its step goes first, so that a stored answer's usage
    ///     headers are never read as the provider's current usage. `nil`: nowhere.
    public static func graph(
        for configuration: GraphClient.Configuration,
        credentials: (any CredentialProvider)?,
        retryPolicy: RetryPolicy = RetryPolicy(),
        retryBudget: RetryBudget = RetryBudget(),
        slowDownAbove: Double? = nil,
        logging: LoggingBehaviors = [],
        lastKnownGood: LastKnownGood? = nil
    ) -> [any ClientMiddleware] {
        let stored: [any ClientMiddleware] =
            lastKnownGood.map { configuration in
                [LastKnownGoodStep(configuration, principal: { try await credentials?.principal() })]
            } ?? []
        return stored + [GraphUsageStep(slowDownAbove: slowDownAbove)]
            + .standard(
                credentialProvider: credentials, credentialPlacement: configuration.tokenPlacement,
                isCredentialRejection: GraphClient.isTokenError,
                retryPolicy: retryPolicy, retryBudget: retryBudget,
                rateLimitKey: { [appID = configuration.appID] request in appID ?? request.head.authority ?? "" },
                logging: logging)
    }
}
