import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer
import MendTesting
import Testing

/// A provider mend-server does not know, written as an app would with public API only: no id_token, the user is
/// named by a userinfo endpoint (as GitHub's or many OAuth-only providers do). The code is exchanged with the
/// client's secret, the access token asks userinfo who logged in, and the refresh token is revoked by RFC 7009 at
/// account deletion. The emulated Google issuer plays the provider.
struct UserinfoCodeLogin: CodeLoginProvider {
    let name = "userinfo-example"
    var clientID: String
    var clientSecret: String
    var tokenEndpoint: URL
    var userinfoEndpoint: URL
    var revocationEndpoint: URL

    func exchange(_ code: CodeLoginRequest, context: ProviderCallContext) async throws -> ProviderGrant? {
        var fields = [
            ("grant_type", "authorization_code"), ("code", code.code), ("client_id", clientID),
            ("client_secret", clientSecret), ("redirect_uri", code.redirectURI),
        ]
        if let verifier = code.codeVerifier { fields.append(("code_verifier", verifier)) }
        let json = try await client(context).send(form(tokenEndpoint, fields)).json()
        return ProviderGrant(
            clientID: clientID, accessToken: json["access_token"]?.stringValue,
            refreshToken: json["refresh_token"]?.stringValue, expiresIn: json["expires_in"]?.intValue)
    }

    func identify(_ grant: ProviderGrant, context: ProviderCallContext) async throws -> ProviderIdentity {
        let token = try #require(grant.accessToken)
        let json = try await context.call("userinfo") {
            try await client(context).send(
                APIRequest(
                    method: .get, url: userinfoEndpoint,
                    options: RequestOptions(credentialOverride: Credential(token: token)))
            ).json()
        }
        guard let subject = json["sub"]?.stringValue else {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "userinfo answered without sub.", catalog: .login)
        }
        return ProviderIdentity(
            subject: subject, name: json["name"]?.stringValue, email: json["email"]?.stringValue,
            emailVerified: json["email_verified"]?.boolValue, kept: grant.tokenToKeep)
    }

    func revoke(_ token: KeptProviderToken, context: ProviderCallContext) async throws {
        var request = form(
            revocationEndpoint, [("token", token.token), ("client_id", clientID), ("client_secret", clientSecret)])
        request.options.expectsJSON = false
        _ = try await client(context).send(request)
    }

    private func client(_ context: ProviderCallContext) -> APIClient {
        APIClient(
            transport: context.transport,
            configuration: APIClient.Configuration(errorDecoder: OAuthErrorDecoder()),
            steps: .standard(retryPolicy: .never))
    }

    private func form(_ url: URL, _ fields: [(String, String)]) -> APIRequest {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map {
            "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        return APIRequest(
            method: .post, url: url, headers: headers, body: Data(body.utf8),
            options: RequestOptions(allowsRetry: false, attachesCredential: false))
    }
}

@Suite("A code login provider an app adds to mend-server (CodeLoginProvider, public API only)")
struct CodeLoginProviderTests {
    static func provider(_ emulator: RunningEmulator) -> UserinfoCodeLogin {
        UserinfoCodeLogin(
            clientID: "mend-web.apps.googleusercontent.com", clientSecret: "google-web-secret",
            tokenEndpoint: emulator.url("/google/token"), userinfoEndpoint: emulator.url("/google/v1/userinfo"),
            revocationEndpoint: emulator.url("/google/revoke"))
    }

