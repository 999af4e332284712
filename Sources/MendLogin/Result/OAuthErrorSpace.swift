// The OAuth 2.0 and OpenID Connect error space: the `error` values of an OAuth provider's answers (RFC 6749 §4.1.2.1
// and §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1, RFC 8628 §3.5, OpenID Connect Core §3.1.2.6). OpenIDConnectDialect
// decodes its providers' errors into it.
public import Foundation
public import HTTPTypes
public import MendCore
public import MendHTTP

extension MendError.Domain {
    /// OAuth 2.0 and OpenID Connect errors: the `error` of an OAuth provider's answer (Google, Apple, any OpenID
    /// Connect issuer).
    public static let oauth = Self(rawValue: "oauth")
}

extension MendError.Code {
    /// OAuth 2.0 and OpenID Connect error codes. The numbers are Mend's; the name of each is the wire's `error`.
    public enum OAuth {
        /// 1 `invalid_request`: a parameter is missing, repeated or malformed (the app's request).
        public static let invalidRequest = MendError.Code(.oauth, 1)
        /// 2 `invalid_client`: the client id or its authentication is wrong.
        public static let invalidClient = MendError.Code(.oauth, 2)
        /// 3 `invalid_grant`: the code or refresh token is invalid, expired, revoked, used, or another client's.
        public static let invalidGrant = MendError.Code(.oauth, 3)
        /// 4 `unauthorized_client`: this client may not use this grant.
        public static let unauthorizedClient = MendError.Code(.oauth, 4)
        /// 5 `unsupported_grant_type`.
        public static let unsupportedGrantType = MendError.Code(.oauth, 5)
        /// 6 `invalid_scope`.
        public static let invalidScope = MendError.Code(.oauth, 6)
        /// 7 `access_denied`: the person or the provider refused.
        public static let accessDenied = MendError.Code(.oauth, 7)
        /// 8 `unsupported_response_type`.
        public static let unsupportedResponseType = MendError.Code(.oauth, 8)
        /// 9 `server_error`.
        public static let serverError = MendError.Code(.oauth, 9)
        /// 10 `temporarily_unavailable`.
        public static let temporarilyUnavailable = MendError.Code(.oauth, 10)
        /// 20 `invalid_token` (RFC 6750, RFC 7009): the access token is expired, revoked or malformed.
        public static let invalidToken = MendError.Code(.oauth, 20)
        /// 21 `unsupported_token_type` (RFC 7009).
        public static let unsupportedTokenType = MendError.Code(.oauth, 21)
        /// 30 `authorization_pending` (RFC 8628): the device code was not entered yet.
        public static let authorizationPending = MendError.Code(.oauth, 30)
        /// 31 `slow_down` (RFC 8628): polled too often.
        public static let slowDown = MendError.Code(.oauth, 31)
        /// 32 `expired_token` (RFC 8628): the device code expired.
        public static let expiredToken = MendError.Code(.oauth, 32)
        /// 40 `interaction_required` (OpenID Connect): the provider needs the person.
        public static let interactionRequired = MendError.Code(.oauth, 40)
        /// 41 `login_required`.
        public static let loginRequired = MendError.Code(.oauth, 41)
        /// 42 `account_selection_required`.
        public static let accountSelectionRequired = MendError.Code(.oauth, 42)
        /// 43 `consent_required`.
        public static let consentRequired = MendError.Code(.oauth, 43)

        /// The code of an OAuth `error` value, or `nil` for a value no standard names.
        package static func code(forWireName name: String) -> MendError.Code? {
            ErrorSpace.oauth.entries.first { $0.wireName == name }.flatMap { entry in
                entry.codes.map { MendError.Code(.oauth, $0.lowerBound) }
            }
        }
    }
}

