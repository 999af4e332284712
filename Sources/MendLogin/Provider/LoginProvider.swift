public import Foundation
public import MendGraphAPI

/// Where a provider's login lives: its authorization and token endpoints, and what it speaks.
///
/// Use ``facebook(appID:version:)`` for the Facebook preset, ``emulator(baseURL:appID:version:)`` for Mend's
/// emulator, ``init(authorizationEndpoint:tokenEndpoint:issuer:jwksURI:revocationEndpoint:clientID:dialect:)`` for any
/// OAuth 2.0 provider, or ``discover(issuer:clientID:transport:)`` for an OpenID Connect provider.
public struct LoginProvider: Sendable, Hashable {
    /// The dialog where the user logs in and consents.
    public var authorizationEndpoint: URL
    /// Where codes are exchanged for tokens (public clients with PKCE).
    public var tokenEndpoint: URL
    /// The issuer (`iss`) of id_tokens and of RFC 9207 authorization responses, if the provider has one.
    public var issuer: String?
    /// Whether the provider puts its ``issuer`` in every authorization response (RFC 9207, the discovery
    /// document's `authorization_response_iss_parameter_supported`): a redirect without `iss`, or with another one,
    /// is then refused as a possible mix-up attack (`login/308`). Whatever this says, a redirect that carries an
    /// `iss` other than ``issuer`` is refused.
    public var requiresAuthorizationResponseIssuer: Bool
    /// The provider's JSON Web Key Set, for id_token signatures.
    public var jwksURI: URL?
    /// RFC 7009 revocation, if the provider has it (``OIDCSessionAuthority`` revokes there at logout).
    public var revocationEndpoint: URL?
    /// The OpenID Connect userinfo endpoint, if the provider has one (``OIDCSessionAuthority`` checks a session's
    /// validity there).
    public var userinfoEndpoint: URL?
    /// RFC 8628's device authorization endpoint (the discovery document's `device_authorization_endpoint`), for
    /// ``DeviceLogin`` with an OAuth 2.0 provider; a Facebook-compatible provider's device login is on its Graph API
    /// (`device/login`) instead.
    public var deviceAuthorizationEndpoint: URL?
    /// The app's client id (the Facebook app id).
    public var clientID: String
    /// Parameters every authorization request to this provider carries beside the standard ones (Google's
    /// `access_type=offline`, which a refresh token needs).
    public var authorizationParameters: [String: String] = [:]
    /// How the provider does what providers do differently: ``FacebookDialect`` (the Facebook and emulator presets)
    /// or ``OpenIDConnectDialect`` (Google, discovery, and the generic initializer's default), or an app's own
    /// ``ProviderDialect``.
    public var dialect: any ProviderDialect {
        get { dialectBox.dialect }
        set { dialectBox = DialectBox(dialect: newValue) }
    }
    private var dialectBox: DialectBox
    /// Whether the provider speaks Facebook's dialect (``FacebookDialect``).
    @available(*, deprecated, message: "Read `dialect`: a provider's differences are in its ProviderDialect.")
    public var isFacebookCompatible: Bool { dialect is FacebookDialect }
    /// The Graph API base URL for a Facebook-compatible provider (validity checks, revocation).
    public var graphURL: URL?
    /// The Graph API version for a Facebook-compatible provider.
    public var graphVersion: String?

    /// A provider at these endpoints: OAuth 2.0 / OpenID Connect (``OpenIDConnectDialect``) unless `dialect` says
    /// otherwise.
    public init(
        authorizationEndpoint: URL, tokenEndpoint: URL, issuer: String? = nil, jwksURI: URL? = nil,
        revocationEndpoint: URL? = nil, clientID: String, dialect: any ProviderDialect = OpenIDConnectDialect()
    ) {
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.issuer = issuer
        self.jwksURI = jwksURI
        self.revocationEndpoint = revocationEndpoint
        self.userinfoEndpoint = nil
        self.deviceAuthorizationEndpoint = nil
        self.clientID = clientID
        self.requiresAuthorizationResponseIssuer = false
        self.dialectBox = DialectBox(dialect: dialect)
        self.graphURL = nil
        self.graphVersion = nil
    }

    /// Facebook: the versioned dialog on www.facebook.com and the token endpoint on graph.facebook.com.
    public static func facebook(appID: String, version: String = GraphAPI.defaultVersion) -> LoginProvider {
        facebookCompatible(
            web: URL(string: "https://www.facebook.com")!, graph: GraphAPI.defaultURL,
            appID: appID, version: version, issuer: "https://www.facebook.com",
            jwks: URL(string: "https://www.facebook.com/.well-known/oauth/openid/jwks/"))
    }

    /// Mend's provider emulator at `baseURL` (dialog, tokens and Graph on one host), with the emulator's default
    /// issuer, `https://www.facebook.com`. The emulator puts its issuer in every authorization response (RFC 9207),
    /// so this provider requires it (``requiresAuthorizationResponseIssuer``); for an emulator configured with
    /// another issuer, set ``issuer`` to it.
    public static func emulator(baseURL: URL, appID: String, version: String = GraphAPI.defaultVersion) -> LoginProvider
    {
        var provider = facebookCompatible(
            web: baseURL, graph: baseURL, appID: appID, version: version, issuer: "https://www.facebook.com",
            jwks: baseURL.appendingPathComponent(".well-known/oauth/openid/jwks/"))
        provider.requiresAuthorizationResponseIssuer = true
        return provider
    }

    /// Google (`https://accounts.google.com`): its published endpoints, and `access_type=offline` so that a login
    /// gives a refresh token. Sessions from it are kept by ``OIDCSessionAuthority``; validate its id_tokens with an
    /// ``IDTokenValidator`` for ``issuer`` and ``jwksURI``. ``discover(issuer:clientID:transport:)`` reads the same
    /// from Google's discovery document.
    public static func google(clientID: String) -> LoginProvider {
        var provider = LoginProvider(
            authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!,
            tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token")!, issuer: "https://accounts.google.com",
            jwksURI: URL(string: "https://www.googleapis.com/oauth2/v3/certs"),
            revocationEndpoint: URL(string: "https://oauth2.googleapis.com/revoke"), clientID: clientID)
        provider.userinfoEndpoint = URL(string: "https://openidconnect.googleapis.com/v1/userinfo")
        provider.deviceAuthorizationEndpoint = URL(string: "https://oauth2.googleapis.com/device/code")
        provider.authorizationParameters = ["access_type": "offline"]
        return provider
    }

    static func facebookCompatible(
        web: URL, graph: URL, appID: String, version: String, issuer: String, jwks: URL?
    ) -> LoginProvider {
        var provider = LoginProvider(
            authorizationEndpoint: web.appendingPathComponent("\(version)/dialog/oauth"),
            tokenEndpoint: graph.appendingPathComponent("\(version)/oauth/access_token"), issuer: issuer,
            jwksURI: jwks, clientID: appID, dialect: FacebookDialect())
        provider.graphURL = graph
        provider.graphVersion = version
        return provider
    }
}

/// A dialect inside a `Hashable` provider: dialects are equal when their names are.
private struct DialectBox: Sendable, Hashable {
    let dialect: any ProviderDialect

    static func == (lhs: DialectBox, rhs: DialectBox) -> Bool { lhs.dialect.name == rhs.dialect.name }
    func hash(into hasher: inout Hasher) { hasher.combine(dialect.name) }
}
