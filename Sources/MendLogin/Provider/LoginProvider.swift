public import Foundation

/// Where a provider's login lives: its authorization and token endpoints, and what it speaks.
///
/// Use ``google(clientID:)`` for Google,
/// ``init(authorizationEndpoint:tokenEndpoint:issuer:jwksURI:revocationEndpoint:clientID:dialect:)`` for any OAuth 2.0
/// provider, or ``discover(issuer:clientID:transport:)`` for an OpenID Connect provider. Facebook and Mend's
/// emulator are presets of MendFacebook (`LoginProvider.facebook(appID:)`, `LoginProvider.emulator(baseURL:appID:)`).
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
    /// (`device/login`, its dialect's) instead.
    public var deviceAuthorizationEndpoint: URL?
    /// The JWS algorithms the provider accepts in DPoP proofs (RFC 9449 §5.1, the discovery document's
    /// `dpop_signing_alg_values_supported`); empty when it does not speak DPoP. When it lists `ES256`,
    /// ``OIDCSessionAuthority`` binds the sessions it opens to a key of the device (see ``OIDCSessionAuthority/binding``).
    public var dpopSigningAlgorithms: [String] = []
    /// Whether the provider takes the proofs Mend signs (ES256).
    package var speaksDPoP: Bool { dpopSigningAlgorithms.contains("ES256") }
    /// The app's client id (the Facebook app id).
    public var clientID: String
    /// Parameters every authorization request to this provider carries beside the standard ones (Google's
    /// `access_type=offline`, which a refresh token needs).
    public var authorizationParameters: [String: String] = [:]
    /// How the provider does what providers do differently: MendFacebook's `FacebookDialect` (the Facebook and
    /// emulator presets) or ``OpenIDConnectDialect`` (Google, discovery, and the generic initializer's default), or an app's own
    /// ``ProviderDialect``.
    public var dialect: any ProviderDialect {
        get { dialectBox.dialect }
        set { dialectBox = DialectBox(dialect: newValue) }
    }
    private var dialectBox: DialectBox
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
}

/// A dialect inside a `Hashable` provider: dialects are equal when their names are.
private struct DialectBox: Sendable, Hashable {
    let dialect: any ProviderDialect

    static func == (lhs: DialectBox, rhs: DialectBox) -> Bool { lhs.dialect.name == rhs.dialect.name }
    func hash(into hasher: inout Hasher) { hasher.combine(dialect.name) }
}
