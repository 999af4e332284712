public import Foundation
import MendCore
public import MendHTTP
import MendLogin

/// How mend-server keeps a token from one provider so that account deletion can revoke the app's access there: it
/// exchanges the authorization code a native sign-in returns beside its id_token (Apple's `authorizationCode`, Google
/// Sign-In's `serverAuthCode`) and later revokes what it got.
///
/// A provider's keeper is a value on its ``IDTokenIssuer`` (``IDTokenIssuer/tokenKeeper``): ``AppleTokenKeeper``
/// (a client secret signed with the team's key) and ``ClientSecretTokenKeeper`` (a client secret: Google, or any
/// OpenID Connect provider). Another provider is one more conforming type; `POST /v1/login/id_token` and
/// `DELETE /v1/me` use it without a change to theirs or to another provider's code.
public protocol ProviderTokenKeeper: Sendable {
    /// Exchanges `code` for a token to keep.
    ///
    /// - Parameters:
    ///   - code: The authorization code the native sign-in returned.
    ///   - audience: The client ids the sign-in's id_token was issued to (`aud`).
    ///   - transport: How the provider is called.
    ///   - now: The server's clock.
    /// - Returns: What to keep, or `nil` when the provider gave nothing that can be revoked later.
    /// - Throws: The provider's classified error: a refused code, or a transient failure.
    func exchange(
        code: String, audience: [String], transport: any HTTPTransport, now: Date
    ) async throws
        -> KeptProviderToken?

    /// Revokes a kept token. A token the provider no longer knows counts as revoked.
    func revoke(_ token: KeptProviderToken, transport: any HTTPTransport, now: Date) async throws

    /// Exchanges the code of an authorization-code flow the app ran with this provider (`POST /v1/login/code` with
    /// `provider`), with the redirect URI and PKCE verifier of its request. The answer must carry an id_token: it
    /// says who logged in.
    ///
    /// - Returns: The tokens, or `nil` when this provider does not take code logins here (the default).
    func exchange(
        loginCode code: String, redirectURI: String, codeVerifier: String?, transport: any HTTPTransport, now: Date
    ) async throws -> KeptProviderToken?
}

extension ProviderTokenKeeper {
    /// No code logins: only native sign-ins' codes.
    public func exchange(
        loginCode code: String, redirectURI: String, codeVerifier: String?, transport: any HTTPTransport, now: Date
    ) async throws -> KeptProviderToken? { nil }
}

/// A token mend-server keeps from a provider, sealed in the database with the identity it came with.
public struct KeptProviderToken: Sendable, Hashable {
    /// The client id the token was issued to.
    public var clientID: String
    /// The token: a refresh token where the provider gives one (it outlives the access token), else the access token.
    public var token: String
    /// The id_token of the exchange, if the provider sent one: the server checks that it names the same user as the
    /// sign-in's, so that a code from another sign-in is refused.
    public var idToken: String?
    /// When the token expires, if the provider said.
    public var expiresAt: Date?
    /// The scopes the provider's answer says it granted (its `scope`), if it said.
    public var scopes: [String]
    /// Whether the token is the user's access token at the provider (Facebook's long-lived one), which the server
    /// also calls the provider with (the validity check, the profile) and hands the app when
    /// ``ServerConfiguration/Providers/returnsProviderToken`` — not a refresh token, which never leaves the server.
    public var isAccessToken: Bool

    /// A kept token.
    public init(
        clientID: String, token: String, idToken: String? = nil, expiresAt: Date? = nil, scopes: [String] = [],
        isAccessToken: Bool = false
    ) {
        self.isAccessToken = isAccessToken
        self.clientID = clientID
        self.token = token
        self.idToken = idToken
        self.expiresAt = expiresAt
        self.scopes = scopes
    }
}

/// Sign in with Apple: the code is exchanged, and the refresh token revoked, with a client secret that is an ES256
/// JWT signed with the team's key (``AppleClientCredentials``), for the client id of the sign-in's id_token.
public struct AppleTokenKeeper: ProviderTokenKeeper {
    /// The team's key and Apple's endpoints.
    public var credentials: AppleClientCredentials
    /// The issuer: the client secret's audience.
    public var issuer: String

    /// A keeper for Apple at `issuer`.
    public init(credentials: AppleClientCredentials, issuer: String = "https://appleid.apple.com") {
        self.credentials = credentials
        self.issuer = issuer
    }

