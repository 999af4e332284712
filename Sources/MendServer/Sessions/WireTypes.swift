import Foundation

/// `POST /v1/login/code`.
struct LoginRequestBody: Decodable, Sendable {
    var code: String
    var codeVerifier: String?
    var redirectURI: String
    /// The provider of the code flow: `facebook` when absent, or a configured issuer whose token keeper takes code
    /// logins (`google`, …).
    var provider: String?

    enum CodingKeys: String, CodingKey {
        case code, provider, codeVerifier = "code_verifier", redirectURI = "redirect_uri"
    }
}

/// `POST /v1/session/refresh`.
struct RefreshRequestBody: Decodable, Sendable {
    var refreshToken: String

    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
}

/// `POST /v1/session/logout`: with a valid bearer, or with the refresh token alone (an expired access token must not
/// stop a logout).
struct LogoutRequestBody: Sendable {
    var refreshToken: String?
    var revokeProviderPermissions: Bool?
    var scope: LogoutScope = .local
}

/// What `POST /v1/session/logout` ends (Supabase's names).
enum LogoutScope: String, Sendable, Hashable, CaseIterable {
    /// The caller's session (the default).
    case local
    /// Every other session of the user; the caller's goes on.
    case others
    /// Every session of the user, the caller's included.
    case global
}

/// `GET /v1/sessions`: the user's active sessions (devices).
struct SessionListBody: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        var id: String
        /// Whether this is the session of the access token that asked.
        var current: Bool
        /// `name/version` from the `Mend-Client` header of the login, if it sent one.
        var client: String?
        var platform: String?
        var createdAt: Int64
        /// The last refresh (`null` before the first).
        var refreshedAt: Int64?
        /// The session's refresh token expiry: the idle lifetime from the last refresh, capped by the maximum.
        var expiresAt: Int64
        var firstAddress: String?
        var lastAddress: String?

        init(_ record: SessionRecord, current currentID: String) {
            id = record.id
            current = record.id == currentID
            client = record.client
            platform = record.clientPlatform
            createdAt = record.createdAt
            refreshedAt = record.refreshedAt
            expiresAt = record.expiresAt
            firstAddress = record.firstAddress
            lastAddress = record.lastAddress
        }

        enum CodingKeys: String, CodingKey {
            case id, current, client, platform, createdAt = "created_at", refreshedAt = "refreshed_at"
            case expiresAt = "expires_at", firstAddress = "first_address", lastAddress = "last_address"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(current, forKey: .current)
            try container.encode(client, forKey: .client)
            try container.encode(platform, forKey: .platform)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(refreshedAt, forKey: .refreshedAt)
            try container.encode(expiresAt, forKey: .expiresAt)
            try container.encode(firstAddress, forKey: .firstAddress)
            try container.encode(lastAddress, forKey: .lastAddress)
        }
    }

    var sessions: [Entry]
}

/// The user object of the session response and of `GET /v1/me` (`email` and `picture` are `null` when unknown).
struct UserBody: Encodable, Sendable, Equatable {
    var id: String
    /// The Facebook user id; `null` for a user who signed in with another provider only.
    var providerUserID: String?
    var name: String
    var email: String?
    var picture: String?

    init(_ user: UserRecord) {
        self.id = user.id
        self.providerUserID = user.providerUserID
        self.name = user.name
        self.email = user.email
        self.picture = user.picture
    }

    enum CodingKeys: String, CodingKey { case id, providerUserID = "provider_user_id", name, email, picture }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(providerUserID, forKey: .providerUserID)
        try container.encode(name, forKey: .name)
        try container.encode(email, forKey: .email)
        try container.encode(picture, forKey: .picture)
    }
}

/// `POST /v1/session/revoke` (RFC 7009), from a form or a JSON object.
struct RevocationRequestBody: Sendable, Equatable {
    var token: String
    /// `refresh_token` or `access_token`; advisory: the other kind is tried too.
    var tokenTypeHint: String?
}

/// The session response of login and refresh.
struct SessionBody: Encodable, Sendable {
    /// The session (refresh-token family) id: the access token's `sid`.
    var sessionID: String
    var accessToken: String
    var tokenType = "Bearer"
    var expiresIn: Int
    var refreshToken: String
    var refreshExpiresIn: Int
    var user: UserBody
    var grantedScopes: [String]
    var declinedScopes: [String]
    /// Present only when the server is configured to return the provider token.
    var providerToken: String?

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case refreshToken = "refresh_token", refreshExpiresIn = "refresh_expires_in", user
        case grantedScopes = "granted_scopes", declinedScopes = "declined_scopes", providerToken = "provider_token"
    }
}

/// `GET /v1/session`.
struct IntrospectionBody: Encodable, Sendable {
    var valid: Bool
    var userID: String
    var scopes: [String]
    var expiresAt: Int64
    var sessionID: String

    enum CodingKeys: String, CodingKey {
        case valid, userID = "user_id", scopes, expiresAt = "expires_at", sessionID = "session_id"
    }
}

/// The answer to a data-deletion callback.
struct DeletionAnswerBody: Encodable, Sendable {
    var url: String
    var confirmationCode: String

    enum CodingKeys: String, CodingKey { case url, confirmationCode = "confirmation_code" }
}

/// `GET /v1/provider/deletion/{code}`.
struct DeletionStatusBody: Encodable, Sendable {
    var confirmationCode: String
    var status: String
    var requestedAt: Int64
    var completedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case confirmationCode = "confirmation_code", status, requestedAt = "requested_at", completedAt = "completed_at"
    }
}

/// `GET /v1/me/activity`: the user's own audit events (who did it, when not the user, is for the admin API).
struct ActivityBody: Encodable, Sendable {
    var events: [AuditRecord]

    private enum Keys: String, CodingKey {
        case events
    }

    private enum EventKeys: String, CodingKey {
        case at, event, sessionID = "session_id", provider, detail, address, client
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var list = container.nestedUnkeyedContainer(forKey: .events)
        for record in events {
            var entry = list.nestedContainer(keyedBy: EventKeys.self)
            try entry.encode(record.at, forKey: .at)
            try entry.encode(record.event, forKey: .event)
            try entry.encode(record.sessionID, forKey: .sessionID)
            try entry.encode(record.provider, forKey: .provider)
            try entry.encode(record.detail, forKey: .detail)
            try entry.encode(record.address, forKey: .address)
            try entry.encode(record.client, forKey: .client)
        }
    }
}
