public import Foundation
public import MendCore
public import MendHTTP

/// The OpenID Connect dialect (and plain OAuth 2.0): Google and any issuer that
/// ``LoginProvider/discover(issuer:clientID:transport:)`` reads. `response_type=code`, space-separated scopes, OAuth
/// error bodies decoded into the `oauth` error space (``OAuthErrorDecoder``), the user from the id_token, device login by
/// RFC 8628 (the provider's ``LoginProvider/deviceAuthorizationEndpoint``), and sessions kept by
/// ``OIDCSessionAuthority``.
public struct OpenIDConnectDialect: ProviderDialect {
    /// `oidc`.
    public var name: String { "oidc" }

    /// The OpenID Connect dialect.
    public init() {}

    /// `response_type=code` and space-separated scopes; a re-request is an ordinary request.
    public func authorizationItems(scopes: [String], isRerequest: Bool) -> [URLQueryItem] {
        [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "scope", value: scopes.joined(separator: " ")),
        ]
    }

    /// OAuth error bodies (`{"error": "invalid_grant", …}`) into the `oauth` error space (``OAuthErrorDecoder``);
    /// other failures by HTTP status.
    public func errorDecoder() -> any ErrorDecoder { OAuthErrorDecoder() }

    /// None: the validated id_token says who the user is.
    public func profile(
        token: String, provider: LoginProvider, transport: any HTTPTransport
    ) async throws
        -> ProviderProfile?
    { nil }

    /// RFC 8628: the device authorization endpoint, then the token endpoint with the device-code grant, each with
    /// `client_id` (and `client_secret` when given).
    public func deviceLoginWire(
        for provider: LoginProvider, clientToken: String?, clientSecret: String?
    ) throws
        -> DeviceLoginWire
    {
        guard let endpoint = provider.deviceAuthorizationEndpoint else {
            throw MendError.login(.Login.unknown, "The provider has no device authorization endpoint (RFC 8628).")
        }
        var credential = [URLQueryItem(name: "client_id", value: provider.clientID)]
        if let clientSecret { credential.append(URLQueryItem(name: "client_secret", value: clientSecret)) }
        return DeviceLoginWire(
            codeEndpoint: endpoint, pollEndpoint: provider.tokenEndpoint, credential: credential, scopeSeparator: " ",
            pollFields: {
                [
                    URLQueryItem(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:device_code"),
                    URLQueryItem(name: "device_code", value: $0),
                ]
            })
    }

    /// The validator for the provider's ``LoginProvider/issuer`` and ``LoginProvider/jwksURI``, when it has both.
    public func idTokenValidator(for provider: LoginProvider, transport: any HTTPTransport) -> IDTokenValidator? {
        guard let issuer = provider.issuer, let jwks = provider.jwksURI else { return nil }
        return IDTokenValidator(issuer: issuer, clientID: provider.clientID, jwksURI: jwks, transport: transport)
    }
}
