// The standard catalog: one data table. Sources: the vendor SDK's login codes (300–310) and Graph defaults,
// the provider's documented Graph codes, the BaaS SDK's status error space, the GraphQL community codes,
// HTTP semantics (RFC 9110) and Mend's transport failures.

extension ErrorCatalog {
    private typealias E = Entry

    // swift-format-ignore
    static let standardEntries: [Entry] = login + session + graph + rest + graphQL + http + transport

    private static func row(
        _ domain: MendError.Domain, _ code: Int?, sub subcode: Int? = nil, _ name: String,
        _ category: MendError.Category, _ recovery: MendError.Recovery.Action, _ key: MendError.MessageKey,
        _ summary: String, wire: String? = nil, security: Bool = false, autoRetry: Bool? = nil
    ) -> Entry {
        Entry(
            domain: domain, codes: code.map { $0...$0 }, subcode: subcode, name: name, category: category,
            recovery: recovery, messageKey: key, summary: summary, wireName: wire, isSecuritySensitive: security,
            isAutomaticallyRetryable: autoRetry)
    }

    // swift-format-ignore
    private static let login: [Entry] = [
        row(.login, nil, "loginFailed", .other, .contactSupport, .loginFailed, "A login error without a code of its own."),
        row(.login, 300, "reserved", .other, .none, .loginFailed, "Reserved by the vendor SDK."),
        row(.login, 301, "unknown", .other, .contactSupport, .loginFailed, "The login failed for an unknown reason."),
        row(.login, 302, "passwordChanged", .recoverable, .reauthenticate, .passwordChanged, "The user changed their password; log in again."),
        row(.login, 303, "userCheckpointed", .recoverable, .visitProvider, .accountCheckpointed, "The user is checkpointed and must log in on the provider's website."),
        row(.login, 304, "userMismatch", .recoverable, .reauthenticate, .userMismatch, "Re-authentication logged in a different user than the current one."),
        row(.login, 305, "unconfirmedUser", .recoverable, .visitProvider, .accountUnconfirmed, "The user has not confirmed their account."),
        row(.login, 306, "systemAccountAppDisabled", .recoverable, .reauthenticate, .systemAccountUnavailable, "The system account's access to the app is disabled in the device settings."),
        row(.login, 307, "systemAccountUnavailable", .recoverable, .reauthenticate, .systemAccountUnavailable, "The system account is unavailable."),
        row(.login, 308, "badChallengeString", .other, .reauthenticate, .loginFailed, "The redirect's state is missing or differs from the one sent, or its iss is not the provider's (RFC 9207): a possible forgery or mix-up. Nothing was stored.", security: true),
        row(.login, 309, "invalidIDToken", .other, .reauthenticate, .loginFailed, "The id_token is missing or failed validation (signature and key, issuer, audience and azp, exp/nbf/iat, nonce).", security: true),
        row(.login, 310, "missingAccessToken", .recoverable, .reauthenticate, .notLoggedIn, "The operation needs an access token and there is none."),
        row(.login, 320, "tokenStoreUnavailable", .transient, .retry, .generic, "Mend: the token store could not be read or written (locked keychain, unreadable file); retry. It never means logged out."),
    ]

