import MendCore
import MendLogin

/// Why a session ended, as stored in `mend_sessions.revoked_reason` (the raw values are stable: never rename one),
/// and the session code (session/10–19) a client gets for it. A human detail, if any, is stored beside it in
/// `revoked_detail` and only ever shown in the developer message.
///
/// ```
/// logged_out                   → session/11 loggedOut              (logout, RFC 7009 revocation)
/// refresh_token_reused         → session/12 refreshTokenReused     (reuse detection)
/// deauthorized                 → session/13 providerAccessRevoked  (the deauthorize callback)
/// permissions_revoked          → session/13                        (logout with revoke_provider_permissions)
/// provider_token_invalid       → session/13                        (validity check, GET /v1/me)
/// user_deleted                 → session/14 userDeleted            (the data-deletion callback)
/// authorization_code_replayed  → session/17 revoked                (RFC 9700 §4.2.4)
/// revoked                      → session/17                        (an operator)
/// binding_required             → session/10 sessionEnded           (a bearer session's refresh, MEND_DPOP=required)
/// anything else, or none       → session/10 sessionEnded           (rows written before these reasons existed)
/// ```
enum SessionEndReason: String, Sendable, Hashable, CaseIterable {
    case loggedOut = "logged_out"
    case refreshTokenReused = "refresh_token_reused"
    case deauthorized = "deauthorized"
    case permissionsRevoked = "permissions_revoked"
    case providerTokenInvalid = "provider_token_invalid"
    case userDeleted = "user_deleted"
    case codeReplayed = "authorization_code_replayed"
    case revoked = "revoked"
    case bindingRequired = "binding_required"

    /// The reason a stored `revoked_reason` names; `nil` for a legacy or unknown value.
    init?(stored: String?) {
        guard let stored, let reason = SessionEndReason(rawValue: stored) else { return nil }
        self = reason
    }

    /// The session code of this reason.
    var code: MendError.Code {
        switch self {
        case .loggedOut: .Session.loggedOut
        case .refreshTokenReused: .Session.refreshTokenReused
        case .deauthorized, .permissionsRevoked, .providerTokenInvalid: .Session.providerAccessRevoked
        case .userDeleted: .Session.userDeleted
        case .codeReplayed, .revoked: .Session.revoked
        case .bindingRequired: .Session.sessionEnded
        }
    }

    /// The session code of a stored `revoked_reason`: session/10 when it names no known reason.
    static func code(stored: String?) -> MendError.Code {
        SessionEndReason(stored: stored)?.code ?? .Session.sessionEnded
    }

    /// What happened, for the developer message.
    var summary: String {
        switch self {
        case .loggedOut: "the user logged out"
        case .refreshTokenReused: "a refresh token was reused: the session was revoked as stolen"
        case .deauthorized: "the user removed the app"
        case .permissionsRevoked: "the provider permissions were revoked"
        case .providerTokenInvalid: "the provider token is no longer valid"
        case .userDeleted: "the user's data was deleted"
        case .codeReplayed: "the authorization code that opened it was replayed"
        case .revoked: "it was revoked"
        case .bindingRequired: "this server now binds every session to a key of its client (DPoP), and this one is not"
        }
    }

    /// The metrics label of `mend_sessions_ended_total` (unchanged from before these reasons existed).
    var metricsLabel: String {
        switch self {
        case .loggedOut: "logout"
        case .refreshTokenReused: "refresh_reuse"
        case .deauthorized: "deauthorized"
        case .permissionsRevoked: "permissions_revoked"
        case .providerTokenInvalid: "provider_token_invalid"
        case .userDeleted: "data_deletion"
        case .codeReplayed: "code_replayed"
        case .revoked: "revoked"
        case .bindingRequired: "binding_required"
        }
    }
}