extension ErrorSpace {
    /// OAuth 2.0 and OpenID Connect errors, by the `error` of the provider's answer.
    // swift-format-ignore
    public static let oauth = ErrorSpace(domain: .oauth, entries: [
        .row(.oauth, nil, "oauthError", .other, .contactSupport, .loginFailed, "An OAuth error no standard names."),
        .row(.oauth, 1, "invalidRequest", .other, .fixConfiguration, .appMisconfigured, "A parameter of the app's request is missing, repeated or malformed.", wire: "invalid_request"),
        .row(.oauth, 2, "invalidClient", .other, .fixConfiguration, .appMisconfigured, "The client id, or the client's authentication (its secret), is wrong.", wire: "invalid_client"),
        .row(.oauth, 3, "invalidGrant", .recoverable, .reauthenticate, .loginFailed, "The code or refresh token is invalid, expired, revoked, already used, or another client's: log in again.", wire: "invalid_grant"),
        .row(.oauth, 4, "unauthorizedClient", .other, .fixConfiguration, .appMisconfigured, "This client may not use this grant type.", wire: "unauthorized_client"),
        .row(.oauth, 5, "unsupportedGrantType", .other, .fixConfiguration, .appMisconfigured, "The provider does not support this grant type.", wire: "unsupported_grant_type"),
        .row(.oauth, 6, "invalidScope", .other, .fixConfiguration, .appMisconfigured, "A requested scope is invalid, unknown or not allowed for this client.", wire: "invalid_scope"),
        .row(.oauth, 7, "accessDenied", .other, .none, .accessDenied, "The person or the provider refused the request.", wire: "access_denied"),
        .row(.oauth, 8, "unsupportedResponseType", .other, .fixConfiguration, .appMisconfigured, "The provider does not support this response type.", wire: "unsupported_response_type"),
        .row(.oauth, 9, "serverError", .transient, .retry, .serviceUnavailable, "The provider failed: try again later.", wire: "server_error"),
        .row(.oauth, 10, "temporarilyUnavailable", .transient, .retry, .serviceUnavailable, "The provider is overloaded or down for maintenance: try again later.", wire: "temporarily_unavailable"),
        .row(.oauth, 20, "invalidToken", .recoverable, .reauthenticate, .sessionExpired, "The access token is expired, revoked or malformed (RFC 6750).", wire: "invalid_token"),
        .row(.oauth, 21, "unsupportedTokenType", .other, .fixConfiguration, .appMisconfigured, "The provider cannot revoke this type of token (RFC 7009).", wire: "unsupported_token_type"),
        .row(.oauth, 30, "authorizationPending", .transient, .retry, .deviceLoginPending, "Device login: the code was not entered yet; keep polling at the interval (RFC 8628).", wire: "authorization_pending"),
        .row(.oauth, 31, "slowDown", .transient, .waitForRateLimit, .rateLimited, "Device login: polled too often; add 5 seconds to the interval (RFC 8628).", wire: "slow_down"),
        .row(.oauth, 32, "expiredToken", .recoverable, .reauthenticate, .deviceCodeExpired, "Device login: the code expired before it was entered; start again (RFC 8628).", wire: "expired_token"),
        .row(.oauth, 40, "interactionRequired", .recoverable, .reauthenticate, .loginFailed, "The provider needs the person to interact: log in again with its page shown (OpenID Connect).", wire: "interaction_required"),
        .row(.oauth, 41, "loginRequired", .recoverable, .reauthenticate, .loginFailed, "The provider needs the person to log in (OpenID Connect).", wire: "login_required"),
        .row(.oauth, 42, "accountSelectionRequired", .recoverable, .reauthenticate, .loginFailed, "The person must choose an account (OpenID Connect).", wire: "account_selection_required"),
        .row(.oauth, 43, "consentRequired", .recoverable, .reauthenticate, .loginFailed, "The person must consent again (OpenID Connect).", wire: "consent_required"),
    ])
}

/// Decodes an OAuth 2.0 / OpenID Connect provider's error answers: a JSON `error` that a standard names becomes its
/// `oauth` code (with the status, the body and the `error_description` kept); anything else is decoded as
/// `HTTPStatusErrorDecoder` does. ``OpenIDConnectDialect`` uses it.
public struct OAuthErrorDecoder: ErrorDecoder {
    /// A decoder.
    public init() {}

    /// The `oauth` space (the HTTP status space it falls back to is in every catalog).
    public var errorSpaces: [ErrorSpace] { [.oauth] }

    /// The error of an OAuth answer, or `nil` for a success.
    public func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        guard let base = HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context),
            base.domain == .http, let name = base.response?.json?["error"]?.stringValue,
            let code = MendError.Code.OAuth.code(forWireName: name)
        else {
            return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        let description = base.response?.json?["error_description"]?.stringValue
        var error = MendError(
            code: code,
            developerMessage: "\(name) (an OAuth error, HTTP \(response.status.code))"
                + (description.map { ": " + context.redactor.redact(text: $0) } ?? ""),
            catalog: context.catalog)
        error.attach(response: response, body: body, json: base.response?.json, context: context)
        return error
    }
}
