public import Foundation
public import MendCore
public import MendGraphAPI
public import MendHTTP

/// Facebook's dialect (Facebook and Mend's emulator): `response_type=code granted_scopes`, comma-separated scopes,
/// `auth_type=rerequest` for declined permissions, Graph errors (the `graph` error space), the user and permissions
/// from `/me` and `/me/permissions`, device login on the Graph API (`device/login` with the app's client token), and
/// sessions kept by ``ProviderSessionAuthority`` (a Graph check, `DELETE /me/permissions`, no refresh).
public struct FacebookDialect: ProviderDialect {
    /// `facebook`.
    public var name: String { "facebook" }

    /// Facebook's dialect.
    public init() {}

    /// `response_type=code granted_scopes` (the redirect then lists granted and denied scopes), comma-separated
    /// scopes, and `auth_type=rerequest` to ask again for declined ones.
    public func authorizationItems(scopes: [String], isRerequest: Bool) -> [URLQueryItem] {
        var items = [
            URLQueryItem(name: "response_type", value: "code granted_scopes"),
            URLQueryItem(name: "scope", value: scopes.joined(separator: ",")),
        ]
        if isRerequest { items.append(URLQueryItem(name: "auth_type", value: "rerequest")) }
        return items
    }

    /// Graph error bodies (`{"error": {"code", "error_subcode", …}}`).
    public func errorDecoder() -> any ErrorDecoder { GraphErrorDecoder() }

    /// The user (`/me`) and the permissions (`/me/permissions`) that `token` sees.
    public func profile(
        token: String, provider: LoginProvider, transport: any HTTPTransport
    ) async throws
        -> ProviderProfile?
    {
        guard let graphURL = provider.graphURL else { throw MendError.login(.Login.unknown, "No Graph URL.") }
        let configuration = GraphClient.Configuration(
            graphURL: graphURL, version: provider.graphVersion ?? GraphAPI.defaultVersion)
        let graph = GraphClient(
            transport: transport, configuration: configuration,
            steps: .graph(for: configuration, tokens: nil, retryPolicy: .never))
        struct Profile: Decodable, Sendable {
            var id: String
            var name: String?
            var email: String?
        }
        struct Permission: Decodable, Sendable {
            var permission: String
            var status: String
        }
        struct Permissions: Decodable, Sendable { var data: [Permission] }
        let profile = try await graph.send(
            GraphRequest(path: "me", fields: ["id", "name", "email"], tokenOverride: token), as: Profile.self)
        let permissions = try await graph.send(
            GraphRequest(path: "me/permissions", tokenOverride: token), as: Permissions.self)
        func names(_ status: String) -> Set<String> {
            Set(permissions.data.filter { $0.status == status }.map(\.permission))
        }
        return ProviderProfile(
            user: Session.User(id: profile.id, providerUserID: profile.id, name: profile.name, email: profile.email),
            granted: names("granted"), declined: names("declined"), expired: names("expired"))
    }

    /// `device/login` and `device/login_status` on the Graph API, each with `access_token=app_id|client_token`.
    public func deviceLoginWire(
        for provider: LoginProvider, clientToken: String?, clientSecret: String?
    ) throws
        -> DeviceLoginWire
    {
        guard let clientToken, !clientToken.isEmpty else {
            throw MendError.login(
                .Login.unknown,
                "Device login at a Facebook-compatible provider needs the app's client token (app_id|client_token).")
        }
        guard let graphURL = provider.graphURL else {
            throw MendError.login(.Login.unknown, "The Facebook-compatible provider has no Graph URL.")
        }
        let versioned = graphURL.appendingPathComponent(provider.graphVersion ?? GraphAPI.defaultVersion)
        return DeviceLoginWire(
            codeEndpoint: versioned.appendingPathComponent("device/login"),
            pollEndpoint: versioned.appendingPathComponent("device/login_status"),
            credential: [URLQueryItem(name: "access_token", value: "\(provider.clientID)|\(clientToken)")],
            scopeSeparator: ",", pollFields: { [URLQueryItem(name: "code", value: $0)] })
    }

    /// ``ProviderSessionAuthority``.
    public func sessionAuthority(
        for provider: LoginProvider, transport: any HTTPTransport, idTokenValidator: IDTokenValidator?
    ) -> any SessionAuthority {
        ProviderSessionAuthority(provider: provider, transport: transport)
    }
}
