public import Foundation
public import Logging
import MendCore
public import MendHTTP

/// A provider mend-server logs users in with, by the authorization code of the app's code flow
/// (`POST /v1/login/code` with `provider`), and revokes the app's access at when the user deletes the account
/// (`DELETE /v1/me`).
///
/// mend-server has one for Facebook (the configured app: the code exchange with the app secret, `debug_token`, the
/// long-lived token, the profile and the permissions), one for each configured ``IDTokenIssuer`` (Google, Apple, any
/// OpenID Connect provider: its ``ProviderTokenKeeper`` exchanges and revokes, the answer's id_token says who logged
/// in), and those an app adds in ``ServerConfiguration/Providers/codeLogin``: one more conforming type, for instance a
/// provider without id_tokens that names its user at a userinfo endpoint. Adding one changes no other provider's code.
///
/// What the server does around the two steps is the same for every provider: each code is claimed once (a replay is
/// refused and revokes what the code opened); ``exchange(_:context:)`` is called once and never retried (a code is
/// single-use), and the code is released for another try only when the failure shows the provider did not use it;
/// after ``identify(_:context:)``, the per-user rate limit, the user found or created by `(provider, subject)`,
/// the kept token, and the session every login opens.
public protocol CodeLoginProvider: Sendable {
    /// The name apps send as `provider` (lowercase), and that identities are stored under.
    var name: String { get }

    /// Exchanges the app's authorization code for the provider's grant.
    ///
    /// - Returns: The grant, or `nil` when this provider does not take code logins here (the request is then a 400
    ///   and the code is left unused).
    /// - Throws: The provider's classified error (`MendError`): a refused code, or a transient failure.
    func exchange(_ code: CodeLoginRequest, context: ProviderCallContext) async throws -> ProviderGrant?

    /// Says who the grant belongs to, after checking that it was issued to this server's app.
    ///
    /// - Throws: The provider's classified error, or a `MendError` such as an invalid id_token for a grant that
    ///   does not prove a login to this app.
    func identify(_ grant: ProviderGrant, context: ProviderCallContext) async throws -> ProviderIdentity

    /// Revokes the app's access with a token kept from a login (account deletion). A token the provider no longer
    /// knows counts as revoked.
    func revoke(_ token: KeptProviderToken, context: ProviderCallContext) async throws
}

/// The authorization code of `POST /v1/login/code` with what the provider needs to accept it.
public struct CodeLoginRequest: Sendable, Hashable {
    /// The code from the provider's redirect.
    public var code: String
    /// The redirect URI of the app's authorization request.
    public var redirectURI: String
    /// The PKCE verifier of the app's authorization request.
    public var codeVerifier: String?

    /// A code and the parameters of its request.
    public init(code: String, redirectURI: String, codeVerifier: String?) {
        self.code = code
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
    }
}

/// What a provider's token endpoint gave for a code.
public struct ProviderGrant: Sendable, Hashable {
    /// The client id the grant was issued to.
    public var clientID: String
    /// The access token, if the answer had one.
    public var accessToken: String?
    /// The refresh token, if the answer had one.
    public var refreshToken: String?
    /// The id_token, if the answer had one.
    public var idToken: String?
    /// The access token's lifetime in seconds, if the answer said.
    public var expiresIn: Int?
    /// The scopes the answer says were granted (its `scope`, split), if it said.
    public var scopes: [String]

    /// A grant.
    public init(
        clientID: String, accessToken: String? = nil, refreshToken: String? = nil, idToken: String? = nil,
        expiresIn: Int? = nil, scopes: [String] = []
    ) {
        self.clientID = clientID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.expiresIn = expiresIn
        self.scopes = scopes
    }

    /// The token to keep for revocation: the refresh token, which outlives the access token, else the access token.
    public var tokenToKeep: KeptProviderToken? {
        (refreshToken ?? accessToken).map {
            KeptProviderToken(clientID: clientID, token: $0, idToken: idToken, scopes: scopes)
        }
    }
}

/// Who logged in, as the provider says.
public struct ProviderIdentity: Sendable, Hashable {
    /// The provider's stable id for the user (`sub`, or the app-scoped user id).
    public var subject: String
    /// The user's name, if the provider gave one.
    public var name: String?
    /// The user's e-mail address, if the provider gave one (never used to match accounts).
    public var email: String?
    /// Whether the provider verified the e-mail address.
    public var emailVerified: Bool?
    /// Whether the e-mail address is a private relay (Apple's Hide My Email).
    public var isPrivateEmail: Bool?
    /// A picture URL, if the provider gave one.
    public var picture: String?
    /// The permissions the user granted, where the provider says.
    public var grantedScopes: [String]
    /// The permissions the user declined, where the provider says.
    public var declinedScopes: [String]
    /// The token the server keeps to revoke at account deletion, if any.
    public var kept: KeptProviderToken?
    /// Whether the provider read the profile and permissions whole at this login (Facebook's `/me` and
    /// `/me/permissions`): they then replace the stored ones. Otherwise a login only adds the scopes it granted, and
    /// the profile stays as the user's first login made it.
    public var replacesProfile: Bool

    /// An identity.
    public init(
        subject: String, name: String? = nil, email: String? = nil, emailVerified: Bool? = nil,
        isPrivateEmail: Bool? = nil, picture: String? = nil, grantedScopes: [String] = [],
        declinedScopes: [String] = [], kept: KeptProviderToken? = nil, replacesProfile: Bool = false
    ) {
        self.replacesProfile = replacesProfile
        self.subject = subject
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.picture = picture
        self.grantedScopes = grantedScopes
        self.declinedScopes = declinedScopes
        self.kept = kept
    }
}

/// What a ``CodeLoginProvider`` calls its provider with, for one request.
public struct ProviderCallContext: Sendable {
    /// The server's HTTP client for providers (the configured timeout).
    public let transport: any HTTPTransport
    /// The server's clock at the start of the request.
    public let now: Date
    /// The request's logger (with its request id). Log no tokens: the server's redactor is applied by
    /// ``call(_:_:)``, not here.
    public let logger: Logger
    /// What the backend's parts are lent (the redactor, the metrics).
    let services: BackendServices
    /// The client the login is for (the session it opens records it).
    let client: SessionClient?

    init(services: BackendServices, transport: any HTTPTransport, client: SessionClient? = nil, logger: Logger) {
        self.services = services
        self.client = client
        self.transport = transport
        self.now = services.clock.now()
        self.logger = logger
    }

    /// Runs one call to the provider under its own name: a `MendError` it throws is counted
    /// (`mend_upstream_failures_total{operation=…}`), logged with the server's redactor, and answered with the
    /// provider's classification (a transient failure 502/503/504, a refused token 401, …). Cancellation passes
    /// through. The server wraps ``CodeLoginProvider/exchange(_:context:)`` and
    /// ``CodeLoginProvider/identify(_:context:)`` this way as a whole; a provider that makes several calls names
    /// each.
    public func call<T: Sendable>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        try await services.upstream(operation, logger: logger, body)
    }
}
