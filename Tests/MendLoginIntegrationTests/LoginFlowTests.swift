import Foundation
import MendCore
import MendEmulator
import MendFacebook
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func loginManager(
    _ emulator: RunningEmulator, store: any TokenStore = InMemoryTokenStore()
) -> (LoginManager, CredentialsManager) {
    let provider = LoginProvider.emulator(
        baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
        version: emulator.emulator.configuration.graphVersion)
    let transport = AsyncHTTPClientTransport()
    let credentials = CredentialsManager(
        store: store, authority: FacebookSessionAuthority(provider: provider, transport: transport))
    return (LoginManager(provider: provider, credentials: credentials), credentials)
}

func presenter(
    _ decision: HeadlessConsentBrowser.Decision, timeout: Duration = .seconds(30)
) -> LoopbackBrowserPresenter {
    LoopbackBrowserPresenter(
        opener: .custom { url in try await HeadlessConsentBrowser(decision: decision).open(url) }, timeout: timeout)
}

@Suite("Login against the live emulator, consent answered as a browser would")
struct LoginFlowTests {
    @Test("A dialog that skips its page (mend emulate --auto-consent, a user who consented before) is followed")
    func dialogThatRedirectsAtOnce() async throws {
        var configuration = EmulatorConfiguration()
        configuration.autoConsent = .grantAll
        try await withEmulator(configuration: configuration) { emulator in
            let (login, _) = loginManager(emulator)
            let result = try await login.logIn(scopes: ["public_profile", "email"], presenter: presenter(.grantAll))
            #expect(result.session != nil)
            #expect(result.grantedPermissions.contains("email"), "\(result.grantedPermissions)")
        }
    }

    @Test("Grant all: a session with the user, the token and the permissions, stored")
    func grantAll() async throws {
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            let (login, credentials) = loginManager(emulator, store: store)
            let events = await credentials.events()
            let result = try await login.logIn(scopes: ["public_profile", "email"], presenter: presenter(.grantAll))
            #expect(!result.isCancelled)
            #expect(result.grantedPermissions == ["public_profile", "email"])
            #expect(result.declinedPermissions.isEmpty)
            let session = try #require(result.session)
            #expect(session.user?.name == "Alice Example")
            #expect(session.accessToken.tokenString.hasPrefix("EAA"))
            #expect(session.accessToken.permissions.contains("email"))
            #expect(try await store.read()?.accessToken.tokenString == session.accessToken.tokenString)
            var iterator = events.makeAsyncIterator()
            if case .signedIn(let signed)? = await iterator.next() {
                #expect(signed.user?.id == session.user?.id)
            } else {
                Issue.record("expected a signedIn event")
            }
            // The token works against the Graph API.
            let graph = GraphClient(
                transport: AsyncHTTPClientTransport(),
                configuration: .init(graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
                credentials: credentials)
            let me = try await graph.send(GraphRequest(path: "me", fields: ["id", "name"])).json()
            #expect(me["name"] == .string("Alice Example"))
        }
    }

    @Test("Decline some: declined permissions are reported, not errors; re-request asks again")
    func declineThenRerequest() async throws {
        try await withEmulator { emulator in
            let (login, _) = loginManager(emulator)
            let declined = try await login.logIn(
                scopes: ["public_profile", "email", "user_posts"], presenter: presenter(.decline(["email"])))
            #expect(declined.declinedPermissions == ["email"])
            #expect(declined.grantedPermissions.isSuperset(of: ["public_profile", "user_posts"]))
            #expect(declined.session?.accessToken.declinedPermissions.contains("email") == true)
            let again = try await login.logIn(
                scopes: ["public_profile", "email", "user_posts"], rerequest: true, presenter: presenter(.grantAll))
            #expect(again.grantedPermissions.contains("email"))
            #expect(again.declinedPermissions.isEmpty)
        }
    }

