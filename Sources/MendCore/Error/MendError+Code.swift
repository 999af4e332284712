extension MendError {
    /// An error code within a ``Domain``. An open set: compare codes, never switch exhaustively over them.
    ///
    /// The standard codes are grouped by domain: `.Login.passwordChanged`, `.Graph.accessTokenInvalid`,
    /// `.REST.updateConflict`, `.GraphQL.unauthenticated`, `.HTTP.serviceUnavailable`, `.Transport.timedOut`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The domain the code belongs to.
        public var domain: Domain
        /// The numeric code: the provider's own where it has one (Graph 190, REST 409, login 302).
        public var rawValue: Int

        /// Creates a code in `domain`.
        public init(_ domain: Domain, _ rawValue: Int) {
            self.domain = domain
            self.rawValue = rawValue
        }

        /// `domain/rawValue`, such as `graph/190`.
        public var description: String { "\(domain.rawValue)/\(rawValue)" }
    }

    /// A provider's subcode (Graph `error_subcode`). An open set.
    public struct Subcode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        /// The numeric subcode.
        public var rawValue: Int
        /// Creates a subcode.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Creates a subcode from a literal.
        public init(integerLiteral value: Int) { self.rawValue = value }
        /// The number.
        public var description: String { String(rawValue) }

        /// 33: the object does not exist or cannot be loaded (with code 100).
        public static let objectNotFound: Subcode = 33
        /// 458: the user removed the app (with code 190).
        public static let appNotInstalled: Subcode = 458
        /// 459: the user is checkpointed and must log in on the provider's website (with code 190).
        public static let userCheckpointed: Subcode = 459
        /// 460: the user changed their password (with code 190).
        public static let passwordChanged: Subcode = 460
        /// 463: the access token expired (with code 190).
        public static let tokenExpired: Subcode = 463
        /// 464: the user has not confirmed their account (with code 190).
        public static let unconfirmedUser: Subcode = 464
        /// 467: the access token is invalid (with code 190).
        public static let invalidAccessToken: Subcode = 467
        /// 492: the session is invalid, for example no role on the Page (with code 190).
        public static let invalidSession: Subcode = 492
        /// 1996: a custom rate limit was reached (with code 613).
        public static let customRateLimitReached: Subcode = 1996
        /// 2446079: the user's rate limit was reached (with code 17).
        public static let userRateLimitReached: Subcode = 2_446_079
    }
}

extension MendError.Code {
    /// Login codes, with parity to the vendor SDK (300–310).
    public enum Login {
        /// 300: reserved.
        public static let reserved = MendError.Code(.login, 300)
        /// 301: the login failed for an unknown reason.
        public static let unknown = MendError.Code(.login, 301)
        /// 302: the user changed their password since they last logged in.
        public static let passwordChanged = MendError.Code(.login, 302)
        /// 303: the user is checkpointed and must log in on the provider's website.
        public static let userCheckpointed = MendError.Code(.login, 303)
        /// 304: a re-authentication logged in a different user than the current one.
        public static let userMismatch = MendError.Code(.login, 304)
        /// 305: the user has not confirmed their account.
        public static let unconfirmedUser = MendError.Code(.login, 305)
        /// 306: the system account's access to the app is disabled.
        public static let systemAccountAppDisabled = MendError.Code(.login, 306)
        /// 307: the system account is unavailable.
        public static let systemAccountUnavailable = MendError.Code(.login, 307)
        /// 308: the `state` (challenge) in the redirect is missing or differs, or its `iss` is not the provider's
        /// (RFC 9207): a possible forgery or mix-up.
        public static let badChallengeString = MendError.Code(.login, 308)
        /// 309: the id_token is missing (when one is required) or failed validation.
        public static let invalidIDToken = MendError.Code(.login, 309)
        /// 310: an operation needs an access token and there is none.
        public static let missingAccessToken = MendError.Code(.login, 310)
        /// 320 (Mend): the token store could not be read or written. Retryable; it never means "logged out".
        public static let tokenStoreUnavailable = MendError.Code(.login, 320)
    }

    /// Session codes of the app's backend (`mend-server`), in two groups that a client must never confuse:
    ///
    /// - 1–9, **refresh**: this access token is expired, invalid or missing. Refresh the session (a Mend client does
    ///   it by itself) and replay; the user stays signed in.
    /// - 10–19, **ended**: the session is over and only a new login helps; the code says why. These, and only these,
    ///   sign a user out of a backend session.
    public enum Session {
        /// 1: the access token expired; refresh the session, then replay.
        public static let accessTokenExpired = MendError.Code(.session, 1)
        /// 2: the access token is not valid (malformed, a signature that does not verify, another audience); refresh.
        public static let accessTokenInvalid = MendError.Code(.session, 2)
        /// 3: the request carried no access token.
        public static let accessTokenMissing = MendError.Code(.session, 3)
        /// 10: the session ended, for a reason the server did not name.
        public static let sessionEnded = MendError.Code(.session, 10)
        /// 11: the user logged out (here or on another device sharing the session).
        public static let loggedOut = MendError.Code(.session, 11)
        /// 12: a refresh token was used again after its successor was used: the session was revoked as stolen.
        public static let refreshTokenReused = MendError.Code(.session, 12)
        /// 13: the provider withdrew the app's access (the user removed the app, changed the password, the provider
        ///     token was found invalid).
        public static let providerAccessRevoked = MendError.Code(.session, 13)
        /// 14: the user's account was deleted.
        public static let userDeleted = MendError.Code(.session, 14)
        /// 15: the session reached the end of its lifetime (the refresh token expired).
        public static let sessionExpired = MendError.Code(.session, 15)
        /// 16: the refresh token is unknown: never issued here, or long gone.
        public static let refreshTokenUnknown = MendError.Code(.session, 16)
        /// 17: the session was revoked (RFC 7009 token revocation, or by an operator).
        public static let revoked = MendError.Code(.session, 17)

