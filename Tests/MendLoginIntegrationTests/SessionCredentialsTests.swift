import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendFacebook
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer
import MendTesting
import Testing

/// A presenter that counts the logins it shows.
struct CountingPresenter: LoginPresenter {
    let base: any LoginPresenter
    let count = Locked<Int>(0)

    func begin() async throws -> any LoginPresentation {
        count.withLock { $0 += 1 }
        return try await base.begin()
    }
}

/// A login through mend-server at `server` (the exchanger and the authority: one `BackendSessionClient`) with the
/// emulator's Facebook-style provider, its session in `store`.
func backendLogin(
    _ emulator: RunningEmulator, server: URL, store: any TokenStore = InMemoryTokenStore(),
    transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()
) -> (login: LoginManager, credentials: CredentialsManager, backend: BackendSessionClient) {
    let backend = BackendSessionClient(baseURL: server, transport: transport)
    let provider = LoginProvider.emulator(
        baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
        version: emulator.emulator.configuration.graphVersion)
    let credentials = CredentialsManager(store: store, authority: backend)
    return (LoginManager(provider: provider, credentials: credentials), credentials, backend)
}

/// The one credential seam: `SessionCredentials` (refresh, else log in again) behind the pipeline's
/// `AuthorizationStep`, with one `BackendSessionClient` and no recovery attempter.
@Suite("SessionCredentials: refresh, else log in again, through the pipeline")
struct SessionCredentialsTests {
    @Test(
        "A Graph client on a backend session's provider token: it dies, 20 concurrent calls log in once, replay once")
    func graphReLogin() async throws {
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.providers.returnsProviderToken = true
            try await withMendServer(configuration: configuration) { server in
                let transport = AsyncHTTPClientTransport()
                let (login, credentials, _) = backendLogin(emulator, server: server.baseURL, transport: transport)
                let presenter = CountingPresenter(base: MendLoginIntegrationTests.presenter(.grantAll))
                _ = try await login.logIn(presenter: presenter)
                let first = try #require(try await credentials.currentSession())
                let firstProviderToken = try #require(first.providerAccessToken)

                let graph = GraphClient(
                    transport: transport,
                    configuration: .init(
                        graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
                    credentials: SessionCredentials(login: login, presenter: presenter, token: .provider))
                let me = try await graph.send(GraphRequest(path: "me", fields: ["id", "name"]))
                #expect(me.attempts == 1)
                #expect(presenter.count.current == 1)

                // The provider's token expires (60 days on the emulator's clock); the backend session does not.
                await emulator.advanceClock(by: 61 * 86_400)
                let attempts = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<20 {
                        group.addTask { try await graph.send(GraphRequest(path: "me", fields: ["id"])).attempts }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(attempts.count == 20)
                #expect(attempts.allSatisfy { $0 == 2 }, "each request was replayed once")
                #expect(presenter.count.current == 2, "one login for 20 rejections")
                let second = try #require(try await credentials.currentSession())
                #expect(second.providerAccessToken != nil)
                #expect(second.providerAccessToken != firstProviderToken)
                #expect(second.familyID != first.familyID, "the new login is a new backend session")
            }
        }
    }

    @Test("The session's own token: an expired one is refreshed without a login page; a revoked session logs in again")
    func sessionTokenRefreshThenLogin() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { stack in
            let transport = AsyncHTTPClientTransport()
            let (login, credentials, backend) = backendLogin(
                stack.emulator, server: stack.server.baseURL, transport: transport)
            let presenter = CountingPresenter(base: MendLoginIntegrationTests.presenter(.grantAll))
            _ = try await login.logIn(presenter: presenter)
            let api = APIClient(
                transport: transport, configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .login),
                steps: .standard(credentialProvider: SessionCredentials(login: login, presenter: presenter)))
            let check = APIRequest(method: .get, url: stack.server.baseURL.appendingPathComponent("v1/session"))
            #expect(try await api.send(check).attempts == 1)

            // The server's clock passes the access token's 900 s; the client's does not: the server's session/1
            // reaches the provider, which refreshes.
            stack.clock.advance(by: 901)
            let before = try #require(try await credentials.currentSession())
            #expect(try await api.send(check).attempts == 2)
            let refreshed = try #require(try await credentials.currentSession())
            #expect(refreshed.refreshToken != before.refreshToken)
            #expect(refreshed.familyID == before.familyID)
            #expect(presenter.count.current == 1, "a refresh that works never shows a login page")

            // The session is revoked (RFC 7009, its refresh token with a proof of its key): its access token is
            // refused with session/17, which ends it; the person logs in again, once, and the request is replayed.
            try await backend.revoke(refreshed)
            #expect(try await api.send(check).attempts == 2)
            #expect(presenter.count.current == 2)
            let renewed = try #require(try await credentials.currentSession())
            #expect(renewed.familyID != refreshed.familyID)
        }
    }

    @Test("The provider's token of a backend that does not hand it out: a clear login/310, no request sent")
    func providerTokenWithheld() async throws {
        try await withEmulator { emulator in
            try await withMendServer(configuration: .forEmulator(emulator)) { server in
                let transport = AsyncHTTPClientTransport()
                let (login, _, _) = backendLogin(emulator, server: server.baseURL, transport: transport)
                _ = try await login.logIn(presenter: presenter(.grantAll))
                let graph = GraphClient(
                    transport: transport,
                    configuration: .init(
                        graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
                    credentials: SessionCredentials(login: login, presenter: presenter(.grantAll), token: .provider))
                let sentBefore = await emulator.requestLog().filter { $0.path.hasSuffix("/me") }.count
                let error = try await #require(throws: MendError.self) {
                    try await graph.send(GraphRequest(path: "me"))
                }
                #expect(error.matches(.Login.missingAccessToken))
                #expect(error.developerMessage.contains("MEND_RETURN_PROVIDER_TOKEN"))
                #expect(await emulator.requestLog().filter { $0.path.hasSuffix("/me") }.count == sentBefore)
            }
        }
    }

    @Test("A cancelled re-login fails the request with the rejection's error, and the next rejection asks again")
    func cancelledReLogin() async throws {
        try await withEmulator { emulator in
            let transport = AsyncHTTPClientTransport()
            let provider = LoginProvider.emulator(
                baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
                version: emulator.emulator.configuration.graphVersion)
            let credentials = CredentialsManager(
                store: InMemoryTokenStore(),
                authority: FacebookSessionAuthority(provider: provider, transport: transport))
            let login = LoginManager(
                provider: provider, credentials: credentials)
            _ = try await login.logIn(presenter: presenter(.grantAll))
            let cancelling = CountingPresenter(base: presenter(.cancel))
            let graph = GraphClient(
                transport: transport,
                configuration: .init(graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion),
                credentials: SessionCredentials(login: login, presenter: cancelling))
            try await emulator.inject(error: "graph/190/463", path: "/me", times: 2)
            let first = try await #require(throws: MendError.self) { try await graph.send(GraphRequest(path: "me")) }
            #expect(first.matches(.Graph.accessTokenInvalid, .tokenExpired))
            #expect(cancelling.count.current == 1)
            #expect(try await credentials.currentSession() == nil, "the provider's expired token ended its session")
            // Nobody is logged in now: the next call goes out without a token and shows no login page by itself.
            _ = try? await graph.send(GraphRequest(path: "me"))
            #expect(cancelling.count.current == 1)
        }
    }

    @Test("Nothing can refresh it: session/18 — a session without a refresh token, or a provider's token")
    func notRefreshable() async throws {
        let session = Session(
            issuer: .backend,
            accessToken: AccessToken(tokenString: "a-backend-access-token-without-refresh", refreshDate: Date()))
        let orphan = CredentialsManager(store: InMemoryTokenStore())
        try await orphan.signIn(session)
        let error = try await #require(throws: MendError.self) { try await orphan.refresh() }
        #expect(error.matches(.Session.notRefreshable))
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .reauthenticate)

        let facebook = FacebookSessionAuthority(
            provider: .facebook(appID: "1234567890"), transport: AsyncHTTPClientTransport())
        let providerError = try await #require(throws: MendError.self) {
            try await facebook.refresh(Session(issuer: .provider, accessToken: session.accessToken))
        }
        #expect(providerError.matches(.Session.notRefreshable))
        #expect(facebook.endsSession(providerError))
        #expect(MendError.Code.Session.endsSession(.Session.notRefreshable))
    }

    /// Found trying `mend token refresh` after `mend login` against `mend emulate`: the refresh a provider session cannot
    /// have signed the user out, two hours before the token expired. Only an expired token makes `session/18` final.
    @Test("A provider session that cannot be refreshed lasts until its token expires: session/18 signs out only then")
    func notRefreshableProviderSessionLastsUntilItsTokenExpires() async throws {
        let facebook = FacebookSessionAuthority(
            provider: .facebook(appID: "1234567890"), transport: AsyncHTTPClientTransport())
        let store = InMemoryTokenStore()
        let manager = CredentialsManager(store: store, authority: facebook)
        let valid = Session(
            issuer: .provider,
            accessToken: AccessToken(
                tokenString: "EAAproviderTokenStillValid0123", expirationDate: Date().addingTimeInterval(7200),
                refreshDate: Date()))
        try await manager.signIn(valid)
        let refused = try await #require(throws: MendError.self) { try await manager.refresh() }
        #expect(refused.matches(.Session.notRefreshable))
        #expect(try await manager.currentSession() != nil)
        #expect(try await store.read() != nil)
        #expect(await manager.lastSignOut == nil)

        let expired = Session(
            issuer: .provider,
            accessToken: AccessToken(
                tokenString: "EAAproviderTokenExpired01234567", expirationDate: Date().addingTimeInterval(-1),
                refreshDate: Date().addingTimeInterval(-7200)))
        try await manager.signIn(expired)
        let over = try await #require(throws: MendError.self) { try await manager.validToken() }
        #expect(over.matches(.Session.notRefreshable))
        #expect(try await store.read() == nil)
        #expect(await manager.lastSignOut != nil)
    }

    @Test("The login catalog has no Graph rows: a provider's space comes with its dialect's decoder")
    func loginCatalogIsProviderNeutral() {
        #expect(!ErrorCatalog.login.domains.contains(.graph))
        #expect(Set(ErrorCatalog.login.domains).isSuperset(of: [MendError.Domain.login, .session, .oauth]))
        #expect(FacebookDialect().errorDecoder().errorSpaces.contains { $0.domain == .graph })
    }
}
