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
public enum SignOutReason: Sendable {
    /// The user logged out.
    case userLoggedOut
    /// The provider or the backend rejected the token; the error says why (expired, password changed, app removed,
    /// checkpointed…).
    case tokenRejected(MendError)
    /// The session could not be refreshed.
    case refreshFailed(MendError)
}

/// What logging out did.
public struct LogoutOutcome: Sendable {
    /// Whether the session was revoked at the provider or the backend.
    public var revoked: Bool
    /// Why revocation failed, if it did; the local session is gone either way.
    public var revocationError: MendError?
}
