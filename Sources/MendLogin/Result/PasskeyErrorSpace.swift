// The passkey error space: mend-server's refusals of a WebAuthn ceremony (1–19) and the platform's own errors — the
// DOMException names a browser gives and `ASAuthorizationError` codes 1000–1010 — read into codes (20–39), so that
// "no such passkey" is never shown as "cancelled".
public import MendCore

extension MendError.Domain {
    /// Passkey (WebAuthn) errors: the server's refusals of a ceremony, and the platform's.
    public static let passkey = Self(rawValue: "passkey")
}

extension MendError.Code {
    /// Passkey codes: 1–19 the server's refusals, 20–39 the platform's errors.
    public enum Passkey {
        /// 1: the ceremony's challenge expired, was used already, or was never issued here: start again.
        public static let challengeInvalid = MendError.Code(.passkey, 1)
        /// 2: the response came from an origin, or for an RP ID, that the server does not allow.
        public static let originNotAllowed = MendError.Code(.passkey, 2)
        /// 3: the authenticator did not verify the user (PIN, biometrics) and the server requires it.
        public static let userVerificationMissing = MendError.Code(.passkey, 3)
        /// 4: no such passkey here — removed, or never added. The answer's `passkey` member names the RP ID and the
        /// credential ID, so that the app tells the platform (`PublicKeyCredential.signalUnknownCredential`,
        /// `ASCredentialUpdater.reportUnknownPublicKeyCredential`).
        public static let unknownCredential = MendError.Code(.passkey, 4)
        /// 5: the signature counter went back for a device-bound passkey and the server's policy refuses that.
        public static let counterRegression = MendError.Code(.passkey, 5)
        /// 6: the attestation format is not one the server verifies (`none`, `packed` self-attestation).
        public static let unsupportedAttestation = MendError.Code(.passkey, 6)
        /// 7: the response does not verify: a signature, an attestation, or data that is not WebAuthn's.
        public static let verificationFailed = MendError.Code(.passkey, 7)
        /// 8: adding a passkey needs a sign-in within the last minutes: sign in again, then add it.
        public static let recentSignInRequired = MendError.Code(.passkey, 8)
        /// 9: the passkey is the account's last way to sign in (no provider is linked): it cannot be removed.
        public static let lastSignInMethod = MendError.Code(.passkey, 9)
        /// 10: this credential is already registered (the authenticator holds a passkey of the account).
        public static let alreadyRegistered = MendError.Code(.passkey, 10)
        /// 20: the person cancelled (`ASAuthorizationError.canceled`, 1001). A passkey login reports it as a
        /// cancelled result, never as an error to show.
        public static let cancelled = MendError.Code(.passkey, 20)
        /// 21: the browser's `NotAllowedError`: cancelled, timed out, or no passkey of this site was chosen — the
        /// browser does not say which. Offer another way to sign in; never "no such passkey" (that is 4).
        public static let notAllowed = MendError.Code(.passkey, 21)
        /// 22: the authenticator already holds one of the account's passkeys (`InvalidStateError`;
        /// `ASAuthorizationError.matchedExcludedCredential`, 1006).
        public static let excludedCredential = MendError.Code(.passkey, 22)
        /// 23: passkeys, or the algorithms offered, are not supported here (`NotSupportedError`; 1010, a device
        /// without a passcode).
        public static let notSupported = MendError.Code(.passkey, 23)
        /// 24: the RP ID is not valid for the page's origin or the app's associated domains (`SecurityError`):
        /// the site's or the app's setup (`apple-app-site-association`, `assetlinks.json`).
        public static let securityError = MendError.Code(.passkey, 24)
        /// 25: the ceremony was aborted by the app or by another one starting (`AbortError`).
        public static let aborted = MendError.Code(.passkey, 25)
        /// 26: the authenticator cannot meet what was asked (`ConstraintError`: user verification it lacks).
        public static let constraintUnmet = MendError.Code(.passkey, 26)
        /// 27: the platform failed (`ASAuthorizationError` 1000 unknown, 1002 invalid response, 1003 not handled,
        /// 1004 failed — also a domain association the system could not fetch).
        public static let platformFailed = MendError.Code(.passkey, 27)
        /// 28: the request needed the person and was not allowed to show UI (`ASAuthorizationError.notInteractive`,
        /// 1005).
        public static let notInteractive = MendError.Code(.passkey, 28)
        /// 29: a credential import or export failed (`ASAuthorizationError` 1007, 1008), or the platform suggested
        /// another way to sign in (1009).
        public static let platformUnsupportedRequest = MendError.Code(.passkey, 29)
    }
}

/// The platform's passkey errors as codes of the passkey space.
public enum PasskeyPlatformError {
    /// The code of a browser's `DOMException` name from `navigator.credentials.create()` or `.get()`; `nil` for a
    /// name that is not one of WebAuthn's.
    public static func code(domExceptionName name: String) -> MendError.Code? {
        switch name {
        case "NotAllowedError": .Passkey.notAllowed
        case "InvalidStateError": .Passkey.excludedCredential
        case "NotSupportedError": .Passkey.notSupported
        case "SecurityError": .Passkey.securityError
        case "AbortError": .Passkey.aborted
        case "ConstraintError": .Passkey.constraintUnmet
        case "UnknownError", "TypeError", "EncodingError": .Passkey.platformFailed
        default: nil
        }
    }

