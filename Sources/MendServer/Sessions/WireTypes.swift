import Foundation
import MendCore

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
    /// The granted scopes, space-separated (the access token's `scope`); the body lists them as an array.
    var scope: String
    var expiresAt: Int64
    var sessionID: String

    enum CodingKeys: String, CodingKey {
        case valid, userID = "user_id", scopes, expiresAt = "expires_at", sessionID = "session_id"
    }

    /// The scopes, in order.
    var scopes: [String] { scope.split(separator: " ").map(String.init) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(valid, forKey: .valid)
        try container.encode(userID, forKey: .userID)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(sessionID, forKey: .sessionID)
    }

    /// The body's JSON text, written straight to bytes (every bearer check answers with it): the same bytes as
    /// `WireResponse.encoder` writes — keys sorted, its escapes (a test compares them).
    var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 + scope.utf8.count + userID.utf8.count + sessionID.utf8.count)
        bytes.append(contentsOf: #"{"expires_at":"#.utf8)
        bytes.append(contentsOf: String(expiresAt).utf8)
        bytes.append(contentsOf: #","scopes":["#.utf8)
        var scope = scope
        scope.withUTF8 { scope in
            // The names between spaces (none empty), as `scopes` splits them — over the bytes, not generically.
            var first = true
            var start = 0
            for end in 0...scope.count where end == scope.count || scope[end] == UInt8(ascii: " ") {
                defer { start = end + 1 }
                guard end > start else { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.writeString(UnsafeBufferPointer(rebasing: scope[start..<end]), into: &bytes)
            }
        }
        bytes.append(contentsOf: #"],"session_id":"#.utf8)
        JSONValue.writeString(sessionID.utf8, into: &bytes)
        bytes.append(contentsOf: #","user_id":"#.utf8)
        JSONValue.writeString(userID.utf8, into: &bytes)
        bytes.append(contentsOf: valid ? #","valid":true}"#.utf8 : #","valid":false}"#.utf8)
        return bytes
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

extension JSONValue {
    /// A string, or `null`.
    init(_ text: String?) { self = text.map(JSONValue.string) ?? .null }

    /// An integer, or `null`.
    init(_ number: Int64?) { self = number.map { .int(Int($0)) } ?? .null }
}

extension SessionRecord {
    /// A `GET /v1/sessions` entry; `currentID` is the session of the token that asked.
    func listed(currentID: String) -> JSONValue {
        .object([
            "id": .string(id), "current": .bool(id == currentID), "client": JSONValue(client),
            "platform": JSONValue(clientPlatform), "created_at": JSONValue(createdAt),
            "refreshed_at": JSONValue(refreshedAt), "expires_at": JSONValue(expiresAt),
            "first_address": JSONValue(firstAddress), "last_address": JSONValue(lastAddress),
        ])
    }
}

extension AuditRecord {
    /// A `GET /v1/me/activity` entry: the user's own view (who did it, when not the user, is for operators).
    var activity: JSONValue {
        .object([
            "at": JSONValue(at), "event": .string(event), "session_id": JSONValue(sessionID),
            "provider": JSONValue(provider), "detail": JSONValue(detail), "address": JSONValue(address),
            "client": JSONValue(client),
        ])
    }
}
