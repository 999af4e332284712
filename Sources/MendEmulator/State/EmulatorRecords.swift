import Foundation

/// An access token the emulator issued.
struct TokenRecord: Sendable, Hashable {
    enum Kind: String, Sendable { case user = "USER", app = "APP" }

    var value: String
    var kind: Kind
    var appID: String
    var userID: String?
    var issuedAt: Date
    /// `nil` for tokens that never expire (app tokens).
    var expiresAt: Date?
    var dataAccessExpiresAt: Date?
    var isLongLived: Bool
    /// The event number at issue, compared with the user's password change and app removal.
    var generation: Int
    /// Set when the token was revoked (a reused code, a logout): the subcode its use fails with.
    var revokedSubcode: Int?
}

/// An authorization code from the login dialog.
struct AuthorizationCode: Sendable, Hashable {
    var value: String
    var appID: String
    var userID: String
    var redirectURI: String
    var codeChallenge: String?
    var nonce: String?
    var scopes: [String]
    var issuedAt: Date
    var expiresAt: Date
    var used = false
    var issuedToken: String?
}

/// A login dialog waiting for the person's answer on the consent page.
struct PendingDialog: Sendable, Hashable {
    var id: String
    var appID: String
    var redirectURI: String
    var responseTypes: Set<String>
    var scopes: [String]
    var state: String?
    var codeChallenge: String?
    var nonce: String?
    var rerequest: Bool
}

/// What a user granted and declined to one app.
struct Grant: Sendable, Hashable {
    var granted: Set<String> = []
    var declined: Set<String> = []
}

/// A user's mutable state.
struct EmulatedUserState: Sendable {
    var profile: TestUser
    var state: TestUser.AccountState
    /// The event number of the last password change: tokens issued before it fail with 460.
    var passwordChangedGeneration: Int?
    /// Per app: the event number when the user removed the app; tokens issued before fail with 458.
    var appRemovedGeneration: [String: Int] = [:]
    var grants: [String: Grant] = [:]
}

/// A feed post.
struct Post: Sendable, Hashable {
    var id: String
    var fromID: String
    var message: String
    var createdTime: Date
}