    /// The emulator, mend-server with ``UserinfoCodeLogin`` added (every other setting its default for the emulator),
    /// a backend client that logs in with it, and the emulated Google issuer for the server's web client.
    static func withProviderOnServer(
        _ body: (RunningEmulator, BackendSessionClient, LoginProvider, AsyncHTTPClientTransport) async throws -> Void
    ) async throws {
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.providers.codeLogin = [Self.provider(emulator)]
            try await withMendServer(configuration: configuration) { server in
                let transport = AsyncHTTPClientTransport()
                var backend = BackendSessionClient(baseURL: server.baseURL, transport: transport)
                backend.provider = "userinfo-example"
                let google = try await LoginProvider.discover(
                    issuer: emulator.url("/google"), clientID: "mend-web.apps.googleusercontent.com",
                    transport: transport)
                try await body(emulator, backend, google, transport)
            }
        }
    }

    @Test("Login by userinfo, the same user twice, a replayed code refused, deletion revokes at the provider")
    func userinfoProvider() async throws {
        try await Self.withProviderOnServer { emulator, backend, google, transport in
            let store = InMemoryTokenStore()
            let credentials = CredentialsManager(store: store, authority: backend)
            let recorder = RecordingExchanger(backend: backend)
            let login = LoginManager(
                provider: google, exchanger: recorder, credentials: credentials,
                defaultScopes: ["openid", "email", "profile"])
            let session = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
            #expect(session.issuer == .backend)
            #expect(session.user?.email == "alice@example.com")
            let (code, transaction) = try #require(recorder.last.current)

            // The same provider user is the same mend-server user.
            let again = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
            #expect(again.user?.id == session.user?.id)

            // The first code again: refused as every provider's replay is (graph/100/36009).
            let replay = try await #require(throws: MendError.self) {
                try await backend.exchange(code: code, transaction: transaction, granted: nil, denied: nil)
            }
            #expect(replay.code == .Graph.invalidParameter && replay.subcode?.rawValue == 36009, "\(replay)")

            // The server kept the provider's refresh token on the identity: deletion revokes it there.
            let access = try #require(try await credentials.currentCredential())
            let deleted = try await APIClient(transport: transport).send(
                APIRequest(
                    method: .delete, url: backend.baseURL.appendingPathComponent("v1/me"),
                    options: RequestOptions(credentialOverride: access))
            ).json()
            #expect(deleted["revoked_at"] == .array([.string("userinfo-example")]))
            #expect(deleted["not_revoked"] == .array([]))
            #expect(
                await emulator.emulator.revocations().contains {
                    $0.issuer == "google" && $0.clientID == "mend-web.apps.googleusercontent.com"
                })
        }
    }

    @Test("The provider's refusal of a code is its own error, typed, and the code cannot be tried again")
    func refusedCode() async throws {
        try await Self.withProviderOnServer { emulator, backend, google, transport in
            let (_, transaction) = AuthorizationRequest(
                provider: google, redirectURI: URL(string: "http://127.0.0.1:9/callback")!,
                scopes: ["openid", "email"]
            ).start()
            let error = try await #require(throws: MendError.self) {
                try await backend.exchange(
                    code: "a-code-the-provider-never-issued", transaction: transaction, granted: nil, denied: nil)
            }
            // invalid_grant from the provider: the OAuth space, recoverable by logging in again.
            #expect(error.code == MendError.Code.OAuth.invalidGrant, "\(error)")
            #expect(error.referenceID != nil)
            // The provider answered, so it may have spent the code: the server keeps it claimed (RFC 9700).
            let again = try await #require(throws: MendError.self) {
                try await backend.exchange(
                    code: "a-code-the-provider-never-issued", transaction: transaction, granted: nil, denied: nil)
            }
            #expect(again.subcode?.rawValue == 36009, "\(again)")
        }
    }

    @Test("A provider under a name that is taken, or not a plain lowercase name, is a configuration error")
    func namesAreChecked() throws {
        var configuration = ServerConfiguration(
            appID: "1", appSecret: Secret("s"), databaseURL: "sqlite::memory:")
        configuration.sessions.allowedRedirectURIs = ["http://127.0.0.1/callback"]
        let provider = UserinfoCodeLogin(
            clientID: "c", clientSecret: "s", tokenEndpoint: URL(string: "http://127.0.0.1/t")!,
            userinfoEndpoint: URL(string: "http://127.0.0.1/u")!, revocationEndpoint: URL(string: "http://127.0.0.1/r")!
        )
        configuration.providers.codeLogin = [provider]
        try configuration.validate()
        configuration.providers.codeLogin = [provider, provider]
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.providers.codeLogin = []
        configuration.providers.idTokenIssuers = [
            .google(clientIDs: ["c"], serverClient: nil)
        ]
        struct Named: CodeLoginProvider {
            var name: String
            func exchange(_ code: CodeLoginRequest, context: ProviderCallContext) async throws -> ProviderGrant? { nil }
            func identify(_ grant: ProviderGrant, context: ProviderCallContext) async throws -> ProviderIdentity {
                ProviderIdentity(subject: "x")
            }
            func revoke(_ token: KeptProviderToken, context: ProviderCallContext) async throws {}
        }
        for taken in ["facebook", "google", "", "Upper", "with space", String(repeating: "a", count: 33)] {
            configuration.providers.codeLogin = [Named(name: taken)]
            #expect(throws: ConfigurationError.self, "\(taken)") { try configuration.validate() }
        }
        configuration.providers.codeLogin = [Named(name: "github-2")]
        try configuration.validate()
    }
}
