public import Foundation

/// An access token and what is known about it. The token string is redacted in every rendering.
public struct AccessToken: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token itself. Read it only to send it.
    public var tokenString: String
    /// The user it was issued to.
    public var userID: String?
    /// The app it was issued to.
    public var appID: String?
    /// The permissions granted (ever, as far as this token knows).
    public var permissions: Set<String>
    /// The permissions the user declined.
    public var declinedPermissions: Set<String>
    /// The permissions that expired.
    package var expiredPermissions: Set<String>
    /// When the token expires (`nil`: unknown or never).
    public var expirationDate: Date?
    /// When access to the user's data expires (90 days of inactivity on Facebook).
    package var dataAccessExpirationDate: Date?
    /// When the token was issued or last refreshed.
    package var refreshDate: Date

    /// Creates a token.
    public init(
        tokenString: String, userID: String? = nil, appID: String? = nil, permissions: Set<String> = [],
        declinedPermissions: Set<String> = [], expiredPermissions: Set<String> = [], expirationDate: Date? = nil,
        dataAccessExpirationDate: Date? = nil, refreshDate: Date = Date()
    ) {
        self.tokenString = tokenString
        self.userID = userID
        self.appID = appID
        self.permissions = permissions
        self.declinedPermissions = declinedPermissions
        self.expiredPermissions = expiredPermissions
        self.expirationDate = expirationDate
        self.dataAccessExpirationDate = dataAccessExpirationDate
        self.refreshDate = refreshDate
    }

    /// Whether the token has expired at `date`.
    public func isExpired(at date: Date = Date()) -> Bool {
        expirationDate.map { $0 <= date } ?? false
    }

    /// Whether the token is still good for at least `interval` after `date`.
    public func isValid(for interval: TimeInterval, at date: Date = Date()) -> Bool {
        expirationDate.map { $0.timeIntervalSince(date) >= interval } ?? true
    }

    /// Whether data access has expired at `date`.
    package func isDataAccessExpired(at date: Date = Date()) -> Bool {
        dataAccessExpirationDate.map { $0 <= date } ?? false
    }

    /// `AccessToken(<redacted>, user …, expires …)`: never the token.
    public var description: String {
        var parts = ["<redacted>"]
        if let userID { parts.append("user \(userID)") }
        if let expirationDate { parts.append("expires \(ISO8601DateFormatter().string(from: expirationDate))") }
        if !permissions.isEmpty { parts.append("permissions \(permissions.sorted().joined(separator: ","))") }
        return "AccessToken(\(parts.joined(separator: ", ")))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}

/// A logged-in session: the access token the app sends, and how to keep it fresh.
public struct Session: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Who issued the session.
    public enum Issuer: String, Sendable, Hashable, Codable {
        /// The app's backend (`mend-server`): the access token is the backend's, refreshable.
        case backend
        /// The provider directly (a public client with PKCE): the access token is the provider's.
        case provider
    }

    /// The user as the session knows them.
    public struct User: Sendable, Hashable, Codable {
        /// The id (the backend's user id, or the provider's).
        public var id: String
        /// The provider's user id.
        public var providerUserID: String?
        /// The name.
        public var name: String?
        /// The e-mail address, if granted.
        public var email: String?
        /// A picture URL.
        public var picture: String?

        /// Creates a user.
        public init(
            id: String, providerUserID: String? = nil, name: String? = nil, email: String? = nil, picture: String? = nil
        ) {
            self.id = id
            self.providerUserID = providerUserID
            self.name = name
            self.email = email
            self.picture = picture
        }
    }

    /// Who issued it.
    public var issuer: Issuer
    /// The token requests carry.
    public var accessToken: AccessToken
    /// The refresh token (backend sessions), rotated on every refresh. Never logged.
    public var refreshToken: String?
    /// When the refresh token expires.
    package var refreshExpirationDate: Date?
    /// The user.
    public var user: User?
    /// The id_token of an OpenID Connect login, present only when it was validated (``OIDCSessionAuthority`` keeps it
    /// only with an ``IDTokenValidator``, after the token passed). Never logged.
    public var idToken: String?
    /// The provider's own access token, when the backend was configured to hand it to the app (for direct Graph
    /// calls). Never logged.
    public var providerAccessToken: String?
    /// A counter that grows with every refresh (to tell a stale refresh result from a current one).
    package var generation: Int
    /// The issuer's id for the session as a whole — the refresh-token family that every refresh of one login
    /// continues (`session_id` from `mend-server`); `nil` when the issuer names none.
    package var familyID: String?
    /// The key the session's tokens are bound to (DPoP, RFC 9449), or `nil` for a bearer session — every session a
    /// version before DPoP stored, which keeps working as one until its next login.
    public var proofKey: DPoPKey?

    /// Creates a session.
    public init(
        issuer: Issuer, accessToken: AccessToken, refreshToken: String? = nil, refreshExpirationDate: Date? = nil,
        user: User? = nil, idToken: String? = nil, providerAccessToken: String? = nil, generation: Int = 0,
        familyID: String? = nil
    ) {
        self.issuer = issuer
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.refreshExpirationDate = refreshExpirationDate
        self.user = user
        self.idToken = idToken
        self.providerAccessToken = providerAccessToken
        self.generation = generation
        self.familyID = familyID
    }

    /// Whether `other` is this very issue of the session: the same access token and the same refresh token (a
    /// refresh, here or in another process, makes a new issue).
    package func isSameIssue(as other: Session) -> Bool {
        accessToken.tokenString == other.accessToken.tokenString && refreshToken == other.refreshToken
    }

    /// Whether `other` continues the same login: the same family when both name one, otherwise the same issuer and
    /// user.
    package func isSameFamily(as other: Session) -> Bool {
        if let familyID, let otherFamily = other.familyID { return familyID == otherFamily }
        return issuer == other.issuer && user?.id == other.user?.id
    }

    /// `Session(backend, user …, AccessToken(<redacted>…), refreshable)`: no secret.
    public var description: String {
        "Session(\(issuer.rawValue), user \(user?.id ?? "?"), \(accessToken)\(refreshToken == nil ? "" : ", refreshable")"
            + "\(proofKey.map { ", DPoP jkt \($0.thumbprint)" } ?? ""))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}