    // swift-format-ignore
    private static let session: [Entry] = [
        row(.session, nil, "sessionError", .other, .contactSupport, .generic, "A session error without a code of its own."),
        row(.session, 1, "accessTokenExpired", .recoverable, .reauthenticate, .sessionRenewal, "The access token expired: refresh the session, then replay. Never a reason to sign out."),
        row(.session, 2, "accessTokenInvalid", .recoverable, .reauthenticate, .sessionRenewal, "The access token is not valid (malformed, unverifiable, another audience): refresh the session, then replay."),
        row(.session, 3, "accessTokenMissing", .recoverable, .reauthenticate, .notLoggedIn, "The request carried no access token."),
        row(.session, 10, "sessionEnded", .recoverable, .reauthenticate, .signedOut, "The session ended: log in again."),
        row(.session, 11, "loggedOut", .recoverable, .reauthenticate, .signedOut, "The session ended because the user logged out: log in again."),
        row(.session, 12, "refreshTokenReused", .recoverable, .reauthenticate, .signedOutForSecurity, "A refresh token was used after its successor: the session was revoked as stolen. Log in again."),
        row(.session, 13, "providerAccessRevoked", .recoverable, .reauthenticate, .appRemoved, "The provider withdrew the app's access (app removed, password changed, provider token invalid): log in again."),
        row(.session, 14, "userDeleted", .recoverable, .reauthenticate, .accountDeleted, "The user's account was deleted; a new login creates a new account."),
        row(.session, 15, "sessionExpired", .recoverable, .reauthenticate, .sessionExpired, "The session reached the end of its lifetime (the refresh token expired): log in again."),
        row(.session, 16, "refreshTokenUnknown", .recoverable, .reauthenticate, .sessionExpired, "The refresh token is unknown (never issued here, or long gone): log in again."),
        row(.session, 17, "revoked", .recoverable, .reauthenticate, .signedOut, "The session was revoked (token revocation, or an operator): log in again."),
    ]