    /// The code of an `ASAuthorizationError` code (1000–1010); `nil` for any other number.
    public static func code(authorizationErrorCode code: Int) -> MendError.Code? {
        switch code {
        case 1001: .Passkey.cancelled
        case 1000, 1002, 1003, 1004: .Passkey.platformFailed
        case 1005: .Passkey.notInteractive
        case 1006: .Passkey.excludedCredential
        case 1007, 1008, 1009: .Passkey.platformUnsupportedRequest
        case 1010: .Passkey.notSupported
        default: nil
        }
    }
}

extension ErrorSpace {
    /// Passkey errors: the server's refusals of a ceremony and the platform's errors.
    // swift-format-ignore
    public static let passkey = ErrorSpace(domain: .passkey, entries: [
        .row(.passkey, nil, "passkeyError", .other, .contactSupport, .passkeyFailed, "A passkey error without a code of its own."),
        .row(.passkey, 1, "challengeInvalid", .recoverable, .retry, .passkeyFailed, "The ceremony's challenge expired, was used already, or was never issued here: start the ceremony again (new options)."),
        .row(.passkey, 2, "originNotAllowed", .other, .fixConfiguration, .passkeyUnavailable, "The response came from an origin (or for an RP ID) the server does not allow: add the origin to MEND_PASSKEY_ORIGINS, or use the configured RP ID.", security: true),
        .row(.passkey, 3, "userVerificationMissing", .recoverable, .retry, .passkeyFailed, "The authenticator did not verify the user (PIN, biometrics) and the server requires it: try again and verify."),
        .row(.passkey, 4, "unknownCredential", .recoverable, .reauthenticate, .passkeyNotFound, "No such passkey here (removed, or never added): sign in another way and add a new one. The answer's passkey member names the RP ID and credential ID to tell the platform (signalUnknownCredential, reportUnknownPublicKeyCredential)."),
        .row(.passkey, 5, "counterRegression", .other, .contactSupport, .passkeyFailed, "The signature counter went back for a device-bound passkey, which may be cloned, and the server's policy refuses that.", security: true),
        .row(.passkey, 6, "unsupportedAttestation", .other, .fixConfiguration, .passkeyUnavailable, "The attestation format is not one the server verifies (none, packed self-attestation): ask for attestation none."),
        .row(.passkey, 7, "verificationFailed", .other, .retry, .passkeyFailed, "The response does not verify: a signature or an attestation, or data that is not WebAuthn's (CBOR, authenticator data, client data, base64url).", security: true),
        .row(.passkey, 8, "recentSignInRequired", .recoverable, .reauthenticate, .passkeyRecentSignIn, "Adding a passkey needs a sign-in within the last minutes (MEND_PASSKEY_REAUTH_WINDOW): sign in again, then add it."),
        .row(.passkey, 9, "lastSignInMethod", .other, .none, .passkeyLastSignInMethod, "The passkey is the account's last way to sign in (no provider is linked): it cannot be removed."),
        .row(.passkey, 10, "alreadyRegistered", .other, .none, .passkeyAlreadyAdded, "This credential is already registered here."),
        .row(.passkey, 20, "cancelled", .other, .none, .cancelled, "The person cancelled (ASAuthorizationError.canceled): a passkey login returns a cancelled result."),
        .row(.passkey, 21, "notAllowed", .other, .none, .passkeyFailed, "The browser's NotAllowedError: cancelled, timed out, or no passkey chosen; the browser does not say which. Offer another way to sign in; not \"no such passkey\" (passkey/4)."),
        .row(.passkey, 22, "excludedCredential", .other, .none, .passkeyAlreadyAdded, "The authenticator already holds one of the account's passkeys (InvalidStateError; ASAuthorizationError.matchedExcludedCredential)."),
        .row(.passkey, 23, "notSupported", .other, .none, .passkeyUnavailable, "Passkeys or the offered algorithms are not supported here (NotSupportedError; ASAuthorizationError 1010: a device without a passcode)."),
        .row(.passkey, 24, "securityError", .other, .fixConfiguration, .passkeyUnavailable, "The RP ID is not valid for the origin or the app's associated domains (SecurityError): check apple-app-site-association, assetlinks.json and the RP ID."),
        .row(.passkey, 25, "aborted", .other, .none, .cancelled, "The ceremony was aborted by the app or by another one starting (AbortError)."),
        .row(.passkey, 26, "constraintUnmet", .other, .none, .passkeyUnavailable, "The authenticator cannot do what was asked (ConstraintError: user verification it lacks)."),
        .row(.passkey, 27, "platformFailed", .transient, .retry, .passkeyFailed, "The platform failed (ASAuthorizationError 1000, 1002, 1003, 1004; a domain association the system could not fetch).", autoRetry: false),
        .row(.passkey, 28, "notInteractive", .recoverable, .retry, .passkeyFailed, "The request needed the person and could not show UI (ASAuthorizationError.notInteractive): start it from a tap."),
        .row(.passkey, 29, "platformUnsupportedRequest", .other, .none, .passkeyFailed, "A credential import or export failed, or the platform suggested another way to sign in (ASAuthorizationError 1007–1009)."),
    ])
}
