public import Foundation

/// A provider whose id_tokens `POST /v1/login/id_token` accepts: the tokens a native SDK hands the app (Sign in with
/// Apple, Google Sign-In, the vendor SDK's Limited Login).
///
/// Each is checked by MendLogin's `IDTokenValidator` (the one the client uses): the signature by the issuer's key
/// set (cached, fetched again for an unknown key id, at most once a minute), `iss`, `aud` (one of ``clientIDs``),
/// `exp`, `iat`, and the nonce by ``nonceHashing``.
public struct IDTokenIssuer: Sendable {
    /// How the token carries the app's nonce.
    public enum NonceHashing: String, Sendable, Hashable {
        /// The SHA-256 of the raw nonce, lowercase hex (Apple, Limited Login): the app sends the server the raw nonce.
        case sha256Hex = "sha256"
        /// The nonce as the app passed it (Google).
        case plain
    }

    /// The provider's name on the wire (`provider` in the request) and in `mend_identities`: `apple`, `google`,
    /// `facebook` (Limited Login), or any lowercase name for another OIDC provider.
    public var name: String
    /// The issuer the tokens must name (`iss`).
    public var issuer: String
    /// The client ids one of which `aud` must contain: the app's bundle id or service id for Apple, its OAuth client
    /// ids for Google, the app id for Limited Login.
    public var clientIDs: [String]
    /// Where the issuer publishes its keys.
    public var jwksURI: URL
    /// How the nonce is carried.
    public var nonceHashing: NonceHashing
    /// How the server keeps a token from this provider: it exchanges the authorization code a native sign-in also
    /// returns (`authorization_code` in the request) and revokes what it got when the user deletes the account
    /// (``AppleTokenKeeper``, ``ClientSecretTokenKeeper``, or the app's own ``ProviderTokenKeeper``). Without one, a
    /// sign-in that sends a code is refused (400), and deletion cannot revoke at this provider (`not_revoked`).
    public var tokenKeeper: (any ProviderTokenKeeper)?

    /// Apple's team key, when ``tokenKeeper`` is an ``AppleTokenKeeper``.
    public var appleCredentials: AppleClientCredentials? {
        get { (tokenKeeper as? AppleTokenKeeper)?.credentials }
        set { tokenKeeper = newValue.map { AppleTokenKeeper(credentials: $0, issuer: issuer) } }
    }

    /// Creates an issuer.
    public init(name: String, issuer: String, clientIDs: [String], jwksURI: URL, nonceHashing: NonceHashing) {
        self.name = name
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.jwksURI = jwksURI
        self.nonceHashing = nonceHashing
        self.tokenKeeper = nil
    }

    /// Sign in with Apple (`https://appleid.apple.com`): `clientIDs` are the app's bundle ids and service ids.
    public static func apple(
        clientIDs: [String], issuer: String = "https://appleid.apple.com",
        jwksURI: URL = URL(string: "https://appleid.apple.com/auth/keys")!, credentials: AppleClientCredentials? = nil
    ) -> IDTokenIssuer {
        var apple = IDTokenIssuer(
            name: "apple", issuer: issuer, clientIDs: clientIDs, jwksURI: jwksURI, nonceHashing: .sha256Hex)
        apple.tokenKeeper = credentials.map { AppleTokenKeeper(credentials: $0, issuer: issuer) }
        return apple
    }

    /// Google Sign-In (`https://accounts.google.com`): `clientIDs` are the app's OAuth client ids. With
    /// `serverClient` (the server's web client and its secret), the `serverAuthCode` a native sign-in returns is
    /// exchanged and its token revoked at account deletion; the web client's id is then accepted as an audience too.
    public static func google(
        clientIDs: [String], issuer: String = "https://accounts.google.com",
        jwksURI: URL = URL(string: "https://www.googleapis.com/oauth2/v3/certs")!,
        serverClient: ClientSecretTokenKeeper? = nil
    ) -> IDTokenIssuer {
        var accepted = clientIDs
        if let serverClient, !accepted.contains(serverClient.clientID) { accepted.append(serverClient.clientID) }
        var google = IDTokenIssuer(
            name: "google", issuer: issuer, clientIDs: accepted, jwksURI: jwksURI, nonceHashing: .plain)
        google.tokenKeeper = serverClient
        return google
    }

    /// The vendor SDK's Limited Login (`https://www.facebook.com`), for the app `appID`. Its subject is the Facebook
    /// user id, so a Limited Login and a code login of the same person are one user.
    public static func limitedLogin(
        appID: String, issuer: String = "https://www.facebook.com",
        jwksURI: URL = URL(string: "https://www.facebook.com/.well-known/oauth/openid/jwks/")!
    ) -> IDTokenIssuer {
        IDTokenIssuer(name: "facebook", issuer: issuer, clientIDs: [appID], jwksURI: jwksURI, nonceHashing: .sha256Hex)
    }
}