        /// Whether `code` says that the session is over (10–19), as opposed to "refresh this access token" (1–9).
        public static func endsSession(_ code: MendError.Code) -> Bool {
            code.domain == .session && (10..<20).contains(code.rawValue)
        }
    }

    /// Graph API codes (the provider's own numbers).
    public enum Graph {
        /// 1: an unknown error; often temporary.
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

    /// GraphQL errors, mapped from `extensions.code`, and the client's own GraphQL conditions.
    public enum GraphQL {
        /// A GraphQL error without a known `extensions.code`.
        public static let unknown = MendError.Code(.graphQL, 0)
        /// `UNAUTHENTICATED`.
        public static let unauthenticated = MendError.Code(.graphQL, 1)
        /// `FORBIDDEN`.
        public static let forbidden = MendError.Code(.graphQL, 2)
        /// `BAD_USER_INPUT`.
        public static let badUserInput = MendError.Code(.graphQL, 3)
        /// `GRAPHQL_VALIDATION_FAILED`.
        public static let validationFailed = MendError.Code(.graphQL, 4)
        /// `GRAPHQL_PARSE_FAILED`.
        public static let parseFailed = MendError.Code(.graphQL, 5)
        /// `INTERNAL_SERVER_ERROR`.
        public static let internalServerError = MendError.Code(.graphQL, 6)
        /// `PERSISTED_QUERY_NOT_FOUND`.
        public static let persistedQueryNotFound = MendError.Code(.graphQL, 7)
        /// `PERSISTED_QUERY_NOT_SUPPORTED`.
        public static let persistedQueryNotSupported = MendError.Code(.graphQL, 8)
        /// `OPERATION_RESOLUTION_FAILURE`.
        public static let operationResolutionFailure = MendError.Code(.graphQL, 9)
        /// `BAD_REQUEST`.
        public static let badRequest = MendError.Code(.graphQL, 10)
        /// The response carried GraphQL errors (thrown under the `.none` error policy, with the errors and data).
        public static let responseHasErrors = MendError.Code(.graphQL, 11)
        /// The response had neither `data` nor `errors`.
        public static let noData = MendError.Code(.graphQL, 12)
    }

    /// Plain HTTP statuses, for APIs whose error bodies say nothing more. 4xx and 5xx statuses without an entry
    /// of their own are classified as 400 and 500.
    public enum HTTP {
        /// 400 Bad Request (and any 4xx without an entry of its own).
        public static let badRequest = MendError.Code(.http, 400)
        /// 401 Unauthorized.
        public static let unauthorized = MendError.Code(.http, 401)
        /// 403 Forbidden.
        public static let forbidden = MendError.Code(.http, 403)
        /// 404 Not Found.
        public static let notFound = MendError.Code(.http, 404)
        /// 405 Method Not Allowed.
        public static let methodNotAllowed = MendError.Code(.http, 405)
        /// 408 Request Timeout.
        public static let requestTimeout = MendError.Code(.http, 408)
        /// 409 Conflict.
        public static let conflict = MendError.Code(.http, 409)
        /// 410 Gone.
        public static let gone = MendError.Code(.http, 410)
        /// 413 Content Too Large.
        public static let contentTooLarge = MendError.Code(.http, 413)
        /// 422 Unprocessable Content.
        public static let unprocessableContent = MendError.Code(.http, 422)
        /// 425 Too Early.
        public static let tooEarly = MendError.Code(.http, 425)
        /// 429 Too Many Requests.
        public static let tooManyRequests = MendError.Code(.http, 429)
        /// 500 Internal Server Error (and any 5xx without an entry of its own).
        public static let internalServerError = MendError.Code(.http, 500)
        /// 501 Not Implemented.
        public static let notImplemented = MendError.Code(.http, 501)
        /// 502 Bad Gateway.
        public static let badGateway = MendError.Code(.http, 502)
        /// 503 Service Unavailable.
        public static let serviceUnavailable = MendError.Code(.http, 503)
        /// 504 Gateway Timeout.
        public static let gatewayTimeout = MendError.Code(.http, 504)
    }

    /// Failures before or below HTTP, and responses that cannot be read.
    public enum Transport {
        /// The device is offline.
        public static let notConnected = MendError.Code(.transport, 1)
        /// The request timed out (or its deadline passed).
        public static let timedOut = MendError.Code(.transport, 2)
        /// TLS failed: the secure connection could not be established or verified.
        public static let secureConnectionFailed = MendError.Code(.transport, 3)
        /// DNS failed: the host could not be found.
        public static let cannotFindHost = MendError.Code(.transport, 4)
        /// The connection was lost (or dropped by the server) mid-request.
        public static let connectionLost = MendError.Code(.transport, 5)
        /// The transport was cancelled by something other than the caller's task (tasks throw `CancellationError`).
        public static let cancelled = MendError.Code(.transport, 6)
        /// The body claimed to be JSON but was invalid or truncated.
        public static let malformedResponse = MendError.Code(.transport, 7)
        /// The body was not JSON (HTML, plain text) where JSON was expected.
        public static let nonJSONBody = MendError.Code(.transport, 8)
        /// The body exceeded the configured size limit and was not read further.
        public static let responseTooLarge = MendError.Code(.transport, 9)
        /// The body was empty where content was expected.
        public static let emptyResponse = MendError.Code(.transport, 10)
        /// The request could not be built (an invalid URL, an unencodable body).
        public static let invalidRequest = MendError.Code(.transport, 11)
        /// The server refused the connection.
        public static let cannotConnect = MendError.Code(.transport, 12)
    }
}
