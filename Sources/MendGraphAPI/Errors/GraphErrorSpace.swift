// The Graph error space: its domain, codes, subcodes and catalog rows. Sources: the provider's documented Graph
// codes and the vendor SDK's defaults.
public import MendCore

extension MendError.Domain {
    /// Graph API errors: the provider's `{"error":{…}}` envelope and its codes.
    public static let graph = Self(rawValue: "graph")
}

extension MendError.Code {
    /// Graph API codes (the provider's own numbers).
    public enum Graph {
        /// 1: an unknown error; often temporary — or, with the words "Please reduce the amount of data you're asking
        /// for", a request that asks for too much at once (`reduceData`: send it again asking for less).
        public static let unknown = MendError.Code(.graph, 1)
        /// 2: the service is temporarily unavailable.
        public static let serviceUnavailable = MendError.Code(.graph, 2)
        /// 3: the app lacks the capability for this call.
        public static let capabilityMissing = MendError.Code(.graph, 3)
        /// 4: the app's rate limit was reached.
        public static let appRateLimit = MendError.Code(.graph, 4)
        /// 9: a temporary condition the vendor SDK retries.
        public static let temporarilyThrottled = MendError.Code(.graph, 9)
        /// 10: a permission is missing or was removed.
        public static let permissionDenied = MendError.Code(.graph, 10)
        /// 17: the user's rate limit was reached.
        public static let userRateLimit = MendError.Code(.graph, 17)
        /// 32: the Pages rate limit was reached.
        public static let pagesRateLimit = MendError.Code(.graph, 32)
        /// 100: a parameter is invalid, or (subcode 33) the object does not exist.
        public static let invalidParameter = MendError.Code(.graph, 100)
        /// 102: the session is invalid.
        public static let sessionInvalid = MendError.Code(.graph, 102)
        /// 190: the access token is invalid or expired; the subcode tells why.
        public static let accessTokenInvalid = MendError.Code(.graph, 190)
        /// 200: a permission is missing (the whole range 200–299 means a permission error).
        public static let permissionMissing = MendError.Code(.graph, 200)
        /// 341: the application limit was reached.
        public static let applicationLimitReached = MendError.Code(.graph, 341)
        /// 368: temporarily blocked for policy violations.
        public static let temporarilyBlocked = MendError.Code(.graph, 368)
        /// 506: a duplicate post.
        public static let duplicatePost = MendError.Code(.graph, 506)
        /// 613: a custom rate limit was reached.
        public static let customRateLimit = MendError.Code(.graph, 613)
        /// 2500: the request could not be read (an unknown path, a syntax error in the fields) — or, with the message
        /// "An active access token must be used", it carried no access token (`accessTokenRequired`, a login case).
        public static let requestNotUnderstood = MendError.Code(.graph, 2500)
        /// 1609005: the link could not be scraped.
        public static let linkNotScraped = MendError.Code(.graph, 1_609_005)
        /// 80000: the Ads Insights business-use-case rate limit.
        public static let adsInsightsRateLimit = MendError.Code(.graph, 80000)
        /// 80001: the Pages business-use-case rate limit.
        public static let pagesBusinessRateLimit = MendError.Code(.graph, 80001)
        /// 80002: the Instagram business-use-case rate limit.
        public static let instagramRateLimit = MendError.Code(.graph, 80002)
        /// 80003: the Custom Audience business-use-case rate limit.
        public static let customAudienceRateLimit = MendError.Code(.graph, 80003)
        /// 80004: the Ads Management business-use-case rate limit.
        public static let adsManagementRateLimit = MendError.Code(.graph, 80004)
        /// 80005: the LeadGen business-use-case rate limit.
        public static let leadGenRateLimit = MendError.Code(.graph, 80005)
        /// 80006: the Messenger business-use-case rate limit.
        public static let messengerRateLimit = MendError.Code(.graph, 80006)
        /// 80007: the WhatsApp Business Account business-use-case rate limit.
        public static let whatsAppBusinessAccountRateLimit = MendError.Code(.graph, 80007)
        /// 80008: the WhatsApp Business Management business-use-case rate limit.
        public static let whatsAppBusinessManagementRateLimit = MendError.Code(.graph, 80008)
        /// 80009: the Catalog Management business-use-case rate limit.
        public static let catalogManagementRateLimit = MendError.Code(.graph, 80009)
        /// 80014: the Catalog Batch business-use-case rate limit.
        public static let catalogBatchRateLimit = MendError.Code(.graph, 80014)
    }
}

