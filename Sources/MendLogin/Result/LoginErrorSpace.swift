// The login and session error spaces: their domains, codes and catalog rows. Sources: the vendor SDK's login
// codes (300–310) and mend-server's session codes.
public import MendCore

extension MendError.Domain {
    /// Login errors, with the vendor SDK's codes 300–310.
    public static let login = Self(rawValue: "login")
    /// Session errors of the app's backend (`mend-server`): an access token to refresh, or a session that ended
    /// and why. Only the "ended" codes (10–19) mean that the user must log in again.
    public static let session = Self(rawValue: "session")
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
        /// 321 (Mend): the system browser session cannot be shown or cannot end at the redirect URI (no
        /// presentation anchor, an `http` redirect): the app's setup, not the person's doing.
        public static let presentationFailed = MendError.Code(.login, 321)
        /// 322 (Mend): a login was started while another one is on screen; the first one goes on.
        public static let loginInProgress = MendError.Code(.login, 322)
        /// 324 (Mend): the token store's folder cannot be created or written (a read-only disk, no permission), or is
        /// not this user's alone (others can write to it): the setup's to fix, not retryable. Never "logged out".
        public static let tokenStoreMisconfigured = MendError.Code(.login, 324)
        /// 323 (Mend): an OpenID Connect discovery document that cannot be trusted or used: it names no issuer or
        /// another one than asked for, lacks the authorization or token endpoint, or names a plain-http endpoint.
        public static let invalidDiscoveryDocument = MendError.Code(.login, 323)
        /// 330 (Mend): device login — the code was not entered yet; keep polling (the provider's 1349174, RFC 8628
        /// `authorization_pending`).
        public static let deviceAuthorizationPending = MendError.Code(.login, 330)
        /// 331 (Mend): device login — polled too often; add 5 seconds to the interval (1349172, `slow_down`).
        public static let deviceSlowDown = MendError.Code(.login, 331)
        /// 332 (Mend): device login — the person declined (1349173, `access_denied`); a login reports it as a
        /// cancelled result.
        public static let deviceLoginDeclined = MendError.Code(.login, 332)
        /// 333 (Mend): device login — the code expired (1349152, `expired_token`); a login reports it as a
        /// cancelled result.
        public static let deviceCodeExpired = MendError.Code(.login, 333)
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
        /// 18 (client side): nothing can refresh this session — it has no refresh token, or it holds a provider's
        /// token that a client cannot refresh. Log in again.
        public static let notRefreshable = MendError.Code(.session, 18)
        /// 19 (client side): the key the session's tokens are bound to (DPoP) is gone or cannot be used on this device
        /// (a Secure Enclave key restored to another device, a record altered by hand). Log in again.
        public static let proofKeyUnavailable = MendError.Code(.session, 19)
        /// 20: the request's DPoP proof was refused (missing for a bound token, signed by another key, for another
        ///     method or URL, too old, used before). A Mend client refreshes and sends the request once more with a
        ///     new proof; the session is not over.
        public static let dpopProofInvalid = MendError.Code(.session, 20)
        /// 21: the server requires its nonce in DPoP proofs (`use_dpop_nonce`); the answer's `DPoP-Nonce` is the one
        ///     to use. A Mend client sends the request once more with it.
        public static let dpopNonceRequired = MendError.Code(.session, 21)

        /// Whether `code` says that the session is over (10–19), as opposed to "refresh this access token" (1–9).
        package static func endsSession(_ code: MendError.Code) -> Bool {
            code.domain == .session && (10..<20).contains(code.rawValue)
        }
    }
}

