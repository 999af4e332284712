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

@Suite("Login through mend-server (the backend exchanger), against the emulator")
struct BackendLoginTests {
    @Test("Login, refresh, validity check and logout through the backend; errors keep the backend's classification")
    func endToEnd() async throws {
        try await withEmulator { emulator in
            try await withMendServer(configuration: .forEmulator(emulator)) { server in
                let store = InMemoryTokenStore()
                let (login, credentials, backend) = backendLogin(emulator, server: server.baseURL, store: store)

                let result = try await login.logIn(
                    scopes: ["public_profile", "email", "user_posts"], presenter: presenter(.decline(["user_posts"])))
                let session = try #require(result.session)
                #expect(session.issuer == .backend)
                #expect(session.refreshToken != nil)
                #expect(session.user?.name == "Alice Example")
                #expect(result.declinedPermissions == ["user_posts"])
                #expect(try await credentials.checkValidity(force: true))

                let refreshed = try await credentials.refresh()
                #expect(refreshed.refreshToken != session.refreshToken)
                #expect(refreshed.generation == session.generation + 1)
                #expect(try await store.read()?.refreshToken == refreshed.refreshToken)

                // Presented again while its successor is unused (a lost answer): the same successor, a fresh token.
                let repeated = try await backend.refresh(session)
                #expect(repeated.refreshToken == refreshed.refreshToken)
                #expect(repeated.familyID == session.familyID)

                // Once the successor is used, the spent token is a replay: the family is revoked, with the reason.
                let next = try await credentials.refresh()
                #expect(next.refreshToken != refreshed.refreshToken)
                let replay = try await #require(throws: MendError.self) { try await backend.refresh(session) }
                #expect(replay.code == .Session.refreshTokenReused)
                #expect(replay.category == .recoverable)
                #expect(backend.endsSession(replay))
                #expect(replay.referenceID != nil)
                #expect(try await credentials.checkValidity(force: true) == false)
                #expect(await credentials.lastSignOut?.error?.code == .Session.refreshTokenReused)
                #expect(try await store.read() == nil)

                // A new login, then a logout: revoked at the server, the refresh token refused afterwards.
                _ = try await login.logIn(presenter: presenter(.grantAll))
                let last = try #require(try await store.read())
                let outcome = try await credentials.logout()
                #expect(outcome.revoked)
                #expect(try await store.read() == nil)
                let afterLogout = try await #require(throws: MendError.self) { try await backend.refresh(last) }
                #expect(afterLogout.code == .Session.loggedOut)
            }
        }
    }