extension ErrorSpace {
    /// The Graph API's errors: the provider's documented codes and subcodes, and the vendor SDK's defaults.
    // swift-format-ignore
    public static let graph = ErrorSpace(domain: .graph, entries: [
        .row(.graph, nil, "unknownGraphError", .other, .contactSupport, .generic, "A Graph error that the catalog does not know."),
        .row(.graph, 1, "unknown", .transient, .retry, .serviceUnavailable, "An unknown error, often temporary; retry with backoff."),
        .row(.graph, 1, message: "reduce the amount of data", "reduceData", .recoverable, .reduceRequestSize, .requestTooLarge, "The request asks for too much data at once: send it again with a smaller limit or fewer fields (Graph paging does); the same request fails again, so it is never retried unchanged."),
        .row(.graph, 2, "serviceUnavailable", .transient, .retry, .serviceUnavailable, "The service is temporarily unavailable; retry with backoff."),
        .row(.graph, 3, "capabilityMissing", .other, .fixConfiguration, .appMisconfigured, "The app lacks the capability for this call; the developer must fix the app's setup."),
        .row(.graph, 4, "appRateLimit", .transient, .waitForRateLimit, .rateLimited, "The app's rate limit was reached; wait (see X-App-Usage), then retry."),
        .row(.graph, 9, "temporarilyThrottled", .transient, .retry, .serviceUnavailable, "A temporary condition that the vendor SDK retries."),
        .row(.graph, 10, "permissionDenied", .recoverable, .requestPermissions, .permissionMissing, "A permission is missing or was removed; request it when the user acts."),
        .row(.graph, 17, "userRateLimit", .transient, .waitForRateLimit, .rateLimited, "The user's rate limit was reached; wait, then retry."),
        .row(.graph, 17, sub: 2446079, "userRateLimitReached", .transient, .waitForRateLimit, .rateLimited, "The user's rate limit was reached; wait, then retry."),
        .row(.graph, 17, sub: 1349172, "deviceExcessivePolling", .transient, .waitForRateLimit, .rateLimited, "Device login polled sooner than its interval: add 5 seconds to the interval (RFC 8628's slow_down)."),
        .row(.graph, 31, sub: 1349173, "deviceLoginDeclined", .other, .none, .deviceLoginDeclined, "The person declined the device login: a cancelled login, not an error."),
        .row(.graph, 31, sub: 1349174, "deviceAuthorizationPending", .transient, .retry, .deviceLoginPending, "The device login's code was not entered yet: keep polling at the interval."),
        .row(.graph, 32, "pagesRateLimit", .transient, .waitForRateLimit, .rateLimited, "The Pages rate limit was reached; wait, then retry."),
        .row(.graph, 100, "invalidParameter", .other, .changeRequest, .generic, "A parameter is invalid (also a batch of more than 50 requests); fix the request."),
        .row(.graph, 100, sub: 33, "objectNotFound", .other, .changeRequest, .notFound, "The object does not exist, or the token cannot see it."),
        .row(.graph, 102, "sessionInvalid", .recoverable, .reauthenticate, .sessionExpired, "The session is invalid; clear the token and log in again."),
        .row(.graph, 190, "accessTokenInvalid", .recoverable, .reauthenticate, .sessionExpired, "The access token is invalid; clear it and log in again."),
        .row(.graph, 190, sub: 458, "appNotInstalled", .recoverable, .reauthenticate, .appRemoved, "The user removed the app; log in again to reconnect it."),
        .row(.graph, 190, sub: 459, "userCheckpointed", .recoverable, .visitProvider, .accountCheckpointed, "The user is checkpointed and must log in on the provider's website."),
        .row(.graph, 190, sub: 460, "passwordChanged", .recoverable, .reauthenticate, .passwordChanged, "The user changed their password; log in again."),
        .row(.graph, 190, sub: 463, "tokenExpired", .recoverable, .reauthenticate, .sessionExpired, "The access token expired; refresh it or log in again."),
        .row(.graph, 190, sub: 464, "unconfirmedUser", .recoverable, .visitProvider, .accountUnconfirmed, "The user must confirm their account on the provider's website."),
        .row(.graph, 190, sub: 467, "invalidAccessToken", .recoverable, .reauthenticate, .sessionExpired, "The access token is invalid; log in again."),
        .row(.graph, 190, sub: 492, "invalidSession", .other, .none, .accessDenied, "The session is invalid (no role on the Page); a new token fails the same way."),
        ErrorCatalog.Entry(domain: .graph, codes: 200...299, name: "permissionMissing", category: .recoverable, recovery: .requestPermissions, messageKey: .permissionMissing, summary: "A permission is missing (200–299); request it when the user acts."),
        .row(.graph, 341, "applicationLimitReached", .transient, .waitForRateLimit, .rateLimited, "The application limit was reached; wait, then retry."),
        .row(.graph, 368, "temporarilyBlocked", .transient, .waitForRateLimit, .temporarilyBlocked, "Temporarily blocked for policy violations; a long wait, never retried automatically.", autoRetry: false),
        .row(.graph, 463, sub: 1349152, "deviceCodeExpired", .recoverable, .reauthenticate, .deviceCodeExpired, "The device login's code expired before it was entered: a cancelled login; start again for a new code."),
        .row(.graph, 506, "duplicatePost", .other, .changeRequest, .duplicatePost, "A duplicate post; change the content."),
        .row(.graph, 613, "customRateLimit", .transient, .waitForRateLimit, .rateLimited, "A custom rate limit was reached; wait, then retry."),
        .row(.graph, 613, sub: 1996, "customRateLimitReached", .transient, .waitForRateLimit, .rateLimited, "A custom rate limit was reached; wait, then retry."),
        .row(.graph, 2500, "requestNotUnderstood", .other, .changeRequest, .generic, "The request could not be read (an unknown path, a syntax error in the fields); fix the request."),
        .row(.graph, 2500, message: "An active access token must be used", "accessTokenRequired", .recoverable, .reauthenticate, .notLoggedIn, "The request carried no access token (2500 with this message): log in, then send the request with the token."),
        .row(.graph, 1609005, "linkNotScraped", .other, .changeRequest, .linkNotReadable, "The link could not be scraped; check the URL."),
        .row(.graph, 80000, "adsInsightsRateLimit", .transient, .waitForRateLimit, .rateLimited, "Ads Insights business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80001, "pagesBusinessRateLimit", .transient, .waitForRateLimit, .rateLimited, "Pages business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80002, "instagramRateLimit", .transient, .waitForRateLimit, .rateLimited, "Instagram business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80003, "customAudienceRateLimit", .transient, .waitForRateLimit, .rateLimited, "Custom Audience business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80004, "adsManagementRateLimit", .transient, .waitForRateLimit, .rateLimited, "Ads Management business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80005, "leadGenRateLimit", .transient, .waitForRateLimit, .rateLimited, "LeadGen business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80006, "messengerRateLimit", .transient, .waitForRateLimit, .rateLimited, "Messenger business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80007, "whatsAppBusinessAccountRateLimit", .transient, .waitForRateLimit, .rateLimited, "WhatsApp Business Account rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80008, "whatsAppBusinessManagementRateLimit", .transient, .waitForRateLimit, .rateLimited, "WhatsApp Business Management rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80009, "catalogManagementRateLimit", .transient, .waitForRateLimit, .rateLimited, "Catalog Management business-use-case rate limit; wait estimated_time_to_regain_access."),
        .row(.graph, 80014, "catalogBatchRateLimit", .transient, .waitForRateLimit, .rateLimited, "Catalog Batch business-use-case rate limit; wait estimated_time_to_regain_access."),
    ])
}

extension MendError.Subcode {
    /// 33: the object does not exist or cannot be loaded (with code 100).
    public static let objectNotFound: Self = 33
    /// 458: the user removed the app (with code 190).
    public static let appNotInstalled: Self = 458
    /// 459: the user is checkpointed and must log in on the provider's website (with code 190).
    public static let userCheckpointed: Self = 459
    /// 460: the user changed their password (with code 190).
    public static let passwordChanged: Self = 460
    /// 463: the access token expired (with code 190).
    public static let tokenExpired: Self = 463
    /// 464: the user has not confirmed their account (with code 190).
    public static let unconfirmedUser: Self = 464
    /// 467: the access token is invalid (with code 190).
    public static let invalidAccessToken: Self = 467
    /// 492: the session is invalid, for example no role on the Page (with code 190).
    public static let invalidSession: Self = 492
    /// 1996: a custom rate limit was reached (with code 613).
    public static let customRateLimitReached: Self = 1996
    /// 2446079: the user's rate limit was reached (with code 17).
    public static let userRateLimitReached: Self = 2_446_079
}

extension ErrorCatalog {
    /// The catalog of a Graph client: `ErrorCatalog.core` with the Graph space. A provider's error configuration
    /// is merged over it (`catalog`).
    public static let graph = ErrorCatalog.core.adding(.graph)
}
