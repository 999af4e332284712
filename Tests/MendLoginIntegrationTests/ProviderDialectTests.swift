import Foundation
import HTTPTypes
import MendCore
import MendFacebook
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import Testing

/// A provider Mend does not ship, written as an app would (public API only): plain OAuth 2.0 whose user comes from
/// a user endpoint rather than an id_token. It asks for `prompt=consent` on every login and comma-joins nothing: its
/// scopes are the provider's, space-separated.
struct UserEndpointDialect: ProviderDialect {
    let name = "user-endpoint"
    /// How many times Mend asked this dialect for a profile.
    let profileReads = Counter()

    func authorizationItems(scopes: [String], isRerequest: Bool) -> [URLQueryItem] {
        [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "scope", value: scopes.joined(separator: " ")),
            URLQueryItem(name: "prompt", value: isRerequest ? "consent" : "select_account"),
        ]
    }

    func errorDecoder() -> any ErrorDecoder { HTTPStatusErrorDecoder() }

    func profile(
        token: String, provider: LoginProvider, transport: any HTTPTransport
    ) async throws
        -> ProviderProfile?
    {
        profileReads.increment()
        guard let endpoint = provider.userinfoEndpoint else { return nil }
        let client = APIClient(transport: transport, configuration: .init(errorDecoder: errorDecoder()))
        let user = try await client.send(
            APIRequest(
                method: .get, url: endpoint,
                options: RequestOptions(credentialOverride: Credential(token: token)))
        ).json()
        guard let subject = user["sub"]?.stringValue else {
            throw MendError.login(.Login.unknown, "The user endpoint named no subject.")
        }
        return ProviderProfile(
            user: Session.User(
                id: subject, providerUserID: subject, name: user["name"]?.stringValue,
                email: user["email"]?.stringValue))
    }
}

/// A count shared across copies of a dialect.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("Providers as values: a ProviderDialect says what a provider does its own way")
struct ProviderDialectTests {
    @Test("The built-in dialects: Facebook's response_type, comma scopes and rerequest; OpenID Connect's space scopes")
    func builtInDialects() throws {
        let facebook = LoginProvider.facebook(appID: "123")
        #expect(facebook.dialect is FacebookDialect)
        let redirect = URL(string: "http://127.0.0.1:9/cb")!
        let request = AuthorizationRequest(
            provider: facebook, redirectURI: redirect, scopes: ["public_profile", "email"], rerequest: true)
        let (url, transaction) = request.start()
        let query = Self.query(url)
        #expect(query["response_type"] == "code granted_scopes")
        #expect(query["scope"] == "public_profile,email")
        #expect(query["auth_type"] == "rerequest")

        let google = LoginProvider.google(clientID: "app.apps.googleusercontent.com")
        #expect(google.dialect is OpenIDConnectDialect)
        let oidc = Self.query(AuthorizationRequest(provider: google, redirectURI: redirect).url(for: transaction))
        #expect(oidc["response_type"] == "code")
        #expect(oidc["scope"] == "public_profile email")
        #expect(oidc["auth_type"] == nil)
        #expect(oidc["access_type"] == "offline")
        // Equal providers need equal dialects.
        var renamed = google
        renamed.dialect = UserEndpointDialect()
        #expect(renamed != google)
    }

    @Test("An app's own dialect: its request items and profile serve a live code flow; it gets the defaults")
    func anAppsOwnDialect() async throws {
        try await withEmulator { emulator in
            let transport = AsyncHTTPClientTransport()
            var provider = try await LoginProvider.discover(
                issuer: emulator.url("/google"), clientID: EmulatedIssuerTests.googleIOS, transport: transport)
            let dialect = UserEndpointDialect()
            provider.dialect = dialect

            let request = AuthorizationRequest(
                provider: provider, redirectURI: URL(string: "http://127.0.0.1:9/cb")!, scopes: ["openid"])
            #expect(Self.query(request.start().url)["prompt"] == "select_account")

            // No id_token validator: the user comes from the dialect's profile, read from the user endpoint.
            let login = LoginManager(
                provider: provider,
                credentials: CredentialsManager(
                    store: InMemoryTokenStore(),
                    authority: provider.dialect.sessionAuthority(
                        for: provider, transport: transport, idTokenValidator: nil)),
                defaultScopes: ["openid", "email", "profile"])
            let result = try await login.logIn(presenter: presenter(.grantAll))
            let session = try #require(result.session)
            #expect(dialect.profileReads.value == 1)
            #expect(session.user?.email == "alice@example.com")
            #expect(session.user?.name == "Alice Example")
            #expect(session.accessToken.userID == session.user?.id)
            #expect(session.idToken == nil)

            // The defaults: no device login (a typed error before any request), sessions kept the OIDC way.
            let device = DeviceLogin(provider: provider, transport: transport)
            let error = try await #require(throws: MendError.self) { try await device.start(scopes: ["openid"]) }
            #expect(error.code == .Login.unknown)
            #expect(
                dialect.sessionAuthority(for: provider, transport: transport, idTokenValidator: nil)
                    is OIDCSessionAuthority)
            #expect(dialect.idTokenValidator(for: provider, transport: transport) == nil)
        }
    }

    @Test("An OpenID Connect provider's OAuth errors are the oauth error space: invalid_grant at the token endpoint")
    func oauthErrors() async throws {
        try await withEmulator { emulator in
            let transport = AsyncHTTPClientTransport()
            let google = try await LoginProvider.discover(
                issuer: emulator.url("/google"), clientID: EmulatedIssuerTests.googleIOS, transport: transport)
            let exchanger = OIDCSessionAuthority(provider: google, transport: transport)
            let transaction = AuthorizationTransaction(
                state: "s", nonce: "n", codeVerifier: String(repeating: "v", count: 43),
                redirectURI: URL(string: "http://127.0.0.1/callback")!, scopes: ["openid"], isRerequest: false,
                createdAt: Date())
            let error = try await #require(throws: MendError.self) {
                try await exchanger.exchange(code: "not-a-code", transaction: transaction, granted: nil, denied: nil)
            }
            #expect(error.code == .OAuth.invalidGrant, "\(error)")
            #expect(error.category == .recoverable)
            #expect(error.recovery.action == .reauthenticate)
            #expect(error.httpStatus == 400)
            #expect(error.response?.json?["error"]?.stringValue == "invalid_grant")
            #expect(error.name == "invalidGrant")
        }
    }

    @Test("The OAuth decoder: each standard error value is its row; another value, or none, stays an HTTP status error")
    func oauthDecoder() throws {
        let context = ErrorDecodingContext(catalog: .login)
        func decode(_ status: HTTPResponse.Status, _ body: String) -> MendError? {
            OAuthErrorDecoder().decodeError(
                response: HTTPResponse(status: status), body: Data(body.utf8), context: context)
        }
        for entry in ErrorSpace.oauth.entries {
            guard let wire = entry.wireName, let code = entry.codes?.lowerBound else { continue }
            let error = try #require(decode(.badRequest, #"{"error":"\#(wire)","error_description":"why"}"#))
            #expect(error.code == MendError.Code(.oauth, code), "\(wire)")
            #expect(error.name == entry.name)
            #expect(error.httpStatus == 400)
        }
        #expect(decode(.badRequest, #"{"error":"made_up"}"#)?.code == MendError.Code(.http, 400))
        #expect(decode(.serviceUnavailable, "<html>down</html>")?.domain != .oauth)
        #expect(decode(.ok, "{}") == nil)
    }

    static func query(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            result[item.name] = item.value
        }
        return result
    }
}
