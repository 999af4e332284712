extension MendError {
    /// The key of a localized user-facing title and message. Several catalog entries share one key.
    public struct MessageKey: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The key's stable name.
        public var rawValue: String
        /// Creates a key.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The key's stable name.
        public var description: String { rawValue }

        /// Something went wrong; nothing specific to say.
        public static let generic = MessageKey(rawValue: "generic")
        /// The service is temporarily unavailable.
        public static let serviceUnavailable = MessageKey(rawValue: "serviceUnavailable")
        /// Too many requests: wait a little.
        public static let rateLimited = MessageKey(rawValue: "rateLimited")
        /// Temporarily blocked by the provider.
        public static let temporarilyBlocked = MessageKey(rawValue: "temporarilyBlocked")
        /// The session expired or is no longer valid.
        public static let sessionExpired = MessageKey(rawValue: "sessionExpired")
        /// The user removed the app from their account.
        public static let appRemoved = MessageKey(rawValue: "appRemoved")
        /// The user changed their password.
        public static let passwordChanged = MessageKey(rawValue: "passwordChanged")
        /// The account is checkpointed: the provider's website needs the user.
        public static let accountCheckpointed = MessageKey(rawValue: "accountCheckpointed")
        /// The account is not confirmed yet.
        public static let accountUnconfirmed = MessageKey(rawValue: "accountUnconfirmed")
        /// A permission the action needs was not granted.
        public static let permissionMissing = MessageKey(rawValue: "permissionMissing")
        /// No access to the resource.
        public static let accessDenied = MessageKey(rawValue: "accessDenied")
        /// The thing asked for does not exist.
        public static let notFound = MessageKey(rawValue: "notFound")
        /// The same content was posted already.
        public static let duplicatePost = MessageKey(rawValue: "duplicatePost")
        /// A shared link could not be read.
        public static let linkNotReadable = MessageKey(rawValue: "linkNotReadable")
        /// The app is not set up correctly.
        public static let appMisconfigured = MessageKey(rawValue: "appMisconfigured")
        /// The login failed (also the generic text of security errors).
        public static let loginFailed = MessageKey(rawValue: "loginFailed")
        /// A different account logged in than the current one.
        public static let userMismatch = MessageKey(rawValue: "userMismatch")
        /// The device's system account cannot be used.
        public static let systemAccountUnavailable = MessageKey(rawValue: "systemAccountUnavailable")
        /// The session is being renewed: try again (an access token to refresh; never "log in again").
        public static let sessionRenewal = MessageKey(rawValue: "sessionRenewal")
        /// The user was signed out (a logout, a revoked session) and must log in again.
        public static let signedOut = MessageKey(rawValue: "signedOut")
        /// The user was signed out everywhere because the session looked stolen.
        public static let signedOutForSecurity = MessageKey(rawValue: "signedOutForSecurity")
        /// The user's account was deleted.
        public static let accountDeleted = MessageKey(rawValue: "accountDeleted")
        /// The user must log in first.
        public static let notLoggedIn = MessageKey(rawValue: "notLoggedIn")
        /// The subscription is invalid or expired.
        public static let paymentRequired = MessageKey(rawValue: "paymentRequired")
        /// The item was changed elsewhere.
        public static let updateConflict = MessageKey(rawValue: "updateConflict")
        /// The item exists already.
        public static let duplicateObject = MessageKey(rawValue: "duplicateObject")
        /// Something the user entered is not valid.
        public static let invalidInput = MessageKey(rawValue: "invalidInput")
        /// Part of the content could not be loaded.
        public static let partialContent = MessageKey(rawValue: "partialContent")
        /// The device is offline.
        public static let offline = MessageKey(rawValue: "offline")
        /// The server took too long.
        public static let timedOut = MessageKey(rawValue: "timedOut")
        /// A secure connection could not be made.
        public static let secureConnectionFailed = MessageKey(rawValue: "secureConnectionFailed")
        /// The server could not be found or reached.
        public static let serverUnreachable = MessageKey(rawValue: "serverUnreachable")
        /// The connection dropped.
        public static let connectionLost = MessageKey(rawValue: "connectionLost")
        /// The request was cancelled.
        public static let cancelled = MessageKey(rawValue: "cancelled")
        /// The server's answer could not be read.
        public static let unreadableResponse = MessageKey(rawValue: "unreadableResponse")
        /// A device login waits for the person to enter the code on another screen.
        public static let deviceLoginPending = MessageKey(rawValue: "deviceLoginPending")
        /// A device login was declined on the other screen.
        public static let deviceLoginDeclined = MessageKey(rawValue: "deviceLoginDeclined")
        /// A device login's code expired before it was entered.
        public static let deviceCodeExpired = MessageKey(rawValue: "deviceCodeExpired")
        /// The server could not verify that this device holds its session's key (a DPoP proof refused): try again,
        /// then log in again.
        public static let sessionProofRefused = MessageKey(rawValue: "sessionProofRefused")
        /// A passkey ceremony failed (a refused or unreadable answer): try again.
        public static let passkeyFailed = MessageKey(rawValue: "passkeyFailed")
        /// The passkey used is not registered (removed, or never added here): sign in another way and add a new one.
        public static let passkeyNotFound = MessageKey(rawValue: "passkeyNotFound")
        /// Adding a passkey needs a recent sign-in.
        public static let passkeyRecentSignIn = MessageKey(rawValue: "passkeyRecentSignIn")
        /// The passkey is the account's only way to sign in and cannot be removed.
        public static let passkeyLastSignInMethod = MessageKey(rawValue: "passkeyLastSignInMethod")
        /// Passkeys cannot be used on this device or for this site (no support, a setup problem).
        public static let passkeyUnavailable = MessageKey(rawValue: "passkeyUnavailable")
        /// A passkey of this authenticator is already on the account.
        public static let passkeyAlreadyAdded = MessageKey(rawValue: "passkeyAlreadyAdded")
        /// The request asked for too much at once: try again asking for less.
        public static let requestTooLarge = MessageKey(rawValue: "requestTooLarge")
    }
}
