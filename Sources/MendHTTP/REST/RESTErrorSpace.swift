// The REST status error space: its domain, codes and catalog rows. Source: the BaaS SDK's status error space.
public import MendCore

extension MendError.Domain {
    /// The BaaS-style REST status error space (400 BadRequest … 512 DataAccessError, 100 UnknownCause).
    public static let rest = Self(rawValue: "rest")
}

extension MendError.Code {
    /// The BaaS-style REST status error space (status → named error).
    public enum REST {
        /// 400 BadRequest.
        public static let badRequest = MendError.Code(.rest, 400)
        /// 401 AccessDenied.
        public static let accessDenied = MendError.Code(.rest, 401)
        /// 402 PaymentRequired: the subscription is invalid or expired.
        public static let paymentRequired = MendError.Code(.rest, 402)
        /// 403 UsageLimitExceeded: a burst limit was reached.
        public static let usageLimitExceeded = MendError.Code(.rest, 403)
        /// 404 NotFound.
        public static let notFound = MendError.Code(.rest, 404)
        /// 409 UpdateConflict: the object's revision changed.
        public static let updateConflict = MendError.Code(.rest, 409)
        /// 412 PreconditionFailed.
        public static let preconditionFailed = MendError.Code(.rest, 412)
        /// 420 ApiAuthenticationError: the API key or session token is invalid.
        public static let apiAuthenticationError = MendError.Code(.rest, 420)
        /// 421 UserAuthenticationError: the user's credentials or session are invalid.
        public static let userAuthenticationError = MendError.Code(.rest, 421)
        /// 435 DuplicateObject.
        public static let duplicateObject = MendError.Code(.rest, 435)
        /// 436 IncorrectConfiguration.
        public static let incorrectConfiguration = MendError.Code(.rest, 436)
        /// 500 InternalServerError.
        public static let internalServerError = MendError.Code(.rest, 500)
        /// 512 DataAccessError.
        public static let dataAccessError = MendError.Code(.rest, 512)
        /// 100 UnknownCause.
        public static let unknownCause = MendError.Code(.rest, 100)
    }
}

extension ErrorSpace {
    /// The BaaS-style REST status error space (400 BadRequest … 512 DataAccessError, 100 UnknownCause).
    // swift-format-ignore
    public static let rest = ErrorSpace(domain: .rest, entries: [
        .row(.rest, nil, "unrecognizedStatus", .other, .contactSupport, .generic, "A status that the REST error space does not name."),
        .row(.rest, 100, "unknownCause", .other, .contactSupport, .generic, "UnknownCause: the API could not say what went wrong."),
        .row(.rest, 400, "badRequest", .other, .changeRequest, .invalidInput, "BadRequest: the request is invalid; see additionalMessages."),
        .row(.rest, 401, "accessDenied", .recoverable, .reauthenticate, .sessionExpired, "AccessDenied: not authenticated for this call."),
        .row(.rest, 402, "paymentRequired", .other, .contactSupport, .paymentRequired, "PaymentRequired: the subscription is invalid or expired."),
        .row(.rest, 403, "usageLimitExceeded", .transient, .waitForRateLimit, .rateLimited, "UsageLimitExceeded: a burst limit was reached; wait, then retry."),
        .row(.rest, 404, "notFound", .other, .none, .notFound, "NotFound: the object does not exist."),
        .row(.rest, 409, "updateConflict", .recoverable, .reloadAndRetry, .updateConflict, "UpdateConflict: the object's revision changed; reload it and apply the change again."),
        .row(.rest, 412, "preconditionFailed", .other, .changeRequest, .updateConflict, "PreconditionFailed: a precondition of the request does not hold."),
        .row(.rest, 420, "apiAuthenticationError", .recoverable, .reauthenticate, .sessionExpired, "ApiAuthenticationError: the API key or session token is invalid."),
        .row(.rest, 421, "userAuthenticationError", .recoverable, .reauthenticate, .sessionExpired, "UserAuthenticationError: the user's credentials or session are invalid."),
        .row(.rest, 435, "duplicateObject", .other, .changeRequest, .duplicateObject, "DuplicateObject: an object with the same unique values exists."),
        .row(.rest, 436, "incorrectConfiguration", .other, .fixConfiguration, .appMisconfigured, "IncorrectConfiguration: the app's configuration on the API is wrong."),
        .row(.rest, 500, "internalServerError", .transient, .retry, .serviceUnavailable, "InternalServerError: retry with backoff."),
        .row(.rest, 512, "dataAccessError", .transient, .retry, .serviceUnavailable, "DataAccessError: the API's storage failed; retry with backoff."),
    ])
}

extension ErrorCatalog {
    /// The catalog of a REST client: `ErrorCatalog.core` with the REST status space.
    public static let rest = ErrorCatalog.core.adding(.rest)
}
