public import Foundation

/// An OpenID Connect issuer the emulator plays beside the Facebook-compatible provider, under its own path
/// (`/apple`, `/google`): its discovery document, keys, authorization, token and revocation endpoints, and the shapes
/// of its claims.
public enum EmulatedIssuerKind: String, Sendable, Codable, Hashable, CaseIterable {
    /// Sign in with Apple: `form_post` when names or e-mail are asked for, no loopback or plain-http redirect, the
    /// client secret an ES256 JWT, `email_verified` and `is_private_email` as strings, private-relay e-mail.
    case apple
    /// Google: PKCE for public clients, loopback redirects on any port, `email_verified` a boolean, `hd` for a
    /// Workspace domain, refresh tokens with `access_type=offline`, a userinfo endpoint.
    case google

    /// The issuer (`iss`) as a client at `baseURL` reaches the emulator: `http://127.0.0.1:<port>/apple`.
    public func issuer(baseURL: String) -> String { "\(baseURL)/\(rawValue)" }
}

/// A client (an app) registered with an emulated issuer.
public struct EmulatedIssuerClient: Sendable, Codable, Hashable {
    /// The issuer.
    public var kind: EmulatedIssuerKind
    /// The client id: Apple's Services ID (web) or bundle id (native); Google's `….apps.googleusercontent.com`.
    public var id: String
    /// The display name on the consent page.
    public var name: String
    /// Google: the client secret (web clients); `nil` for a public client, which must use PKCE. Apple: unused (the
    /// client secret is a JWT signed with the team's key, see ``appleTeamID`` and ``appleKeyID``).
    public var secret: String?
    /// The redirect URIs, compared exactly (Google: loopback `http` URIs may use any port). Apple refuses `http`
    /// and IP-address redirects, registered or not. A native client has none.
    public var redirectURIs: [String]
    /// Apple: the team that signs the client secret (its `iss`).
    public var appleTeamID: String?
    /// Apple: the key id (`kid`) of the client secret's signing key.
    public var appleKeyID: String?

    /// Creates a client.
    public init(
        kind: EmulatedIssuerKind, id: String, name: String, secret: String? = nil, redirectURIs: [String] = [],
        appleTeamID: String? = nil, appleKeyID: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.name = name
        self.secret = secret
        self.redirectURIs = redirectURIs
        self.appleTeamID = appleTeamID
        self.appleKeyID = appleKeyID
    }

    /// The clients every emulator registers unless its configuration names others:
    /// - Apple web (`com.example.mend.web`, redirect `https://app.example/callback`) and Apple native
    ///   (`com.example.mend`, the app's bundle id), team `MENDTEAM01`, key `MENDKEY001`;
    /// - Google web (`mend-web.apps.googleusercontent.com`, secret `google-web-secret`, redirects on loopback and
    ///   `https://app.example/callback`) and Google iOS (`mend-ios.apps.googleusercontent.com`, public, PKCE,
    ///   loopback and its reversed-client-id scheme).
    public static let defaults: [EmulatedIssuerClient] = [
        EmulatedIssuerClient(
            kind: .apple, id: "com.example.mend.web", name: "Mend Example (web)",
            redirectURIs: ["https://app.example/callback"], appleTeamID: "MENDTEAM01", appleKeyID: "MENDKEY001"),
        EmulatedIssuerClient(
            kind: .apple, id: "com.example.mend", name: "Mend Example", appleTeamID: "MENDTEAM01",
            appleKeyID: "MENDKEY001"),
        EmulatedIssuerClient(
            kind: .google, id: "mend-web.apps.googleusercontent.com", name: "Mend Example (web)",
            secret: "google-web-secret",
            redirectURIs: ["http://127.0.0.1/callback", "http://localhost/callback", "https://app.example/callback"]),
        EmulatedIssuerClient(
            kind: .google, id: "mend-ios.apps.googleusercontent.com", name: "Mend Example",
            redirectURIs: [
                "http://127.0.0.1/callback", "com.googleusercontent.apps.mend-ios:/oauth2redirect",
            ]),
    ]
}

extension EmulatorConfiguration {
    /// The client `id` registered with the `kind` issuer.
    func issuerClient(_ kind: EmulatedIssuerKind, _ id: String?) -> EmulatedIssuerClient? {
        guard let id else { return nil }
        return issuerClients.first { $0.kind == kind && $0.id == id }
    }
}