extension ErrorSpace {
    /// Login errors, with the vendor SDK's codes 300–310, and the token store's.
    // swift-format-ignore
    public static let login = ErrorSpace(domain: .login, entries: [
        .row(.login, nil, "loginFailed", .other, .contactSupport, .loginFailed, "A login error without a code of its own."),
        .row(.login, 300, "reserved", .other, .none, .loginFailed, "Reserved by the vendor SDK."),
        .row(.login, 301, "unknown", .other, .contactSupport, .loginFailed, "The login failed for an unknown reason."),
        .row(.login, 302, "passwordChanged", .recoverable, .reauthenticate, .passwordChanged, "The user changed their password; log in again."),
        .row(.login, 303, "userCheckpointed", .recoverable, .visitProvider, .accountCheckpointed, "The user is checkpointed and must log in on the provider's website."),
        .row(.login, 304, "userMismatch", .recoverable, .reauthenticate, .userMismatch, "Re-authentication logged in a different user than the current one."),
        .row(.login, 305, "unconfirmedUser", .recoverable, .visitProvider, .accountUnconfirmed, "The user has not confirmed their account."),
        .row(.login, 306, "systemAccountAppDisabled", .recoverable, .reauthenticate, .systemAccountUnavailable, "The system account's access to the app is disabled in the device settings."),
        .row(.login, 307, "systemAccountUnavailable", .recoverable, .reauthenticate, .systemAccountUnavailable, "The system account is unavailable."),
        .row(.login, 308, "badChallengeString", .other, .reauthenticate, .loginFailed, "The redirect's state is missing or differs from the one sent, or its iss is not the provider's (RFC 9207): a possible forgery or mix-up. Nothing was stored.", security: true),
        .row(.login, 309, "invalidIDToken", .other, .reauthenticate, .loginFailed, "The id_token is missing or failed validation (signature and key, issuer, audience and azp, exp/nbf/iat, nonce).", security: true),
        .row(.login, 310, "missingAccessToken", .recoverable, .reauthenticate, .notLoggedIn, "The operation needs an access token and there is none."),
        .row(.login, 320, "tokenStoreUnavailable", .transient, .retry, .generic, "Mend: the token store could not be read or written (locked keychain, unreadable file); retry. It never means logged out."),
        .row(.login, 321, "presentationFailed", .other, .fixConfiguration, .loginFailed, "Mend: the system browser session cannot be shown (no presentation anchor, one off screen) or cannot end at the redirect URI (http, no scheme)."),
        .row(.login, 322, "loginInProgress", .other, .none, .loginFailed, "Mend: a login was started while another one is on screen; the first one goes on."),
        .row(.login, 323, "invalidDiscoveryDocument", .other, .fixConfiguration, .loginFailed, "Mend: the OpenID Connect discovery document names no issuer or another one than asked for (a possible mix-up), lacks the authorization or token endpoint, or names an endpoint that is not https. Check the issuer URL.", security: true),
        .row(.login, 324, "tokenStoreMisconfigured", .other, .fixConfiguration, .generic, "Mend: the token store's folder cannot be created or written (a read-only disk, no permission) or is not this user's alone (others can write to it); fix the folder or choose another. Retrying does not help; it never means logged out."),
        .row(.login, 330, "deviceAuthorizationPending", .transient, .retry, .deviceLoginPending, "Mend: device login — the code was not entered yet (1349174, authorization_pending); keep polling at the interval."),
        .row(.login, 331, "deviceSlowDown", .transient, .waitForRateLimit, .rateLimited, "Mend: device login — polled too often (1349172, slow_down); add 5 seconds to the interval for every later poll."),
        .row(.login, 332, "deviceLoginDeclined", .other, .none, .deviceLoginDeclined, "Mend: device login — the person declined (1349173, access_denied); a login returns a cancelled result."),
        .row(.login, 333, "deviceCodeExpired", .recoverable, .reauthenticate, .deviceCodeExpired, "Mend: device login — the code expired before it was entered (1349152, expired_token); a login returns a cancelled result; start again."),
    ])

    /// The session errors of the app's backend (`mend-server`): a token to refresh, or a session that ended and why.
    // swift-format-ignore
    public static let session = ErrorSpace(domain: .session, entries: [
        .row(.session, nil, "sessionError", .other, .contactSupport, .generic, "A session error without a code of its own."),
        .row(.session, 1, "accessTokenExpired", .recoverable, .reauthenticate, .sessionRenewal, "The access token expired: refresh the session, then replay. Never a reason to sign out."),
        .row(.session, 2, "accessTokenInvalid", .recoverable, .reauthenticate, .sessionRenewal, "The access token is not valid (malformed, unverifiable, another audience): refresh the session, then replay."),
        .row(.session, 3, "accessTokenMissing", .recoverable, .reauthenticate, .notLoggedIn, "The request carried no access token."),
        .row(.session, 10, "sessionEnded", .recoverable, .reauthenticate, .signedOut, "The session ended: log in again."),
        .row(.session, 11, "loggedOut", .recoverable, .reauthenticate, .signedOut, "The session ended because the user logged out: log in again."),
        .row(.session, 12, "refreshTokenReused", .recoverable, .reauthenticate, .signedOutForSecurity, "A refresh token was used after its successor: the session was revoked as stolen. Log in again."),
        .row(.session, 13, "providerAccessRevoked", .recoverable, .reauthenticate, .appRemoved, "The provider withdrew the app's access (app removed, password changed, provider token invalid): log in again."),
        .row(.session, 14, "userDeleted", .recoverable, .reauthenticate, .accountDeleted, "The user's account was deleted; a new login creates a new account."),
        .row(.session, 15, "sessionExpired", .recoverable, .reauthenticate, .sessionExpired, "The session reached the end of its lifetime (the refresh token expired): log in again."),
        .row(.session, 16, "refreshTokenUnknown", .recoverable, .reauthenticate, .sessionExpired, "The refresh token is unknown (never issued here, or long gone): log in again."),
        .row(.session, 17, "revoked", .recoverable, .reauthenticate, .signedOut, "The session was revoked (token revocation, or an operator): log in again."),
        .row(.session, 18, "notRefreshable", .recoverable, .reauthenticate, .sessionExpired, "Nothing can refresh this session (no refresh token, or a provider token a client cannot refresh): log in again."),
        .row(.session, 19, "proofKeyUnavailable", .recoverable, .reauthenticate, .signedOut, "The key the session is bound to (DPoP) is gone or cannot be used on this device: log in again."),
        .row(.session, 20, "dpopProofInvalid", .recoverable, .reauthenticate, .sessionProofRefused, "The request's DPoP proof was refused (none for a bound token, another key, method or URL, too old, used before): refresh, then send it again with a new proof. Never a reason to sign out."),
        .row(.session, 21, "dpopNonceRequired", .transient, .retry, .sessionRenewal, "The server requires its nonce in DPoP proofs: send the request again with the answer's DPoP-Nonce (once): the authorization step does, never the retry step.", autoRetry: false),
    ])
}

extension ErrorCatalog {
    /// The catalog of login and sessions: `ErrorCatalog.core` with the login space, the session space
    /// (`mend-server`'s answers), the OAuth space (an OpenID Connect provider's) and the passkey space (WebAuthn
    /// ceremonies: the server's refusals and the platform's errors). A provider's own error space
    /// (Facebook's Graph space) comes with its dialect's error decoder.
    public static let login = ErrorCatalog.core.adding(.login).adding(.session).adding(.oauth).adding(.passkey)
}
