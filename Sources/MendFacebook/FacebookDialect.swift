public import Foundation
public import MendCore
public import MendGraphAPI
public import MendHTTP
public import MendLogin

/// Facebook's dialect (Facebook and Mend's emulator): `response_type=code granted_scopes`, comma-separated scopes,
/// `auth_type=rerequest` for declined permissions, Graph errors (the `graph` error space), the user and permissions
/// from `/me` and `/me/permissions`, device login on the Graph API (`device/login` with the app's client token, its
/// answers as Graph subcodes), and sessions kept by ``FacebookSessionAuthority`` (a Graph check,
/// `DELETE /me/permissions`, no refresh).
public struct FacebookDialect: ProviderDialect {
    /// `facebook`.
    public var name: String { "facebook" }
    /// The Graph API the provider's user, permissions, device login and sessions live on.
    public var graphURL: URL
    /// The Graph API version (`v25.0`).
    public var graphVersion: String

    /// Facebook's dialect, for the Graph API at `graphURL` (the provider's by default; the emulator's in tests).
    public init(graphURL: URL = GraphAPI.defaultURL, graphVersion: String = GraphAPI.defaultVersion) {
        self.graphURL = graphURL
        self.graphVersion = graphVersion
    }

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
        let graph = graphClient(transport: transport)
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

    /// `device/login` and `device/login_status` on the Graph API, each with `access_token=app_id|client_token`; the
    /// poll's answers are Graph subcodes (1349174 pending, 1349172 slow down, 1349173 declined, 1349152 expired).
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
        let versioned = graphURL.appendingPathComponent(graphVersion)
        var wire = DeviceLoginWire(
            codeEndpoint: versioned.appendingPathComponent("device/login"),
            pollEndpoint: versioned.appendingPathComponent("device/login_status"),
            credential: [URLQueryItem(name: "access_token", value: "\(provider.clientID)|\(clientToken)")],
            scopeSeparator: ",", pollFields: { [URLQueryItem(name: "code", value: $0)] })
        wire.pollAnswer = Self.devicePollAnswer
        return wire
    }

    /// The device-login answer a Graph error stands for (`login/330`–`333`), if it is one.
    static func devicePollAnswer(_ error: MendError) -> MendError.Code? {
        guard error.domain == .graph, let subcode = error.subcode?.rawValue else { return nil }
        switch subcode {
        case 1_349_174: return .Login.deviceAuthorizationPending
        case 1_349_172: return .Login.deviceSlowDown
        case 1_349_173: return .Login.deviceLoginDeclined
        case 1_349_152: return .Login.deviceCodeExpired
        default: return nil
        }
    }

    /// ``FacebookSessionAuthority``.
    public func sessionAuthority(
        for provider: LoginProvider, transport: any HTTPTransport, idTokenValidator: IDTokenValidator?
    ) -> any SessionAuthority {
        FacebookSessionAuthority(provider: provider, dialect: self, transport: transport)
    }

    /// A Graph client at this dialect's Graph API that sends each request's own token, never retried.
    func graphClient(transport: any HTTPTransport) -> GraphClient {
        let configuration = GraphClient.Configuration(graphURL: graphURL, version: graphVersion)
        return GraphClient(
            transport: transport, configuration: configuration,
            steps: .graph(for: configuration, credentials: nil, retryPolicy: .never))
    }
}