    @Test("Cancel: a cancelled result, nothing stored")
    func cancel() async throws {
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            let (login, _) = loginManager(emulator, store: store)
            let result = try await login.logIn(presenter: presenter(.cancel))
            #expect(result.isCancelled)
            #expect(result.session == nil)
            #expect(try await store.read() == nil)
        }
    }

    struct BrowserGaveUp: Error {}

    @Test("A redirect with a tampered state never completes the login; nothing is stored")
    func tamperedState() async throws {
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            let (login, _) = loginManager(emulator, store: store)
            let tampering = LoopbackBrowserPresenter(
                opener: .custom { url in
                    let location = try await HeadlessConsentBrowser().answer(url)
                    var components = URLComponents(string: location)!
                    components.queryItems = components.queryItems?.map {
                        $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0
                    }
                    let (_, response) = try await URLSession.shared.data(from: components.url!)
                    #expect((response as? HTTPURLResponse)?.statusCode == 400)
                    // The receiver refused it and goes on waiting; the browser gives up here (no wait for the
                    // login's timeout, whose length would make this test depend on how fast the machine is).
                    throw BrowserGaveUp()
                }, timeout: .seconds(300))
            await #expect(throws: BrowserGaveUp.self) { try await login.logIn(presenter: tampering) }
            let stored = try await store.read()
            #expect(stored == nil)
        }
    }

    @Test("A credentials manager without an authority cannot exchange the code: login/301, nothing is stored")
    func noAuthority() async throws {
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            let provider = LoginProvider.emulator(
                baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
                version: emulator.emulator.configuration.graphVersion)
            let login = LoginManager(provider: provider, credentials: CredentialsManager(store: store))
            let error = try await #require(throws: MendError.self) {
                try await login.logIn(presenter: presenter(.grantAll))
            }
            #expect(error.code == .Login.unknown)
            #expect(error.developerMessage.contains("CredentialsManager(store:authority:)"))
            #expect(try await store.read() == nil)
        }
    }

    @Test("A tampered PKCE verifier is refused by the provider; nothing is stored")
    func tamperedVerifier() async throws {
        struct Tampering: SessionAuthority {
            let inner: any SessionAuthority
            func exchange(
                code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
            )
                async throws -> Session
            {
                var forged = transaction
                forged.codeVerifier = PKCE().verifier
                return try await inner.exchange(code: code, transaction: forged, granted: granted, denied: denied)
            }
            func refresh(_ session: Session) async throws -> Session { try await inner.refresh(session) }
            func checkValidity(of session: Session) async throws { try await inner.checkValidity(of: session) }
            func revoke(_ session: Session) async throws { try await inner.revoke(session) }
            func endsSession(_ error: MendError) -> Bool { inner.endsSession(error) }
        }
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            var (login, credentials) = loginManager(emulator, store: store)
            login.authority = Tampering(inner: try #require(await credentials.authority))
            let error = try await #require(throws: MendError.self) {
                try await login.logIn(presenter: presenter(.grantAll))
            }
            #expect(error.domain == .graph)
            #expect(error.category == .other)
            #expect(try await store.read() == nil)
        }
    }

    @Test("Expiry via the emulator's clock: the validity check signs the user out with the reason")
    func expiry() async throws {
        try await withEmulator { emulator in
            let (login, credentials) = loginManager(emulator)
            _ = try await login.logIn(presenter: presenter(.grantAll))
            #expect(try await credentials.checkValidity(force: true))
            await emulator.advanceClock(by: 3 * 3600)
            let events = await credentials.events()
            #expect(!(try await credentials.checkValidity(force: true)))
            #expect(try await credentials.currentSession() == nil)
            var iterator = events.makeAsyncIterator()
            guard case .signedOut(.tokenRejected(let reason))? = await iterator.next() else {
                Issue.record("expected signedOut(tokenRejected)")
                return
            }
            #expect(reason.matches(.Graph.accessTokenInvalid, .tokenExpired))
        }
    }

    @Test("Logout revokes at the provider, then clears; the old token is dead")
    func logoutRevokes() async throws {
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            let (login, credentials) = loginManager(emulator, store: store)
            let token = try #require(
                try await login.logIn(presenter: presenter(.grantAll)).session?.accessToken.tokenString)
            let outcome = try await credentials.logout()
            #expect(outcome.revoked)
            #expect(try await store.read() == nil)
            let graph = GraphClient(
                transport: AsyncHTTPClientTransport(),
                configuration: .init(graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion))
            let error = try await #require(throws: MendError.self) {
                try await graph.send(GraphRequest(path: "me", tokenOverride: token))
            }
            #expect(error.code == .Graph.accessTokenInvalid)
        }
    }

    @Test("Tokens never appear in descriptions or error text")
    func redaction() async throws {
        try await withEmulator { emulator in
            let (login, credentials) = loginManager(emulator)
            let session = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
            let token = session.accessToken.tokenString
            for rendering in [
                "\(session)", "\(session.accessToken)", String(reflecting: session), "\(Credential(token: token))",
            ] {
                #expect(!rendering.contains(token))
            }
            await emulator.advanceClock(by: 3 * 3600)
            let graph = GraphClient(
                transport: AsyncHTTPClientTransport(),
                configuration: .init(graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
                credentials: credentials)
            let error = try await #require(throws: MendError.self) { try await graph.send(GraphRequest(path: "me")) }
            #expect(error.matches(.Graph.accessTokenInvalid, .tokenExpired))
            #expect(!error.description.contains(token))
            #expect(!error.debugDescription.contains(token))
            #expect(!"\(error as NSError)".contains(token))
            #expect(try await credentials.currentSession() == nil, "the rejected token signed the user out")
        }
    }
}

