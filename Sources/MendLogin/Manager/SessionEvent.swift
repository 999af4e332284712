public import MendCore

/// What happened to the session, as ``CredentialsManager/events()`` reports it.
public enum SessionEvent: Sendable {
    /// A user signed in.
    case signedIn(Session)
    /// The session was refreshed (a rotated refresh token, a new access token).
    case refreshed(Session)
    /// The user was signed out, and why.
    case signedOut(SignOutReason)
}

/// Why a session ended.
public enum SignOutReason: Sendable, CustomStringConvertible {
    /// The user logged out.
    case userLoggedOut
    /// The provider or the backend rejected the token; the error says why (expired, password changed, app removed,
    /// checkpointed…).
    case tokenRejected(MendError)
    /// The issuer answered a refresh saying that the session is over (and why).
    case refreshFailed(MendError)

    /// The issuer's error, when the issuer ended the session.
    public var error: MendError? {
        switch self {
        case .userLoggedOut: nil
        case .tokenRejected(let error), .refreshFailed(let error): error
        }
    }

    /// `logged out`, or the issuer's error name and code (`loggedOut (session/11)`).
    public var description: String {
        error.map { "\($0.name) (\($0.code))" } ?? "logged out"
    }
}

/// What logging out did.
public struct LogoutOutcome: Sendable {
    /// Whether the session was revoked at the provider or the backend.
    public var revoked: Bool
    /// Why revocation failed, if it did; the local session is gone either way.
    public var revocationError: MendError?
}
