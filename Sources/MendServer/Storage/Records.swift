import Foundation
import SQLKit

/// A user as stored: the app's own id, the Facebook id, the profile and the permissions (the provider tokens are kept
/// on the identities).
struct UserRecord: Sendable, Hashable {
    var id: String
    /// The Facebook user id; `nil` for a user who signed in with another provider only (see `mend_identities`).
    var providerUserID: String?
    var name: String
    var email: String?
    var picture: String?
    var grantedScopes: [String]
    var declinedScopes: [String]
    var profileRefreshedAt: Int64
    var createdAt: Int64
    var updatedAt: Int64
}

/// A session (a refresh-token family): who, which scopes, until when, and whether and why it was revoked.
struct SessionRecord: Sendable, Hashable {
    var id: String
    var userID: String
    var scopes: [String]
    var createdAt: Int64
    var expiresAt: Int64
    var revokedAt: Int64?
    /// A ``SessionEndReason`` raw value (or, in rows older than migration 2, free text).
    var revokedReason: String?
    /// A human detail of the end (the provider's error), for the developer message only.
    var revokedDetail: String?
    /// The client that opened the session, as its `Mend-Client` header named it (`name/version`).
    var client: String?
    /// The platform the `Mend-Client` header named (`iOS 18.1`).
    var clientPlatform: String?
    /// The address the session was opened from, and the last one it refreshed from, keyed as the rate limits key
    /// them.
    var firstAddress: String?
    var lastAddress: String?
    /// When the session last refreshed (unix seconds); `nil` before its first refresh.
    var refreshedAt: Int64?
    /// The provider and the flow of the login that opened it (`code`, `provider_token`, `id_token`).
    var provider: String?
    var flow: String?
    /// The RFC 7638 thumbprint of the key the session's tokens are bound to (DPoP); `nil` for a bearer session.
    var proofKey: String?
}

/// One refresh token of a session, stored by its SHA-256; rotated once, then only remembered for reuse detection
/// and, within the grace window, to answer its successor again.
struct RefreshTokenRecord: Sendable, Hashable {
    var tokenHash: String
    var sessionID: String
    var createdAt: Int64
    var expiresAt: Int64
    var rotatedAt: Int64?
    /// The successor's hash, once rotated.
    var replacedBy: String?
    /// The successor, sealed under a key derived from this token (``SuccessorSeal``), once rotated.
    var successorSealed: String?
}

/// A data-deletion request the provider sent, and its status.
struct DeletionRecord: Sendable, Hashable {
    var confirmationCode: String
    var providerUserID: String
    var status: String
    var requestedAt: Int64
    var completedAt: Int64?
}

/// Scopes are stored as one comma-separated column.
enum ScopeList {
    static func encode(_ scopes: [String]) -> String { scopes.joined(separator: ",") }
    static func decode(_ text: String) -> [String] { text.split(separator: ",").map(String.init) }
}

extension SQLRow {
    func text(_ column: String) throws -> String { try decode(column: column, as: String.self) }
    func optionalText(_ column: String) throws -> String? { try decode(column: column, as: String?.self) }
    func integer(_ column: String) throws -> Int64 { try decode(column: column, as: Int64.self) }
    func optionalInteger(_ column: String) throws -> Int64? { try decode(column: column, as: Int64?.self) }
}