    // swift-format-ignore
    private static let graph: [Entry] = [
        row(.graph, nil, "unknownGraphError", .other, .contactSupport, .generic, "A Graph error that the catalog does not know."),
        row(.graph, 1, "unknown", .transient, .retry, .serviceUnavailable, "An unknown error, often temporary; retry with backoff."),
        row(.graph, 2, "serviceUnavailable", .transient, .retry, .serviceUnavailable, "The service is temporarily unavailable; retry with backoff."),
        row(.graph, 3, "capabilityMissing", .other, .fixConfiguration, .appMisconfigured, "The app lacks the capability for this call; the developer must fix the app's setup."),
        row(.graph, 4, "appRateLimit", .transient, .waitForRateLimit, .rateLimited, "The app's rate limit was reached; wait (see X-App-Usage), then retry."),
        row(.graph, 9, "temporarilyThrottled", .transient, .retry, .serviceUnavailable, "A temporary condition that the vendor SDK retries."),
        row(.graph, 10, "permissionDenied", .recoverable, .requestPermissions, .permissionMissing, "A permission is missing or was removed; request it when the user acts."),
        row(.graph, 17, "userRateLimit", .transient, .waitForRateLimit, .rateLimited, "The user's rate limit was reached; wait, then retry."),
        row(.graph, 17, sub: 2446079, "userRateLimitReached", .transient, .waitForRateLimit, .rateLimited, "The user's rate limit was reached; wait, then retry."),
        row(.graph, 32, "pagesRateLimit", .transient, .waitForRateLimit, .rateLimited, "The Pages rate limit was reached; wait, then retry."),
        row(.graph, 100, "invalidParameter", .other, .changeRequest, .generic, "A parameter is invalid (also a batch of more than 50 requests); fix the request."),
        row(.graph, 100, sub: 33, "objectNotFound", .other, .changeRequest, .notFound, "The object does not exist, or the token cannot see it."),
        row(.graph, 102, "sessionInvalid", .recoverable, .reauthenticate, .sessionExpired, "The session is invalid; clear the token and log in again."),
        row(.graph, 190, "accessTokenInvalid", .recoverable, .reauthenticate, .sessionExpired, "The access token is invalid; clear it and log in again."),
        row(.graph, 190, sub: 458, "appNotInstalled", .recoverable, .reauthenticate, .appRemoved, "The user removed the app; log in again to reconnect it."),
        row(.graph, 190, sub: 459, "userCheckpointed", .recoverable, .visitProvider, .accountCheckpointed, "The user is checkpointed and must log in on the provider's website."),
        row(.graph, 190, sub: 460, "passwordChanged", .recoverable, .reauthenticate, .passwordChanged, "The user changed their password; log in again."),
        row(.graph, 190, sub: 463, "tokenExpired", .recoverable, .reauthenticate, .sessionExpired, "The access token expired; refresh it or log in again."),
        row(.graph, 190, sub: 464, "unconfirmedUser", .recoverable, .visitProvider, .accountUnconfirmed, "The user must confirm their account on the provider's website."),
        row(.graph, 190, sub: 467, "invalidAccessToken", .recoverable, .reauthenticate, .sessionExpired, "The access token is invalid; log in again."),
        row(.graph, 190, sub: 492, "invalidSession", .other, .none, .accessDenied, "The session is invalid (no role on the Page); a new token fails the same way."),
        Entry(domain: .graph, codes: 200...299, name: "permissionMissing", category: .recoverable, recovery: .requestPermissions, messageKey: .permissionMissing, summary: "A permission is missing (200–299); request it when the user acts."),
        row(.graph, 341, "applicationLimitReached", .transient, .waitForRateLimit, .rateLimited, "The application limit was reached; wait, then retry."),
        row(.graph, 368, "temporarilyBlocked", .transient, .waitForRateLimit, .temporarilyBlocked, "Temporarily blocked for policy violations; a long wait, never retried automatically.", autoRetry: false),
        row(.graph, 506, "duplicatePost", .other, .changeRequest, .duplicatePost, "A duplicate post; change the content."),
        row(.graph, 613, "customRateLimit", .transient, .waitForRateLimit, .rateLimited, "A custom rate limit was reached; wait, then retry."),
        row(.graph, 613, sub: 1996, "customRateLimitReached", .transient, .waitForRateLimit, .rateLimited, "A custom rate limit was reached; wait, then retry."),
        row(.graph, 1609005, "linkNotScraped", .other, .changeRequest, .linkNotReadable, "The link could not be scraped; check the URL."),
        row(.graph, 80000, "adsInsightsRateLimit", .transient, .waitForRateLimit, .rateLimited, "Ads Insights business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80001, "pagesBusinessRateLimit", .transient, .waitForRateLimit, .rateLimited, "Pages business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80002, "instagramRateLimit", .transient, .waitForRateLimit, .rateLimited, "Instagram business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80003, "customAudienceRateLimit", .transient, .waitForRateLimit, .rateLimited, "Custom Audience business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80004, "adsManagementRateLimit", .transient, .waitForRateLimit, .rateLimited, "Ads Management business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80005, "leadGenRateLimit", .transient, .waitForRateLimit, .rateLimited, "LeadGen business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80006, "messengerRateLimit", .transient, .waitForRateLimit, .rateLimited, "Messenger business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80007, "whatsAppBusinessAccountRateLimit", .transient, .waitForRateLimit, .rateLimited, "WhatsApp Business Account rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80008, "whatsAppBusinessManagementRateLimit", .transient, .waitForRateLimit, .rateLimited, "WhatsApp Business Management rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80009, "catalogManagementRateLimit", .transient, .waitForRateLimit, .rateLimited, "Catalog Management business-use-case rate limit; wait estimated_time_to_regain_access."),
        row(.graph, 80014, "catalogBatchRateLimit", .transient, .waitForRateLimit, .rateLimited, "Catalog Batch business-use-case rate limit; wait estimated_time_to_regain_access."),
    ]

    // swift-format-ignore
    private static let rest: [Entry] = [
        row(.rest, nil, "unrecognizedStatus", .other, .contactSupport, .generic, "A status that the REST error space does not name."),
        row(.rest, 100, "unknownCause", .other, .contactSupport, .generic, "UnknownCause: the API could not say what went wrong."),
        row(.rest, 400, "badRequest", .other, .changeRequest, .invalidInput, "BadRequest: the request is invalid; see additionalMessages."),
        row(.rest, 401, "accessDenied", .recoverable, .reauthenticate, .sessionExpired, "AccessDenied: not authenticated for this call."),
        row(.rest, 402, "paymentRequired", .other, .contactSupport, .paymentRequired, "PaymentRequired: the subscription is invalid or expired."),
        row(.rest, 403, "usageLimitExceeded", .transient, .waitForRateLimit, .rateLimited, "UsageLimitExceeded: a burst limit was reached; wait, then retry."),
        row(.rest, 404, "notFound", .other, .none, .notFound, "NotFound: the object does not exist."),
        row(.rest, 409, "updateConflict", .recoverable, .reloadAndRetry, .updateConflict, "UpdateConflict: the object's revision changed; reload it and apply the change again."),
        row(.rest, 412, "preconditionFailed", .other, .changeRequest, .updateConflict, "PreconditionFailed: a precondition of the request does not hold."),
        row(.rest, 420, "apiAuthenticationError", .recoverable, .reauthenticate, .sessionExpired, "ApiAuthenticationError: the API key or session token is invalid."),
        row(.rest, 421, "userAuthenticationError", .recoverable, .reauthenticate, .sessionExpired, "UserAuthenticationError: the user's credentials or session are invalid."),
        row(.rest, 435, "duplicateObject", .other, .changeRequest, .duplicateObject, "DuplicateObject: an object with the same unique values exists."),
        row(.rest, 436, "incorrectConfiguration", .other, .fixConfiguration, .appMisconfigured, "IncorrectConfiguration: the app's configuration on the API is wrong."),
        row(.rest, 500, "internalServerError", .transient, .retry, .serviceUnavailable, "InternalServerError: retry with backoff."),
        row(.rest, 512, "dataAccessError", .transient, .retry, .serviceUnavailable, "DataAccessError: the API's storage failed; retry with backoff."),
    ]

    // swift-format-ignore
    private static let graphQL: [Entry] = [
        row(.graphQL, nil, "unknownGraphQLError", .other, .contactSupport, .generic, "A GraphQL error with an unknown code."),
        row(.graphQL, 0, "unknown", .other, .contactSupport, .generic, "A GraphQL error without extensions.code."),
        row(.graphQL, 1, "unauthenticated", .recoverable, .reauthenticate, .sessionExpired, "UNAUTHENTICATED: re-authenticate, then replay.", wire: "UNAUTHENTICATED"),
        row(.graphQL, 2, "forbidden", .recoverable, .requestPermissions, .permissionMissing, "FORBIDDEN: a permission is missing.", wire: "FORBIDDEN"),
        row(.graphQL, 3, "badUserInput", .other, .changeRequest, .invalidInput, "BAD_USER_INPUT: an argument is invalid.", wire: "BAD_USER_INPUT"),
        row(.graphQL, 4, "validationFailed", .other, .changeRequest, .generic, "GRAPHQL_VALIDATION_FAILED: the operation does not match the schema.", wire: "GRAPHQL_VALIDATION_FAILED"),
        row(.graphQL, 5, "parseFailed", .other, .changeRequest, .generic, "GRAPHQL_PARSE_FAILED: the operation is not valid GraphQL.", wire: "GRAPHQL_PARSE_FAILED"),
        row(.graphQL, 6, "internalServerError", .transient, .retry, .serviceUnavailable, "INTERNAL_SERVER_ERROR: retry queries with backoff.", wire: "INTERNAL_SERVER_ERROR"),
        row(.graphQL, 7, "persistedQueryNotFound", .other, .changeRequest, .generic, "PERSISTED_QUERY_NOT_FOUND: send the full query with its hash.", wire: "PERSISTED_QUERY_NOT_FOUND"),
        row(.graphQL, 8, "persistedQueryNotSupported", .other, .changeRequest, .generic, "PERSISTED_QUERY_NOT_SUPPORTED: send full queries.", wire: "PERSISTED_QUERY_NOT_SUPPORTED"),
        row(.graphQL, 9, "operationResolutionFailure", .other, .changeRequest, .generic, "OPERATION_RESOLUTION_FAILURE: the operation to run could not be determined.", wire: "OPERATION_RESOLUTION_FAILURE"),
        row(.graphQL, 10, "badRequest", .other, .changeRequest, .generic, "BAD_REQUEST: the HTTP request was not a valid GraphQL request.", wire: "BAD_REQUEST"),
        row(.graphQL, 11, "responseHasErrors", .other, .none, .partialContent, "The response carried GraphQL errors; see the errors and the partial data. Thrown errors take the category and recovery of the most actionable error."),
        row(.graphQL, 12, "noData", .transient, .retry, .unreadableResponse, "The response had neither data nor errors."),
    ]

    // swift-format-ignore
    private static let http: [Entry] = [
        row(.http, nil, "unexpectedStatus", .other, .contactSupport, .generic, "An HTTP status that is not an error class Mend knows."),
        row(.http, 400, "badRequest", .other, .changeRequest, .generic, "400 Bad Request, and any 4xx without an entry of its own."),
        row(.http, 401, "unauthorized", .recoverable, .reauthenticate, .sessionExpired, "401 Unauthorized: re-authenticate, then replay."),
        row(.http, 403, "forbidden", .other, .none, .accessDenied, "403 Forbidden."),
        row(.http, 404, "notFound", .other, .none, .notFound, "404 Not Found."),
        row(.http, 405, "methodNotAllowed", .other, .changeRequest, .generic, "405 Method Not Allowed."),
        row(.http, 408, "requestTimeout", .transient, .retry, .timedOut, "408 Request Timeout: retry with backoff."),
        row(.http, 409, "conflict", .recoverable, .reloadAndRetry, .updateConflict, "409 Conflict: reload the resource and apply the change again."),
        row(.http, 410, "gone", .other, .none, .notFound, "410 Gone."),
        row(.http, 413, "contentTooLarge", .other, .changeRequest, .invalidInput, "413 Content Too Large."),
        row(.http, 422, "unprocessableContent", .other, .changeRequest, .invalidInput, "422 Unprocessable Content."),
        row(.http, 425, "tooEarly", .transient, .retry, .serviceUnavailable, "425 Too Early: retry."),
        row(.http, 429, "tooManyRequests", .transient, .waitForRateLimit, .rateLimited, "429 Too Many Requests: wait (Retry-After), then retry."),
        row(.http, 500, "internalServerError", .transient, .retry, .serviceUnavailable, "500 Internal Server Error, and any 5xx without an entry of its own."),
        row(.http, 501, "notImplemented", .other, .contactSupport, .generic, "501 Not Implemented."),
        row(.http, 502, "badGateway", .transient, .retry, .serviceUnavailable, "502 Bad Gateway: retry with backoff."),
        row(.http, 503, "serviceUnavailable", .transient, .retry, .serviceUnavailable, "503 Service Unavailable: retry (Retry-After)."),
        row(.http, 504, "gatewayTimeout", .transient, .retry, .timedOut, "504 Gateway Timeout: retry with backoff."),
    ]

    // swift-format-ignore
    private static let transport: [Entry] = [
        row(.transport, nil, "transportFailure", .transient, .retry, .serverUnreachable, "A transport failure without a code of its own."),
        row(.transport, 1, "notConnected", .transient, .checkNetwork, .offline, "The device is offline."),
        row(.transport, 2, "timedOut", .transient, .retry, .timedOut, "The request timed out, or its deadline passed."),
        row(.transport, 3, "secureConnectionFailed", .other, .checkNetwork, .secureConnectionFailed, "TLS failed: the secure connection could not be established or verified."),
        row(.transport, 4, "cannotFindHost", .transient, .checkNetwork, .serverUnreachable, "DNS failed: the host could not be found."),
        row(.transport, 5, "connectionLost", .transient, .retry, .connectionLost, "The connection was lost mid-request."),
        row(.transport, 6, "cancelled", .other, .none, .cancelled, "The transport was cancelled by something other than the caller's task."),
        row(.transport, 7, "malformedResponse", .transient, .retry, .unreadableResponse, "The body was invalid or truncated JSON."),
        row(.transport, 8, "nonJSONBody", .transient, .retry, .unreadableResponse, "The body was not JSON (HTML, text) where JSON was expected."),
        row(.transport, 9, "responseTooLarge", .other, .contactSupport, .unreadableResponse, "The body exceeded the configured size limit and was not read further."),
        row(.transport, 10, "emptyResponse", .transient, .retry, .unreadableResponse, "The body was empty where content was expected."),
        row(.transport, 11, "invalidRequest", .other, .changeRequest, .generic, "The request could not be built (an invalid URL, an unencodable body)."),
        row(.transport, 12, "cannotConnect", .transient, .retry, .serverUnreachable, "The server refused the connection."),
    ]
}
