import MendClientTesting
import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendLogin
import Testing

/// Expected classifications, written from the reference documents (not read back from the catalog).
struct ExpectedRow: Sendable, CustomTestStringConvertible {
    var code: MendError.Code
    var subcode: Int?
    var name: String
    var category: MendError.Category
    var recovery: MendError.Recovery.Action
    /// The provider's message, for a row that the message's words select.
    var message: String?

    init(
        _ code: MendError.Code, sub subcode: Int? = nil, message: String? = nil, _ name: String,
        _ category: MendError.Category, _ recovery: MendError.Recovery.Action
    ) {
        self.code = code
        self.subcode = subcode
        self.message = message
        self.name = name
        self.category = category
        self.recovery = recovery
    }

    var testDescription: String { "\(code)\(subcode.map { "/\($0)" } ?? "") \(name)" }
}

// swift-format-ignore
let expectedRows: [ExpectedRow] = [
    // Login 300–310 (vendor SDK parity).
    .init(.Login.reserved, "reserved", .other, .none),
    .init(.Login.unknown, "unknown", .other, .contactSupport),
    .init(.Login.passwordChanged, "passwordChanged", .recoverable, .reauthenticate),
    .init(.Login.userCheckpointed, "userCheckpointed", .recoverable, .visitProvider),
    .init(.Login.userMismatch, "userMismatch", .recoverable, .reauthenticate),
    .init(.Login.unconfirmedUser, "unconfirmedUser", .recoverable, .visitProvider),
    .init(.Login.systemAccountAppDisabled, "systemAccountAppDisabled", .recoverable, .reauthenticate),
    .init(.Login.systemAccountUnavailable, "systemAccountUnavailable", .recoverable, .reauthenticate),
    .init(.Login.badChallengeString, "badChallengeString", .other, .reauthenticate),
    .init(.Login.invalidIDToken, "invalidIDToken", .other, .reauthenticate),
    .init(.Login.missingAccessToken, "missingAccessToken", .recoverable, .reauthenticate),
    .init(.Login.tokenStoreUnavailable, "tokenStoreUnavailable", .transient, .retry),
    .init(.Login.tokenStoreMisconfigured, "tokenStoreMisconfigured", .other, .fixConfiguration),
    .init(.Login.presentationFailed, "presentationFailed", .other, .fixConfiguration),
    .init(.Login.loginInProgress, "loginInProgress", .other, .none),
    .init(.Login.invalidDiscoveryDocument, "invalidDiscoveryDocument", .other, .fixConfiguration),
    .init(.Login.deviceAuthorizationPending, "deviceAuthorizationPending", .transient, .retry),
    .init(.Login.deviceSlowDown, "deviceSlowDown", .transient, .waitForRateLimit),
    .init(.Login.deviceLoginDeclined, "deviceLoginDeclined", .other, .none),
    .init(.Login.deviceCodeExpired, "deviceCodeExpired", .recoverable, .reauthenticate),
    // Session (mend-server): 1–3 mean "refresh", 10–17 mean "the session ended, and why".
    .init(.Session.accessTokenExpired, "accessTokenExpired", .recoverable, .reauthenticate),
    .init(.Session.accessTokenInvalid, "accessTokenInvalid", .recoverable, .reauthenticate),
    .init(.Session.accessTokenMissing, "accessTokenMissing", .recoverable, .reauthenticate),
    .init(.Session.sessionEnded, "sessionEnded", .recoverable, .reauthenticate),
    .init(.Session.loggedOut, "loggedOut", .recoverable, .reauthenticate),
    .init(.Session.refreshTokenReused, "refreshTokenReused", .recoverable, .reauthenticate),
    .init(.Session.providerAccessRevoked, "providerAccessRevoked", .recoverable, .reauthenticate),
    .init(.Session.userDeleted, "userDeleted", .recoverable, .reauthenticate),
    .init(.Session.sessionExpired, "sessionExpired", .recoverable, .reauthenticate),
    .init(.Session.refreshTokenUnknown, "refreshTokenUnknown", .recoverable, .reauthenticate),
    .init(.Session.revoked, "revoked", .recoverable, .reauthenticate),
    .init(.Session.notRefreshable, "notRefreshable", .recoverable, .reauthenticate),
    .init(.Session.proofKeyUnavailable, "proofKeyUnavailable", .recoverable, .reauthenticate),
    .init(.Session.dpopProofInvalid, "dpopProofInvalid", .recoverable, .reauthenticate),
    .init(.Session.dpopNonceRequired, "dpopNonceRequired", .transient, .retry),
    // Passkeys: mend-server's refusals of a WebAuthn ceremony (WebAuthn Level 3 §7.1, §7.2), the browser's
    // DOMException names (§5.1.3, §5.1.4) and ASAuthorizationError's codes (1000–1010).
    .init(.Passkey.challengeInvalid, "challengeInvalid", .recoverable, .retry),
    .init(.Passkey.originNotAllowed, "originNotAllowed", .other, .fixConfiguration),
    .init(.Passkey.userVerificationMissing, "userVerificationMissing", .recoverable, .retry),
    .init(.Passkey.unknownCredential, "unknownCredential", .recoverable, .reauthenticate),
    .init(.Passkey.counterRegression, "counterRegression", .other, .contactSupport),
    .init(.Passkey.unsupportedAttestation, "unsupportedAttestation", .other, .fixConfiguration),
    .init(.Passkey.verificationFailed, "verificationFailed", .other, .retry),
    .init(.Passkey.recentSignInRequired, "recentSignInRequired", .recoverable, .reauthenticate),
    .init(.Passkey.lastSignInMethod, "lastSignInMethod", .other, .none),
    .init(.Passkey.alreadyRegistered, "alreadyRegistered", .other, .none),
    .init(.Passkey.cancelled, "cancelled", .other, .none),
    .init(.Passkey.notAllowed, "notAllowed", .other, .none),
    .init(.Passkey.excludedCredential, "excludedCredential", .other, .none),
    .init(.Passkey.notSupported, "notSupported", .other, .none),
    .init(.Passkey.securityError, "securityError", .other, .fixConfiguration),
    .init(.Passkey.aborted, "aborted", .other, .none),
    .init(.Passkey.constraintUnmet, "constraintUnmet", .other, .none),
    .init(.Passkey.platformFailed, "platformFailed", .transient, .retry),
    .init(.Passkey.notInteractive, "notInteractive", .recoverable, .retry),
    .init(.Passkey.platformUnsupportedRequest, "platformUnsupportedRequest", .other, .none),
    // OAuth 2.0 and OpenID Connect: RFC 6749, 6750, 7009, 8628 and OIDC Core's error values.
    .init(.OAuth.invalidRequest, "invalidRequest", .other, .fixConfiguration),
    .init(.OAuth.invalidClient, "invalidClient", .other, .fixConfiguration),
    .init(.OAuth.invalidGrant, "invalidGrant", .recoverable, .reauthenticate),
    .init(.OAuth.unauthorizedClient, "unauthorizedClient", .other, .fixConfiguration),
    .init(.OAuth.unsupportedGrantType, "unsupportedGrantType", .other, .fixConfiguration),
    .init(.OAuth.invalidScope, "invalidScope", .other, .fixConfiguration),
    .init(.OAuth.accessDenied, "accessDenied", .other, .none),
    .init(.OAuth.unsupportedResponseType, "unsupportedResponseType", .other, .fixConfiguration),
    .init(.OAuth.serverError, "serverError", .transient, .retry),
    .init(.OAuth.temporarilyUnavailable, "temporarilyUnavailable", .transient, .retry),
    .init(.OAuth.invalidToken, "invalidToken", .recoverable, .reauthenticate),
    .init(.OAuth.unsupportedTokenType, "unsupportedTokenType", .other, .fixConfiguration),
    .init(.OAuth.authorizationPending, "authorizationPending", .transient, .retry),
    .init(.OAuth.slowDown, "slowDown", .transient, .waitForRateLimit),
    .init(.OAuth.expiredToken, "expiredToken", .recoverable, .reauthenticate),
    .init(.OAuth.interactionRequired, "interactionRequired", .recoverable, .reauthenticate),
    .init(.OAuth.loginRequired, "loginRequired", .recoverable, .reauthenticate),
    .init(.OAuth.accountSelectionRequired, "accountSelectionRequired", .recoverable, .reauthenticate),
    .init(.OAuth.consentRequired, "consentRequired", .recoverable, .reauthenticate),
    // Graph: the reference's code table.
    .init(.Graph.unknown, "unknown", .transient, .retry),
    // 1 asks for less data only in words ("Please reduce the amount of data you're asking for, then retry your
    // request"): sending the same request again never succeeds. Every other 1 is transient.
    .init(.Graph.unknown, message: "An unknown error has occurred.", "unknown", .transient, .retry),
    .init(
        .Graph.unknown,
        message: "OAuthException: Please reduce the amount of data you're asking for, then retry your request",
        "reduceData", .recoverable, .reduceRequestSize),
    .init(.Graph.unknown, message: "please REDUCE THE AMOUNT OF DATA you're asking for", "reduceData", .recoverable, .reduceRequestSize),
    .init(.Graph.serviceUnavailable, "serviceUnavailable", .transient, .retry),
    .init(.Graph.capabilityMissing, "capabilityMissing", .other, .fixConfiguration),
    .init(.Graph.appRateLimit, "appRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.temporarilyThrottled, "temporarilyThrottled", .transient, .retry),
    .init(.Graph.permissionDenied, "permissionDenied", .recoverable, .requestPermissions),
    .init(.Graph.userRateLimit, "userRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.userRateLimit, sub: 2446079, "userRateLimitReached", .transient, .waitForRateLimit),
    .init(.Graph.userRateLimit, sub: 1349172, "deviceExcessivePolling", .transient, .waitForRateLimit),
    .init(MendError.Code(.graph, 31), sub: 1349173, "deviceLoginDeclined", .other, .none),
    .init(MendError.Code(.graph, 31), sub: 1349174, "deviceAuthorizationPending", .transient, .retry),
    .init(.Graph.pagesRateLimit, "pagesRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.invalidParameter, "invalidParameter", .other, .changeRequest),
    .init(.Graph.invalidParameter, sub: 33, "objectNotFound", .other, .changeRequest),
    .init(.Graph.sessionInvalid, "sessionInvalid", .recoverable, .reauthenticate),
    .init(.Graph.accessTokenInvalid, "accessTokenInvalid", .recoverable, .reauthenticate),
    .init(.Graph.accessTokenInvalid, sub: 458, "appNotInstalled", .recoverable, .reauthenticate),
    .init(.Graph.accessTokenInvalid, sub: 459, "userCheckpointed", .recoverable, .visitProvider),
    .init(.Graph.accessTokenInvalid, sub: 460, "passwordChanged", .recoverable, .reauthenticate),
    .init(.Graph.accessTokenInvalid, sub: 463, "tokenExpired", .recoverable, .reauthenticate),
    .init(.Graph.accessTokenInvalid, sub: 464, "unconfirmedUser", .recoverable, .visitProvider),
    .init(.Graph.accessTokenInvalid, sub: 467, "invalidAccessToken", .recoverable, .reauthenticate),
    .init(.Graph.accessTokenInvalid, sub: 492, "invalidSession", .other, .none),
    .init(.Graph.permissionMissing, "permissionMissing", .recoverable, .requestPermissions),
    .init(MendError.Code(.graph, 299), "permissionMissing", .recoverable, .requestPermissions),
    .init(MendError.Code(.graph, 230), "permissionMissing", .recoverable, .requestPermissions),
    .init(.Graph.applicationLimitReached, "applicationLimitReached", .transient, .waitForRateLimit),
    .init(.Graph.temporarilyBlocked, "temporarilyBlocked", .transient, .waitForRateLimit),
    .init(MendError.Code(.graph, 463), sub: 1349152, "deviceCodeExpired", .recoverable, .reauthenticate),
    .init(.Graph.duplicatePost, "duplicatePost", .other, .changeRequest),
    .init(.Graph.customRateLimit, "customRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.customRateLimit, sub: 1996, "customRateLimitReached", .transient, .waitForRateLimit),
    .init(.Graph.linkNotScraped, "linkNotScraped", .other, .changeRequest),
    // 2500 tells "no token" from a malformed request only in words.
    .init(.Graph.requestNotUnderstood, "requestNotUnderstood", .other, .changeRequest),
    .init(.Graph.requestNotUnderstood, message: "Unknown path components: /mee", "requestNotUnderstood", .other, .changeRequest),
    .init(
        .Graph.requestNotUnderstood,
        message: "OAuthException: An active access token must be used to query information about the current user.",
        "accessTokenRequired", .recoverable, .reauthenticate),
    .init(.Graph.requestNotUnderstood, message: "an ACTIVE access token MUST BE USED", "accessTokenRequired", .recoverable, .reauthenticate),
    .init(.Graph.adsInsightsRateLimit, "adsInsightsRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.pagesBusinessRateLimit, "pagesBusinessRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.instagramRateLimit, "instagramRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.customAudienceRateLimit, "customAudienceRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.adsManagementRateLimit, "adsManagementRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.leadGenRateLimit, "leadGenRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.messengerRateLimit, "messengerRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.whatsAppBusinessAccountRateLimit, "whatsAppBusinessAccountRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.whatsAppBusinessManagementRateLimit, "whatsAppBusinessManagementRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.catalogManagementRateLimit, "catalogManagementRateLimit", .transient, .waitForRateLimit),
    .init(.Graph.catalogBatchRateLimit, "catalogBatchRateLimit", .transient, .waitForRateLimit),
    // REST status error space.
    .init(.REST.badRequest, "badRequest", .other, .changeRequest),
    .init(.REST.accessDenied, "accessDenied", .recoverable, .reauthenticate),
    .init(.REST.paymentRequired, "paymentRequired", .other, .contactSupport),
    .init(.REST.usageLimitExceeded, "usageLimitExceeded", .transient, .waitForRateLimit),
    .init(.REST.notFound, "notFound", .other, .none),
    .init(.REST.updateConflict, "updateConflict", .recoverable, .reloadAndRetry),
    .init(.REST.preconditionFailed, "preconditionFailed", .other, .changeRequest),
    .init(.REST.apiAuthenticationError, "apiAuthenticationError", .recoverable, .reauthenticate),
    .init(.REST.userAuthenticationError, "userAuthenticationError", .recoverable, .reauthenticate),
    .init(.REST.duplicateObject, "duplicateObject", .other, .changeRequest),
    .init(.REST.incorrectConfiguration, "incorrectConfiguration", .other, .fixConfiguration),
    .init(.REST.internalServerError, "internalServerError", .transient, .retry),
    .init(.REST.dataAccessError, "dataAccessError", .transient, .retry),
    .init(.REST.unknownCause, "unknownCause", .other, .contactSupport),
    // GraphQL.
    .init(.GraphQL.unknown, "unknown", .other, .contactSupport),
    .init(.GraphQL.unauthenticated, "unauthenticated", .recoverable, .reauthenticate),
    .init(.GraphQL.forbidden, "forbidden", .recoverable, .requestPermissions),
    .init(.GraphQL.badUserInput, "badUserInput", .other, .changeRequest),
    .init(.GraphQL.validationFailed, "validationFailed", .other, .changeRequest),
    .init(.GraphQL.parseFailed, "parseFailed", .other, .changeRequest),
    .init(.GraphQL.internalServerError, "internalServerError", .transient, .retry),
    .init(.GraphQL.persistedQueryNotFound, "persistedQueryNotFound", .other, .changeRequest),
    .init(.GraphQL.persistedQueryNotSupported, "persistedQueryNotSupported", .other, .changeRequest),
    .init(.GraphQL.operationResolutionFailure, "operationResolutionFailure", .other, .changeRequest),
    .init(.GraphQL.badRequest, "badRequest", .other, .changeRequest),
    .init(.GraphQL.responseHasErrors, "responseHasErrors", .other, .none),
    .init(.GraphQL.noData, "noData", .transient, .retry),
    // HTTP statuses.
    .init(.HTTP.badRequest, "badRequest", .other, .changeRequest),
    .init(.HTTP.unauthorized, "unauthorized", .recoverable, .reauthenticate),
    .init(.HTTP.forbidden, "forbidden", .other, .none),
    .init(.HTTP.notFound, "notFound", .other, .none),
    .init(.HTTP.methodNotAllowed, "methodNotAllowed", .other, .changeRequest),
    .init(.HTTP.requestTimeout, "requestTimeout", .transient, .retry),
    .init(.HTTP.conflict, "conflict", .recoverable, .reloadAndRetry),
    .init(.HTTP.gone, "gone", .other, .none),
    .init(.HTTP.contentTooLarge, "contentTooLarge", .other, .changeRequest),
    .init(.HTTP.unprocessableContent, "unprocessableContent", .other, .changeRequest),
    .init(.HTTP.tooEarly, "tooEarly", .transient, .retry),
    .init(.HTTP.tooManyRequests, "tooManyRequests", .transient, .waitForRateLimit),
    .init(.HTTP.internalServerError, "internalServerError", .transient, .retry),
    .init(.HTTP.notImplemented, "notImplemented", .other, .contactSupport),
    .init(.HTTP.badGateway, "badGateway", .transient, .retry),
    .init(.HTTP.serviceUnavailable, "serviceUnavailable", .transient, .retry),
    .init(.HTTP.gatewayTimeout, "gatewayTimeout", .transient, .retry),
    .init(MendError.Code(.http, 418), "badRequest", .other, .changeRequest),
    .init(MendError.Code(.http, 520), "internalServerError", .transient, .retry),
    .init(MendError.Code(.http, 302), "unexpectedStatus", .other, .contactSupport),
    // Transport.
    .init(.Transport.notConnected, "notConnected", .transient, .checkNetwork),
    .init(.Transport.timedOut, "timedOut", .transient, .retry),
    .init(.Transport.secureConnectionFailed, "secureConnectionFailed", .other, .checkNetwork),
    .init(.Transport.cannotFindHost, "cannotFindHost", .transient, .checkNetwork),
    .init(.Transport.connectionLost, "connectionLost", .transient, .retry),
    .init(.Transport.cancelled, "cancelled", .other, .none),
    .init(.Transport.malformedResponse, "malformedResponse", .transient, .retry),
    .init(.Transport.nonJSONBody, "nonJSONBody", .transient, .retry),
    .init(.Transport.responseTooLarge, "responseTooLarge", .other, .contactSupport),
    .init(.Transport.emptyResponse, "emptyResponse", .transient, .retry),
    .init(.Transport.invalidRequest, "invalidRequest", .other, .changeRequest),
    .init(.Transport.cannotConnect, "cannotConnect", .transient, .retry),
    .init(.Transport.replayMismatch, "replayMismatch", .other, .fixConfiguration),
    .init(.Transport.recordingRefused, "recordingRefused", .other, .fixConfiguration),
    .init(.Transport.cacheReadFailed, "cacheReadFailed", .other, .fixConfiguration),
    .init(.Transport.invalidCacheData, "invalidCacheData", .transient, .retry),
    .init(.Transport.notCached, "notCached", .other, .none),
]

@Suite("Catalog classification")
struct CatalogClassificationTests {
    @Test("Each documented code classifies as the references say", arguments: expectedRows)
    func classification(row: ExpectedRow) {
        let error = MendError(
            code: row.code, subcode: row.subcode.map(MendError.Subcode.init(rawValue:)), developerMessage: row.message,
            catalog: .everyClientSpace)
        #expect(error.name == row.name)
        #expect(error.category == row.category)
        #expect(error.recovery.action == row.recovery)
        #expect(error.domain == row.code.domain)
    }

    @Test("Every catalog row is covered by the expected table, and resolves to itself")
    func everyRowIsCovered() {
        for entry in ErrorCatalog.everyClientSpace.entries {
            guard let lower = entry.codes?.lowerBound else { continue }
            let error = MendError(
                code: MendError.Code(entry.domain, lower),
                subcode: entry.subcode.map(MendError.Subcode.init(rawValue:)), developerMessage: entry.messagePhrase,
                catalog: .everyClientSpace)
            #expect(error.name == entry.name, "\(entry.domain)/\(entry.codeText)/\(entry.subcodeText)")
            let covered = expectedRows.contains {
                $0.code.domain == entry.domain && entry.codes?.contains($0.code.rawValue) == true
                    && $0.subcode == entry.subcode && $0.name == entry.name
            }
            #expect(covered, "no expectation for \(entry.domain)/\(entry.codeText)/\(entry.subcodeText) \(entry.name)")
        }
    }

    @Test("Entry names are unique within a domain, and every domain has a default row")
    func namesAreUnique() {
        for domain in ErrorCatalog.everyClientSpace.domains {
            let entries = ErrorCatalog.everyClientSpace.entries(in: domain)
            let named = entries.filter { $0.codes != nil }.map(\.name)
            #expect(Set(named).count == named.count, "duplicate names in \(domain)")
            #expect(entries.contains { $0.codes == nil && $0.subcode == nil }, "no default row in \(domain)")
        }
    }

    @Test(
        "The catalog holds what the closing note promises",
        arguments: [
            (MendError.Domain.login, 21), (.session, 16), (.graph, 46), (.rest, 15), (.graphQL, 14), (.http, 18),
            (.transport, 18),
        ])
    func counts(domain: MendError.Domain, count: Int) {
        #expect(ErrorCatalog.everyClientSpace.entries(in: domain).count == count)
    }

    @Test("Only the session-ended codes (10–19) end a session; 1–9 ask for a refresh")
    func sessionEndedCodes() {
        for code in [
            MendError.Code.Session.accessTokenExpired, .Session.accessTokenInvalid, .Session.accessTokenMissing,
        ] {
            #expect(!MendError.Code.Session.endsSession(code), "\(code)")
        }
        for raw in 10...17 {
            #expect(MendError.Code.Session.endsSession(MendError.Code(.session, raw)))
        }
        #expect(!MendError.Code.Session.endsSession(.REST.userAuthenticationError))
        #expect(!MendError.Code.Session.endsSession(.Graph.accessTokenInvalid))
    }

    @Test("Asked to reduce the data (1 with its phrase): recoverable by a smaller request, never retried unchanged")
    func reduceDataIsNotRetriedUnchanged() throws {
        let message = "OAuthException: Please reduce the amount of data you're asking for, then retry your request"
        let error = MendError(code: .Graph.unknown, developerMessage: message, catalog: .everyClientSpace)
        #expect(error.name == "reduceData")
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .reduceRequestSize)
        #expect(!error.isAutomaticallyRetryable)
        // The provider's `is_transient` does not make the same request worth sending again.
        let flagged = MendError(
            code: .Graph.unknown, developerMessage: message, isTransient: true, catalog: .everyClientSpace)
        #expect(flagged.category == .recoverable)
        #expect(flagged.recovery.action == .reduceRequestSize)
        #expect(!flagged.isAutomaticallyRetryable)
        // A provider's error configuration that lists 1 as transient (as the vendor SDK's does) changes the plain 1s
        // only.
        let merged = try #require(
            try? ErrorCatalog.graph.merging(
                providerConfiguration: JSONValue.array([
                    .object(["name": .string("transient"), "items": .array([.object(["code": .int(1)])])])
                ])))
        #expect(MendError(code: .Graph.unknown, developerMessage: message, catalog: merged).name == "reduceData")
        // Another 1 stays transient and retried.
        let other = MendError(
            code: .Graph.unknown, developerMessage: "OAuthException: An unknown error has occurred.",
            catalog: .everyClientSpace)
        #expect(other.category == .transient)
        #expect(other.recovery.action == .retry)
        #expect(other.isAutomaticallyRetryable)
    }

    @Test("Temporarily blocked (368) is transient but never retried automatically")
    func policyBlockIsNotAutoRetried() {
        let error = MendError(code: .Graph.temporarilyBlocked, catalog: .everyClientSpace)
        #expect(error.category == .transient)
        #expect(!error.isAutomaticallyRetryable)
        #expect(MendError(code: .Graph.appRateLimit, catalog: .everyClientSpace).isAutomaticallyRetryable)
        #expect(!MendError(code: .Graph.accessTokenInvalid, catalog: .everyClientSpace).isAutomaticallyRetryable)
    }
}
