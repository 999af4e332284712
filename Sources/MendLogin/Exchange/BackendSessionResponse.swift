import Foundation
import MendCore

/// The wire shape of `mend-server`'s session responses (`POST /v1/login/code`, `POST /v1/session/refresh`).
struct BackendSessionResponse: Decodable, Sendable {
    struct User: Decodable, Sendable {
        var id: String
        var providerUserID: String?
        var name: String?
        var email: String?
        var picture: String?

        enum CodingKeys: String, CodingKey {
            case id, name, email, picture
            case providerUserID = "provider_user_id"
        }
    }

    var accessToken: String
    var tokenType: String?
    var expiresIn: Double?
    var refreshToken: String?
    var refreshExpiresIn: Double?
    var user: User?
    var grantedScopes: [String]?
    var declinedScopes: [String]?
    var providerToken: String?
    var sessionID: String?

    enum CodingKeys: String, CodingKey {
        case user
        case sessionID = "session_id"
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case refreshExpiresIn = "refresh_expires_in"
        case grantedScopes = "granted_scopes"
        case declinedScopes = "declined_scopes"
        case providerToken = "provider_token"
    }

    /// The session this answer opens or continues; it keeps `key` when the answer says its tokens are bound to it
    /// (`token_type: DPoP`), and is a bearer session otherwise (a server that does not bind).
    func session(now: Date, generation: Int, key: DPoPKey?) -> Session {
        var session = Session(
            issuer: .backend,
            accessToken: AccessToken(
                tokenString: accessToken, userID: user?.id, permissions: Set(grantedScopes ?? []),
                declinedPermissions: Set(declinedScopes ?? []),
                expirationDate: expiresIn.map { now.addingTimeInterval($0) }, refreshDate: now),
            refreshToken: refreshToken, refreshExpirationDate: refreshExpiresIn.map { now.addingTimeInterval($0) },
            user: user.map {
                Session.User(
                    id: $0.id, providerUserID: $0.providerUserID, name: $0.name, email: $0.email, picture: $0.picture)
            },
            providerAccessToken: providerToken, generation: generation, familyID: sessionID)
        if tokenType?.caseInsensitiveCompare("DPoP") == .orderedSame { session.proofKey = key }
        return session
    }
}
