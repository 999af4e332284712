public import Foundation
public import MendCore
public import MendGraphAPI
public import MendLogin

extension LoginProvider {
    /// Facebook: the versioned dialog on www.facebook.com, the token endpoint and the Graph API on
    /// graph.facebook.com, spoken in ``FacebookDialect``.
    public static func facebook(appID: String, version: String = GraphAPI.defaultVersion) -> LoginProvider {
        facebookCompatible(
            web: URL(string: "https://www.facebook.com")!, graph: GraphAPI.defaultURL,
            appID: appID, version: version, issuer: "https://www.facebook.com",
            jwks: URL(string: "https://www.facebook.com/.well-known/oauth/openid/jwks/"))
    }

    /// Mend's provider emulator at `baseURL` (dialog, tokens and Graph on one host), with the emulator's default
    /// issuer, `https://www.facebook.com`. The emulator puts its issuer in every authorization response (RFC 9207),
    /// so this provider requires it (`LoginProvider.requiresAuthorizationResponseIssuer`); for an emulator
    /// configured with another issuer, set `LoginProvider.issuer` to it.
    public static func emulator(baseURL: URL, appID: String, version: String = GraphAPI.defaultVersion) -> LoginProvider
    {
        var provider = facebookCompatible(
            web: baseURL, graph: baseURL, appID: appID, version: version, issuer: "https://www.facebook.com",
            jwks: baseURL.appendingPathComponent(".well-known/oauth/openid/jwks/"))
        provider.requiresAuthorizationResponseIssuer = true
        return provider
    }

    private static func facebookCompatible(
        web: URL, graph: URL, appID: String, version: String, issuer: String, jwks: URL?
    ) -> LoginProvider {
        LoginProvider(
            authorizationEndpoint: web.appendingPathComponent("\(version)/dialog/oauth"),
            tokenEndpoint: graph.appendingPathComponent("\(version)/oauth/access_token"), issuer: issuer,
            jwksURI: jwks, clientID: appID, dialect: FacebookDialect(graphURL: graph, graphVersion: version))
    }
}

extension SystemBrowserPresenter {
    /// The Facebook redirect URI for an app: `fb{app-id}://authorize` (register the `fb{app-id}` URL scheme in
    /// Info.plist).
    public static func facebookRedirectURI(appID: String) -> URL {
        URL(string: "fb\(appID)://authorize")!
    }
}

#if canImport(AuthenticationServices)
    public import AuthenticationServices

    extension SystemBrowserPresenter {
        /// The Facebook presenter: ASWebAuthenticationSession ending at `fb{app-id}://authorize` (register the
        /// `fb{app-id}` URL scheme in Info.plist).
        public static func facebook(
            appID: String, prefersEphemeralSession: Bool = false,
            anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor?
        ) throws(MendError) -> SystemBrowserPresenter {
            try SystemBrowserPresenter(
                redirectURI: facebookRedirectURI(appID: appID), prefersEphemeralSession: prefersEphemeralSession,
                anchor: anchor)
        }
    }
#endif
