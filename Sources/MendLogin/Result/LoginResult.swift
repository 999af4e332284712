public import Foundation

/// The outcome of a login that did not fail: the session, or a cancellation — which is not an error.
public struct LoginResult: Sendable {
    /// The session, when the user logged in.
    public var session: Session?
    /// Whether the user cancelled (closed the dialog, pressed Cancel): handle it silently.
    public var isCancelled: Bool
    /// The permissions granted in this login.
    public var grantedPermissions: Set<String>
    /// The permissions declined in this login (not errors: ask again only when the user needs them).
    public var declinedPermissions: Set<String>

    /// A successful login.
    public init(session: Session, granted: Set<String>, declined: Set<String>) {
        self.session = session
        self.isCancelled = false
        self.grantedPermissions = granted
        self.declinedPermissions = declined
    }

    /// A cancelled login.
    public static let cancelled = LoginResult()

    private init() {
        session = nil
        isCancelled = true
        grantedPermissions = []
        declinedPermissions = []
    }
}
