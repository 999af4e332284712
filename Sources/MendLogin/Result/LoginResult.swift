public import Foundation
public import MendCore

/// The outcome of a login that did not fail: the session, or a cancellation — which is not an error.
public struct LoginResult: Sendable {
    /// The session, when the user logged in.
    public var session: Session?
    /// Whether the user cancelled (closed the dialog, pressed Cancel): handle it silently.
    public var isCancelled: Bool
    /// Why the login ended without a session, when ``isCancelled``: the person cancelled, declined a device login,
    /// or let a device login's code expire. `nil` for a successful login.
    public var cancellation: Cancellation?
    /// The permissions granted in this login.
    public var grantedPermissions: Set<String>
    /// The permissions declined in this login (not errors: ask again only when the user needs them).
    public var declinedPermissions: Set<String>

    /// A successful login.
    package init(session: Session, granted: Set<String>, declined: Set<String>) {
        self.session = session
        self.isCancelled = false
        self.cancellation = nil
        self.grantedPermissions = granted
        self.declinedPermissions = declined
    }

    /// Why a login ended without a session. None of them is an error: handle them without an alert, or with the
    /// calm message of `messageKey`.
    public enum Cancellation: String, Sendable, Hashable, Codable {
        /// The person closed the dialog or pressed Cancel.
        case userCancelled
        /// The person declined a device login on the other screen.
        case declined
        /// A device login's code expired before it was entered: start again for a new code.
        case expired

        /// The localized message to show, if any: none for ``userCancelled`` (the person knows), and for the device
        /// cases the catalog's `deviceLoginDeclined` and `deviceCodeExpired`.
        package var messageKey: MendError.MessageKey? {
            switch self {
            case .userCancelled: nil
            case .declined: .deviceLoginDeclined
            case .expired: .deviceCodeExpired
            }
        }
    }

    /// A cancelled login (the person cancelled).
    public static let cancelled = LoginResult(cancellation: .userCancelled)

    /// A login that ended without a session, for `reason`.
    public static func cancelled(_ reason: Cancellation) -> LoginResult { LoginResult(cancellation: reason) }

    private init(cancellation: Cancellation) {
        session = nil
        isCancelled = true
        self.cancellation = cancellation
        grantedPermissions = []
        declinedPermissions = []
    }
}