@Suite("A generic OpenID Connect provider, known only by its discovery URL")
struct OIDCTests {
    /// An emulator whose issuer is its own base URL, so that its discovery document speaks for it.
    static let configuration = EmulatorConfiguration(issuer: EmulatorConfiguration.baseURLIssuer)

    @Test("Discovery, then a code login whose RS256 id_token is validated through the JWKS")
    func discoveryLogin() async throws {
        try await withEmulator(configuration: Self.configuration) { emulator in
            let transport = AsyncHTTPClientTransport()
            let appID = emulator.emulator.configuration.defaultApp.id
            let provider = try await LoginProvider.discover(
                issuer: emulator.url("/.well-known/openid-configuration"), clientID: appID, transport: transport)
            #expect(provider.dialect is OpenIDConnectDialect)
            let jwks = try #require(provider.jwksURI)
            let validator = IDTokenValidator(
                issuer: try #require(provider.issuer), clientID: appID, jwksURI: jwks, transport: transport)
            let store = InMemoryTokenStore()
            let login = LoginManager(
                provider: provider,
                credentials: CredentialsManager(
                    store: store,
                    authority: provider.dialect.sessionAuthority(
                        for: provider, transport: transport, idTokenValidator: validator)),
                defaultScopes: ["openid", "public_profile"])
            let result = try await login.logIn(presenter: presenter(.grantAll))
            let session = try #require(result.session)
            #expect(session.idToken != nil)
            #expect(session.user?.id == emulator.emulator.configuration.users[0].id)
            #expect(try await store.read() != nil)
        }
    }

    @Test("Tampered id_tokens are refused as login/309")
    func tamperedIDToken() async throws {
        try await withEmulator(configuration: Self.configuration) { emulator in
            let transport = AsyncHTTPClientTransport()
            let appID = emulator.emulator.configuration.defaultApp.id
            let provider = try await LoginProvider.discover(
                issuer: emulator.url("/.well-known/openid-configuration"), clientID: appID, transport: transport)
            let validator = IDTokenValidator(
                issuer: try #require(provider.issuer), clientID: appID, jwksURI: try #require(provider.jwksURI),
                transport: transport)
            let unsigned = [
                Base64URL.encode(Array(#"{"alg":"none","kid":"k"}"#.utf8)),
                Base64URL.encode(Array(#"{"sub":"1","iss":"x","aud":"y","exp":1,"iat":1}"#.utf8)), "",
            ].joined(separator: ".")
            for token in [unsigned, "not.a.jwt", "a.b", ""] {
                let error = try await #require(throws: MendError.self) {
                    try await validator.validate(token, nonce: nil)
                }
                #expect(error.code == .Login.invalidIDToken)
                #expect(error.isSecuritySensitive)
            }
        }
    }
}
