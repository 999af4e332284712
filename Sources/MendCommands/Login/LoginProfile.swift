import Foundation
import MendCore
import MendFacebook
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendResponseStore
import MendServer

/// What `mend login` remembers besides the session: which provider and backend the session belongs to, so that
/// `whoami`, `token` and `logout` can refresh, check and revoke it. Stored next to the session, without secrets. A
/// passkey login (`mend login --passkey`) is `provider` `passkey`, with no app id: its session is the backend's alone.
struct LoginProfile: Codable {
    var provider: String
    var appID: String
    var baseURL: String?
    var issuer: String?
    var backend: String?
    var version: String

    static func directory(_ override: String?) -> URL {
        override.map { URL(fileURLWithPath: $0) } ?? FileTokenStore.defaultDirectory()
    }

    static func load(from directory: URL) throws -> LoginProfile? {
        let url = directory.appendingPathComponent("profile.json")
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try JSONDecoder().decode(LoginProfile.self, from: data)
    }

    func save(to directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = directory.appendingPathComponent("profile.json")
        try JSONEncoder().encode(self).write(to: url, options: .atomic)
    }

    /// Whether the provider speaks OpenID Connect (Google, any issuer) rather than Facebook's dialect.
    var isOpenIDConnect: Bool { provider == "oidc" || provider == "google" }

    func loginProvider(transport: any HTTPTransport) async throws -> LoginProvider {
        if isOpenIDConnect, let issuer, let url = URL(string: issuer) {
            var discovered = try await LoginProvider.discover(issuer: url, clientID: appID, transport: transport)
            if provider == "google" { discovered.authorizationParameters = ["access_type": "offline"] }
            return discovered
        }
        if provider == "google" { return .google(clientID: appID) }
        if let baseURL, let url = URL(string: baseURL) {
            return .emulator(baseURL: url, appID: appID, version: version)
        }
        return .facebook(appID: appID, version: version)
    }

    /// The provider's id_token validator, as its dialect says (an OpenID Connect provider's issuer and keys; none for
    /// Facebook).
    func idTokenValidator(provider: LoginProvider, transport: any HTTPTransport) -> IDTokenValidator? {
        provider.dialect.idTokenValidator(for: provider, transport: transport)
    }

    /// The mend-server client when the session comes from a backend; it names the provider of a code login other
    /// than Facebook's (`POST /v1/login/code` with `provider`).
    func backendClient(transport: any HTTPTransport) -> BackendSessionClient? {
        guard let backend, let url = URL(string: backend) else { return nil }
        var client = BackendSessionClient(baseURL: url, transport: transport)
        client.clientIdentifier = MendVersion.clientIdentifier(name: "mend")
        if provider != "facebook", provider != "passkey" { client.provider = provider }
        return client
    }

    func authority(provider: LoginProvider, transport: any HTTPTransport) -> any SessionAuthority {
        if let backend = backendClient(transport: transport) { return backend }
        return provider.dialect.sessionAuthority(
            for: provider, transport: transport,
            idTokenValidator: idTokenValidator(provider: provider, transport: transport))
    }

    /// The credential of a command that calls an API (`mend graph`, `mend graphql`): `--token`, else
    /// `MEND_ACCESS_TOKEN`, else the session `mend login` stored — its token, renewed through the credentials manager
    /// as an app's would be (refreshed before it expires, and once more when the API rejects it) — with the profile
    /// it came with (its base URL); none when there is neither.
    static func commandCredential(
        token: String?, stateDirectory: String?
    ) async throws -> (credentials: (any CredentialProvider)?, profile: LoginProfile?) {
        if let token = token ?? ToolVariable.accessToken.value() {
            return (StaticCredential(token: token), nil)
        }
        guard let (manager, profile) = try await credentials(directory: directory(stateDirectory)),
            try await manager.currentSession() != nil
        else { return (nil, nil) }
        return (manager, profile)
    }

    /// The credentials manager for the stored session.
    static func credentials(directory: URL) async throws -> (CredentialsManager, LoginProfile)? {
        guard let profile = try load(from: directory) else { return nil }
        let transport = AsyncHTTPClientTransport()
        let provider = try await profile.loginProvider(transport: transport)
        let manager = CredentialsManager(
            store: FileTokenStore(url: directory.appendingPathComponent("session.json")),
            authority: profile.authority(provider: provider, transport: transport),
            responseStore: answers(directory: directory))
        return (manager, profile)
    }

    /// The user's last good answers (`--max-stale`), beside the session: the credentials manager purges them at
    /// every sign-out and change of user.
    static func answers(directory: URL) -> FileResponseStore {
        FileResponseStore(directory: directory.appendingPathComponent("answers"))
    }
}