    /// Exchanges the code for the sign-in's own client id (its bundle id or service id), without a redirect URI.
    public func exchange(
        code: String, audience: [String], transport: any HTTPTransport, now: Date
    ) async throws
        -> KeptProviderToken?
    {
        guard let clientID = audience.first else { return nil }
        let exchanged = try await client(transport, now).exchange(code: code, clientID: clientID)
        return exchanged.refreshToken.map {
            KeptProviderToken(clientID: clientID, token: $0, idToken: exchanged.idToken)
        }
    }

    /// Revokes the refresh token at Apple's `/auth/revoke`.
    public func revoke(_ token: KeptProviderToken, transport: any HTTPTransport, now: Date) async throws {
        try await client(transport, now).revoke(refreshToken: token.token, clientID: token.clientID)
    }

    private func client(_ transport: any HTTPTransport, _ now: Date) -> AppleTokenClient {
        AppleTokenClient(credentials: credentials, issuer: issuer, transport: transport, now: now)
    }
}

/// A provider whose server client has a client secret (`client_secret_post`): Google, whose native Sign-In returns a
/// `serverAuthCode` for the server's web client id, or any OpenID Connect provider. The code is exchanged at the
/// token endpoint (without a redirect URI, as for a native sign-in's code), and the refresh token, else the access
/// token, is revoked by RFC 7009 at the revocation endpoint.
public struct ClientSecretTokenKeeper: ProviderTokenKeeper {
    /// The server's client id (the code is issued to it).
    public var clientID: String
    /// Its secret.
    public var clientSecret: Secret
    /// The token endpoint.
    public var tokenEndpoint: URL
    /// The RFC 7009 revocation endpoint.
    public var revocationEndpoint: URL

    /// A keeper for the client `clientID` at these endpoints.
    public init(clientID: String, clientSecret: Secret, tokenEndpoint: URL, revocationEndpoint: URL) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
    }

    /// Google's endpoints (`oauth2.googleapis.com`) for the server's web client.
    public static func google(
        clientID: String, clientSecret: Secret,
        tokenEndpoint: URL = URL(string: "https://oauth2.googleapis.com/token")!,
        revocationEndpoint: URL = URL(string: "https://oauth2.googleapis.com/revoke")!
    ) -> ClientSecretTokenKeeper {
        ClientSecretTokenKeeper(
            clientID: clientID, clientSecret: clientSecret, tokenEndpoint: tokenEndpoint,
            revocationEndpoint: revocationEndpoint)
    }

    /// Exchanges a native sign-in's code with the client's secret (no redirect URI).
    public func exchange(
        code: String, audience: [String], transport: any HTTPTransport, now: Date
    ) async throws
        -> KeptProviderToken?
    {
        try await exchange(code, extra: [], transport: transport)
    }

    /// Exchanges the code of the app's code flow with the client's secret, its redirect URI and its PKCE verifier
    /// (the app's authorization request used this client's id).
    public func exchange(
        loginCode code: String, redirectURI: String, codeVerifier: String?, transport: any HTTPTransport, now: Date
    ) async throws -> KeptProviderToken? {
        try await exchange(
            code, extra: [("redirect_uri", redirectURI)] + (codeVerifier.map { [("code_verifier", $0)] } ?? []),
            transport: transport)
    }

    private func exchange(
        _ code: String, extra: [(String, String)], transport: any HTTPTransport
    ) async throws
        -> KeptProviderToken?
    {
        let json = try await Self.client(transport).send(
            OIDCSessionAuthority.form(
                tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("client_id", clientID),
                    ("client_secret", clientSecret.value),
                ] + extra)
        ).json()
        guard let token = json["refresh_token"]?.stringValue ?? json["access_token"]?.stringValue else { return nil }
        return KeptProviderToken(
            clientID: clientID, token: token, idToken: json["id_token"]?.stringValue,
            scopes: (json["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
    }

    /// Revokes by RFC 7009; `invalid_token` (already dead) counts as revoked.
    public func revoke(_ token: KeptProviderToken, transport: any HTTPTransport, now: Date) async throws {
        do {
            var request = OIDCSessionAuthority.form(
                revocationEndpoint,
                [("token", token.token), ("client_id", token.clientID), ("client_secret", clientSecret.value)])
            request.options.expectsJSON = false
            _ = try await Self.client(transport).send(request)
        } catch let error as MendError where OAuthErrorBody.code(of: error) == "invalid_token" {
            return
        }
    }

    private static func client(_ transport: any HTTPTransport) -> APIClient {
        APIClient(
            transport: transport,
            configuration: APIClient.Configuration(
                errorDecoder: OAuthErrorDecoder(), catalog: .server, observer: ServerTracing.providerObserver,
                isThirdParty: true),
            steps: .standard(retryPolicy: .never))
    }
}