    @Test("Google through mend-server: the server's web client, PKCE, one user per subject, replay refused, revoked")
    func googleCodeLogin() async throws {
        try await withEmulator { emulator in
            try await withMendServer(configuration: .forEmulator(emulator)) { server in
                let transport = AsyncHTTPClientTransport()
                var backend = BackendSessionClient(baseURL: server.baseURL, transport: transport)
                backend.provider = "google"
                // The app's authorization request uses the server's web client; only the server holds its secret.
                let google = try await LoginProvider.discover(
                    issuer: emulator.url("/google"), clientID: "mend-web.apps.googleusercontent.com",
                    transport: transport)
                let store = InMemoryTokenStore()
                let credentials = CredentialsManager(store: store, authority: backend)
                let login = LoginManager(
                    provider: google, credentials: credentials,
                    defaultScopes: ["openid", "email", "profile"])
                let result = try await login.logIn(presenter: presenter(.grantAll))
                let session = try #require(result.session)
                #expect(session.issuer == .backend)
                #expect(session.user?.email == "alice@example.com")
                // The scopes Google's token answer granted are the session's, as Facebook's are (they were empty).
                let granted: Set = [
                    "openid", "https://www.googleapis.com/auth/userinfo.email",
                    "https://www.googleapis.com/auth/userinfo.profile",
                ]
                #expect(session.accessToken.permissions == granted)
                #expect(try await credentials.checkValidity(force: true))
                #expect(try await credentials.refresh().accessToken.permissions == granted)

                // A second login of the same Google user is the same mend-server user.
                let again = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
                #expect(again.user?.id == session.user?.id)

                // A code sent twice is refused (and what it opened is revoked).
                let recorder = RecordingExchanger(backend: backend)
                let third = LoginManager(
                    provider: google, exchanger: recorder, defaultScopes: ["openid", "email", "profile"])
                _ = try await third.logIn(presenter: presenter(.grantAll))
                let (code, transaction) = try #require(recorder.last.current)
                let replay = try await #require(throws: MendError.self) {
                    try await backend.exchange(code: code, transaction: transaction, granted: nil, denied: nil)
                }
                // The same answer as a replayed Facebook code (docs/server.md): graph/100/36009.
                #expect(replay.code == .Graph.invalidParameter && replay.subcode?.rawValue == 36009, "\(replay)")

                // The server kept Google's refresh token: deleting the account revokes it at Google.
                let access = try #require(try await credentials.currentCredential())
                #expect(access.isProofBound, "mend-server binds a Mend client's session by default")
                let deleted = try await APIClient(transport: transport).send(
                    APIRequest(
                        method: .delete, url: server.baseURL.appendingPathComponent("v1/me"),
                        options: RequestOptions(credentialOverride: access))
                ).json()
                #expect(deleted["revoked_at"] == .array([.string("google")]))
                #expect(
                    await emulator.emulator.revocations().contains {
                        $0.issuer == "google" && $0.clientID == "mend-web.apps.googleusercontent.com"
                    })
            }
        }
    }

    @Test("A provider outage during the code exchange comes back transient, never a bare 500; nothing is stored")
    func providerDown() async throws {
        try await withEmulator { emulator in
            try await withMendServer(configuration: .forEmulator(emulator)) { server in
                try await emulator.inject(error: "graph/2", path: "/oauth/access_token")
                let transport = AsyncHTTPClientTransport()
                let backend = BackendSessionClient(baseURL: server.baseURL, transport: transport)
                let provider = LoginProvider.emulator(
                    baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
                    version: emulator.emulator.configuration.graphVersion)
                let store = InMemoryTokenStore()
                let login = LoginManager(
                    provider: provider, credentials: CredentialsManager(store: store, authority: backend))
                let error = try await #require(throws: MendError.self) {
                    try await login.logIn(presenter: presenter(.grantAll))
                }
                #expect(error.category == .transient, "\(error)")
                #expect(error.referenceID != nil)
                #expect(try await store.read() == nil)
                // The code exchange was sent once: never retried.
                #expect(await emulator.requestLog().filter { $0.path.hasSuffix("/oauth/access_token") }.count == 1)
            }
        }
    }

    @Test("A bearer session that a server binding every session finds (MEND_DPOP=required): its refresh ends it")
    func bearerSessionUnderRequiredBinding() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mend-binding-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.storage.databaseURL = "sqlite://" + directory.appendingPathComponent("mend.sqlite").path
            configuration.sessions.signingKeys = [.generate(keyID: "kept")]
            let store = InMemoryTokenStore()
            let provider = LoginProvider.emulator(
                baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
                version: emulator.emulator.configuration.graphVersion)
            // An app of the landed version: a bearer session, on a server that allows one.
            try await withMendServer(configuration: configuration) { server in
                var backend = BackendSessionClient(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
                backend.binding = .bearer
                let credentials = CredentialsManager(store: store, authority: backend)
                _ = try await LoginManager(provider: provider, credentials: credentials)
                    .logIn(presenter: presenter(.grantAll))
                #expect(try await store.read()?.proofKey == nil)
            }
            // The server now binds every session: the bearer session's refresh ends it (session/10, once), the app
            // signs out instead of retrying a refusal it cannot answer, and its next login is bound.
            configuration.sessions.dpop = .required
            try await withMendServer(configuration: configuration) { server in
                let backend = BackendSessionClient(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
                let credentials = CredentialsManager(store: store, authority: backend)
                let stale = try #require(try await store.read())
                let ended = try await #require(throws: MendError.self) { try await credentials.refresh() }
                #expect(ended.code == .Session.sessionEnded, "\(ended)")
                #expect(ended.developerMessage.contains("binds every session"), "\(ended.developerMessage)")
                #expect(await credentials.lastSignOut?.error?.code == .Session.sessionEnded)
                #expect(try await store.read() == nil)
                // Ended at the server too: its refresh token is an ended session's from now on.
                let again = try await #require(throws: MendError.self) { try await backend.refresh(stale) }
                #expect(again.code == .Session.sessionEnded)
                _ = try await LoginManager(provider: provider, credentials: credentials)
                    .logIn(presenter: presenter(.grantAll))
                #expect(try await store.read()?.proofKey != nil)
            }
        }
    }
}

/// The backend, remembering the last code it exchanged with its transaction.
struct RecordingExchanger: SessionAuthority {
    let backend: BackendSessionClient
    let last = Locked<(String, AuthorizationTransaction)?>(nil)

    func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    ) async throws -> Session {
        last.withLock { $0 = (code, transaction) }
        return try await backend.exchange(code: code, transaction: transaction, granted: granted, denied: denied)
    }

    func refresh(_ session: Session) async throws -> Session { try await backend.refresh(session) }
    func checkValidity(of session: Session) async throws { try await backend.checkValidity(of: session) }
    func revoke(_ session: Session) async throws { try await backend.revoke(session) }
    func endsSession(_ error: MendError) -> Bool { backend.endsSession(error) }
}
