import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import Testing

@testable import MendLogin

/// An issuer that answers as the test scripts it: each refresh, check and revocation takes the next scripted answer
/// (a fresh session by default), and every call is counted.
final class ScriptedAuthority: SessionAuthority {
    enum Answer: Sendable {
        case fresh
        case fail(MendError)
    }

    private let state = Locked<(refreshes: [Answer], checks: [Answer], revocations: [Answer])>(([], [], []))
    let calls = Locked<[String]>([])
    let endsWith: @Sendable (MendError) -> Bool

    init(endsSession: @escaping @Sendable (MendError) -> Bool = { MendError.Code.Session.endsSession($0.code) }) {
        self.endsWith = endsSession
    }

    func script(refreshes: [Answer] = [], checks: [Answer] = [], revocations: [Answer] = []) {
        state.withLock {
            $0.refreshes += refreshes
            $0.checks += checks
            $0.revocations += revocations
        }
    }

    func count(_ name: String) -> Int { calls.current.filter { $0 == name }.count }

    private func next(
        _ path: WritableKeyPath<(refreshes: [Answer], checks: [Answer], revocations: [Answer]), [Answer]>
    )
        -> Answer
    {
        state.withLock { state in state[keyPath: path].isEmpty ? .fresh : state[keyPath: path].removeFirst() }
    }

    func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    ) async throws -> Session {
        calls.withLock { $0.append("exchange") }
        return testSession(token: "EAAexchanged\(code)AAAAAAAAAAAAAAAA", user: code)
    }

    func refresh(_ session: Session) async throws -> Session {
        calls.withLock { $0.append("refresh") }
        switch next(\.refreshes) {
        case .fail(let error): throw error
        case .fresh:
            var fresh = session
            fresh.generation += 1
            fresh.accessToken = AccessToken(
                tokenString: "EAArefreshed\(fresh.generation)BBBBBBBBBBBBBBBBB", userID: session.user?.id,
                expirationDate: Date().addingTimeInterval(900))
            fresh.refreshToken = "refresh-\(fresh.generation + 1)"
            return fresh
        }
    }

    func checkValidity(of session: Session) async throws {
        calls.withLock { $0.append("check") }
        if case .fail(let error) = next(\.checks) { throw error }
    }

    func revoke(_ session: Session) async throws {
        calls.withLock { $0.append("revoke") }
        if case .fail(let error) = next(\.revocations) { throw error }
    }

    func endsSession(_ error: MendError) -> Bool { endsWith(error) }
}

/// A backend session of `user` whose token expires in `expiresIn` seconds.
func testSession(
    token: String = "EAAcurrentTokenAAAAAAAAAAAAAAA", user: String = "u1", expiresIn: TimeInterval = 900,
    refreshToken: String? = "refresh-1", issuer: Session.Issuer = .backend
) -> Session {
    Session(
        issuer: issuer,
        accessToken: AccessToken(
            tokenString: token, userID: user, expirationDate: Date().addingTimeInterval(expiresIn)),
        refreshToken: refreshToken, user: .init(id: user, name: "Ada"), familyID: "ses_\(user)")
}

func sessionError(_ code: MendError.Code) -> MendError {
    MendError(code: code, developerMessage: "test", catalog: .login)
}

let unreachable = MendError(code: .Transport.cannotConnect, developerMessage: "refused", catalog: .core)

/// Collects a manager's events until the test reads them.
actor EventLog {
    private(set) var names: [String] = []
    private(set) var reasons: [SignOutReason] = []

    func record(_ event: SessionEvent) {
        names.append(event.name)
        if case .signedOut(let reason) = event { reasons.append(reason) }
    }

    /// Listens to `manager` from now on (the returned task ends with the stream).
    static func listening(to manager: CredentialsManager) async -> (EventLog, Task<Void, Never>) {
        let log = EventLog()
        let events = await manager.events()
        let task = Task {
            for await event in events { await log.record(event) }
        }
        return (log, task)
    }

    /// Waits until `count` events arrived (yielding; fails instead of spinning forever).
    func waitFor(_ count: Int) async throws {
        for _ in 0..<100_000 where names.count < count { await Task.yield() }
        try #require(names.count >= count, "only \(names) arrived")
    }
}

/// The manager with an in-memory store and a scripted issuer: refresh, sign-out, checks and logout, with no network.
@Suite("The credentials manager, by itself")
struct CredentialsManagerTests {
    @Test("Concurrent callers of an expired token share one refresh; its result is stored and reported once")
    func oneRefreshForMany() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(expiresIn: -10))
        let authority = ScriptedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        _ = try await manager.currentSession()
        let (log, listening) = await EventLog.listening(to: manager)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await manager.validToken().tokenString } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["EAArefreshed1BBBBBBBBBBBBBBBBB"])
        #expect(authority.count("refresh") == 1)
        #expect(try await store.read()?.refreshToken == "refresh-2")
        try await log.waitFor(1)
        #expect(await log.names == ["refreshed"])
        listening.cancel()
    }

    @Test("A second manager on the same store adopts the first one's refresh instead of refreshing again")
    func adoptsAnotherManagersRefresh() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(expiresIn: -10))
        let authority = ScriptedAuthority()
        let first = CredentialsManager(store: store, authority: authority)
        let second = CredentialsManager(store: store, authority: authority)
        _ = try await second.currentSession()  // holds the expired session
        #expect(try await first.validToken().tokenString == "EAArefreshed1BBBBBBBBBBBBBBBBB")
        #expect(try await second.validToken().tokenString == "EAArefreshed1BBBBBBBBBBBBBBBBB")
        #expect(authority.count("refresh") == 1, "the store is the truth: the spent refresh token is never sent")
    }

    @Test(
        "A bound session hands out a DPoP credential; one whose key this device cannot use signs out with session/19",
        arguments: ["enclave", "not a key", "another key"])
    func lostProofKey(_ damage: String) async throws {
        let key = try DPoPSoftwareKeys().makeKey()
        var bound = testSession(expiresIn: 3600)
        bound.proofKey = key
        let healthy = InMemoryTokenStore()
        try await healthy.write(bound)
        let credential = try #require(try await CredentialsManager(store: healthy).currentCredential())
        #expect(credential.isProofBound && credential.token == bound.accessToken.tokenString)

        let other = try DPoPSoftwareKeys().makeKey()
        switch damage {
        case "enclave":
            bound.proofKey = DPoPKey(kind: .secureEnclave, material: key.material, thumbprint: key.thumbprint)
        case "not a key":
            bound.proofKey = DPoPKey(kind: .software, material: Data([1, 2, 3]), thumbprint: key.thumbprint)
        default: bound.proofKey = DPoPKey(kind: .software, material: other.material, thumbprint: key.thumbprint)
        }
        let store = InMemoryTokenStore()
        try await store.write(bound)
        let manager = CredentialsManager(store: store, authority: ScriptedAuthority())
        let error = try await #require(throws: MendError.self) { try await manager.currentCredential() }
        #expect(error.code == .Session.proofKeyUnavailable)
        #expect(try await store.read() == nil, "the session is over: a new login, never a crash")
        #expect(await manager.lastSignOut?.error?.code == .Session.proofKeyUnavailable)
        #expect(try await manager.currentCredential() == nil)
    }

    @Test("A refresh the issuer ends signs out: the store is emptied and the reason reported")
    func refreshEnded() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(expiresIn: -10))
        let authority = ScriptedAuthority()
        authority.script(refreshes: [.fail(sessionError(.Session.refreshTokenReused))])
        let manager = CredentialsManager(store: store, authority: authority)
        _ = try await manager.currentSession()
        let (log, listening) = await EventLog.listening(to: manager)
        let error = try await #require(throws: MendError.self) { try await manager.validToken() }
        #expect(error.code == .Session.refreshTokenReused)
        #expect(try await store.read() == nil)
        #expect(await manager.lastSignOut?.error?.code == .Session.refreshTokenReused)
        try await log.waitFor(1)
        #expect(await log.names == ["signedOut"])
        listening.cancel()
    }

    @Test("A refresh that fails on the way is thrown, the session kept; the next caller refreshes again")
    func transientRefresh() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(expiresIn: -10))
        let authority = ScriptedAuthority()
        authority.script(refreshes: [.fail(unreachable)])
        let manager = CredentialsManager(store: store, authority: authority)
        let error = try await #require(throws: MendError.self) { try await manager.validToken() }
        #expect(error.code == .Transport.cannotConnect)
        #expect(try await store.read()?.refreshToken == "refresh-1")
        #expect(await manager.lastSignOut == nil)
        #expect(try await manager.validToken().tokenString == "EAArefreshed1BBBBBBBBBBBBBBBBB")
        #expect(authority.count("refresh") == 2)
    }

    @Test("Nothing can refresh it (session/18): kept while its token works, signed out once the token expired")
    func notRefreshable() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(expiresIn: 30))  // inside the 60 s margin, still valid
        let authority = ScriptedAuthority()
        authority.script(refreshes: [.fail(sessionError(.Session.notRefreshable))])
        let manager = CredentialsManager(store: store, authority: authority)
        await #expect(throws: MendError.self) { try await manager.refresh() }
        #expect(try await store.read() != nil, "its token still works: kept")

        try await store.write(testSession(expiresIn: -10))
        let expired = CredentialsManager(store: store, authority: authority)
        authority.script(refreshes: [.fail(sessionError(.Session.notRefreshable))])
        await #expect(throws: MendError.self) { try await expired.validToken() }
        #expect(try await store.read() == nil, "expired and not refreshable: over")
    }

    @Test("A refresh finds the store emptied by another process: login/310, signed out as logged out")
    func loggedOutElsewhere() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(expiresIn: -10))
        let authority = ScriptedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        _ = try await manager.currentSession()
        try await store.delete()
        let error = try await #require(throws: MendError.self) { try await manager.validToken() }
        #expect(error.code == .Login.missingAccessToken)
        let reason = await manager.lastSignOut
        #expect(reason != nil && reason?.error == nil)
        #expect(authority.count("refresh") == 0)
    }

    @Test("A rejection of a replaced token gets the new one without a refresh; one of the current token refreshes")
    func rejections() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession())
        let authority = ScriptedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        let stale = Credential(token: "EAAstaleTokenAAAAAAAAAAAAAAAAA")
        let expired = sessionError(.Session.accessTokenExpired)
        #expect(
            try await manager.refreshCredential(rejected: stale, error: expired).token
                == "EAAcurrentTokenAAAAAAAAAAAAAAA")
        #expect(authority.count("refresh") == 0)
        let current = Credential(token: "EAAcurrentTokenAAAAAAAAAAAAAAA")
        #expect(try await manager.refreshCredential(rejected: current, error: expired).token.hasPrefix("EAArefreshed"))
        #expect(authority.count("refresh") == 1)
    }

    @Test("A rejection that ends the session signs out with it; invalidate does the same without a refresh")
    func endingRejections() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession())
        let authority = ScriptedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        let current = Credential(token: "EAAcurrentTokenAAAAAAAAAAAAAAA")
        let revoked = sessionError(.Session.revoked)
        await #expect(throws: MendError.self) { try await manager.refreshCredential(rejected: current, error: revoked) }
        #expect(try await store.read() == nil)
        if case .tokenRejected(let error) = await manager.lastSignOut {
            #expect(error.code == .Session.revoked)
        } else {
            Issue.record("not signed out for the rejection")
        }

        try await store.write(testSession())
        let other = CredentialsManager(store: store, authority: authority)
        await other.invalidate(current, because: sessionError(.Session.accessTokenExpired))
        #expect(try await store.read() != nil, "an expired token is never a sign-out")
        await other.invalidate(current, because: sessionError(.Session.userDeleted))
        #expect(try await store.read() == nil)
        #expect(authority.count("refresh") == 0)
    }

    @Test("A provider's token with no issuer: a rejection that only a login helps signs out; others keep it")
    func providerTokenWithoutIssuer() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession(refreshToken: nil, issuer: .provider))
        let manager = CredentialsManager(store: store)
        let current = Credential(token: "EAAcurrentTokenAAAAAAAAAAAAAAA")
        await manager.invalidate(current, because: sessionError(.Session.accessTokenExpired))
        #expect(try await store.read() != nil)
        await manager.invalidate(
            current, because: MendError(code: .HTTP.tooManyRequests, developerMessage: "slow", catalog: .core))
        #expect(try await store.read() != nil)
        await manager.invalidate(current, because: sessionError(.Login.passwordChanged))
        #expect(try await store.read() == nil)
    }

    @Test("A validity check: refreshes on an expired answer, signs out on an ending one, keeps on a transient one")
    func validityChecks() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession())
        let authority = ScriptedAuthority()
        let manager = CredentialsManager(store: store, authority: authority, validityCheckInterval: 3600)
        authority.script(checks: [.fail(sessionError(.Session.accessTokenExpired))])
        #expect(try await manager.checkValidity(force: true))
        #expect(authority.count("refresh") == 1, "the issuer's clock ran ahead: a refresh is its word")
        #expect(try await manager.checkValidity(), "not due: no call")
        #expect(authority.count("check") == 1)

        authority.script(checks: [.fail(unreachable)])
        await #expect(throws: MendError.self) { try await manager.checkValidity(force: true) }
        #expect(try await store.read() != nil)

        authority.script(checks: [.fail(sessionError(.Session.providerAccessRevoked))])
        #expect(try await manager.checkValidity(force: true) == false)
        #expect(try await store.read() == nil)
        #expect(try await manager.checkValidity(force: true) == false, "nobody is logged in")
    }

    @Test("A logout revokes with the stored session and clears the store, even when revocation fails")
    func logout() async throws {
        let store = InMemoryTokenStore()
        try await store.write(testSession())
        let authority = ScriptedAuthority()
        authority.script(revocations: [.fail(unreachable)])
        let manager = CredentialsManager(store: store, authority: authority)
        let (log, listening) = await EventLog.listening(to: manager)
        let outcome = try await manager.logout()
        #expect(!outcome.revoked && outcome.revocationError?.code == .Transport.cannotConnect)
        #expect(try await store.read() == nil)
        try await log.waitFor(1)
        #expect(await log.names == ["signedOut"])
        let again = try await manager.logout()
        #expect(!again.revoked && again.revocationError == nil)
        #expect(authority.count("revoke") == 1)
        listening.cancel()
    }

    @Test("A code becomes a stored session in one step; a re-authentication as someone else stores nothing")
    func signInExchanging() async throws {
        let store = InMemoryTokenStore()
        let authority = ScriptedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        let transaction = AuthorizationRequest(
            provider: .google(clientID: "client"), redirectURI: URL(string: "http://127.0.0.1:1/callback")!,
            scopes: ["openid"], rerequest: false
        ).start().1
        let session = try await manager.signIn(
            exchanging: "alice", transaction: transaction, granted: nil, denied: nil)
        #expect(session.user?.id == "alice")
        #expect(try await store.read()?.user?.id == "alice")
        let error = try await #require(throws: MendError.self) {
            try await manager.signIn(
                exchanging: "bob", transaction: transaction, granted: nil, denied: nil, sameUser: true)
        }
        #expect(error.code == .Login.userMismatch)
        #expect(try await store.read()?.user?.id == "alice")
        #expect(try await manager.currentSession()?.user?.id == "alice")

        let bare = CredentialsManager(store: InMemoryTokenStore())
        let none = try await #require(throws: MendError.self) {
            try await bare.signIn(exchanging: "carol", transaction: transaction, granted: nil, denied: nil)
        }
        #expect(none.code == .Login.unknown)
        let other = try await bare.signIn(
            exchanging: "carol", transaction: transaction, granted: nil, denied: nil, at: authority)
        #expect(other.user?.id == "carol")
    }
}

/// A transport that must not be used.
struct NoNetwork: HTTPTransport {
    func send(_ request: HTTPRequest, body: HTTPBody?, timeout: Duration?) async throws -> (HTTPResponse, HTTPBody) {
        Issue.record("no request was expected: \(request.method) \(request.path ?? "")")
        throw unreachable
    }
}

/// A provider's token answer becomes a session in one place: a login's, a device login's and a refresh's.
@Suite("Provider token answers")
struct ProviderTokenAnswerTests {
    static let provider = LoginProvider.google(clientID: "client-1")
    static let issuedAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("An answer without an access token is a malformed response")
    func noAccessToken() {
        for answer: JSONValue in [.object([:]), .object(["access_token": .string("")]), .array([])] {
            #expect(throws: MendError.self) { try ProviderTokenAnswer(answer) }
            if case .failure(let error as MendError) = Result(catching: { try ProviderTokenAnswer(answer) }) {
                #expect(error.code == .Transport.malformedResponse)
            }
        }
    }

    @Test("A login's scopes: the redirect's first, then the answer's, then what was asked for")
    func loginScopes() async throws {
        let answer = try ProviderTokenAnswer(
            .object([
                "access_token": .string("ya29.token"), "expires_in": .int(3599), "refresh_token": .string("1//r"),
                "scope": .string("openid email"), "data_access_expiration_time": .int(1_900_000_000),
            ]))
        func login(granted: [String]?, denied: [String]? = nil, _ answer: ProviderTokenAnswer) async throws -> Session {
            try await answer.login(
                at: Self.provider, transport: NoNetwork(), issuedAt: Self.issuedAt, asked: ["openid", "profile"],
                granted: granted, denied: denied, idTokenValidator: nil, nonce: nil, what: "the answer")
        }
        let redirected = try await login(granted: ["openid"], denied: ["email"], answer)
        #expect(redirected.accessToken.permissions == ["openid"])
        #expect(redirected.accessToken.declinedPermissions == ["email"])
        let answered = try await login(granted: nil, answer)
        #expect(answered.accessToken.permissions == ["openid", "email"])
        #expect(answered.issuer == .provider && answered.refreshToken == "1//r")
        #expect(answered.accessToken.expirationDate == Self.issuedAt.addingTimeInterval(3599))
        #expect(answered.accessToken.refreshDate == Self.issuedAt)
        #expect(answered.accessToken.dataAccessExpirationDate == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(answered.accessToken.appID == "client-1")
        let bare = try await login(granted: nil, try ProviderTokenAnswer(.object(["access_token": .string("t")])))
        #expect(bare.accessToken.permissions == ["openid", "profile"])
        #expect(bare.accessToken.expirationDate == nil && bare.refreshToken == nil && bare.idToken == nil)
    }

    @Test("Without a validator an id_token is dropped, never kept as if it had been checked")
    func idTokenWithoutValidator() async throws {
        let answer = try ProviderTokenAnswer(
            .object(["access_token": .string("t"), "id_token": .string("eyJhbGciOiJub25lIn0.e30.")]))
        let session = try await answer.login(
            at: Self.provider, transport: NoNetwork(), issuedAt: Self.issuedAt, asked: [], idTokenValidator: nil,
            nonce: nil, what: "the answer")
        #expect(session.idToken == nil && session.user == nil)
    }

    @Test("A refresh continues its session: user, family and id_token kept, generation up, refresh token kept if none")
    func refresh() async throws {
        let previous = Session(
            issuer: .provider,
            accessToken: AccessToken(tokenString: "old", userID: "sub-1", permissions: ["openid", "email"]),
            refreshToken: "1//old", refreshExpirationDate: Self.issuedAt.addingTimeInterval(86_400),
            user: .init(id: "sub-1", name: "Ada"), idToken: "kept.id.token", generation: 4, familyID: "family")
        let rotated = try await ProviderTokenAnswer(
            .object(["access_token": .string("new"), "expires_in": .int(60), "refresh_token": .string("1//new")])
        ).refresh(of: previous, at: Self.provider, issuedAt: Self.issuedAt, idTokenValidator: nil)
        #expect(rotated.accessToken.tokenString == "new" && rotated.refreshToken == "1//new")
        #expect(rotated.generation == 5 && rotated.familyID == "family" && rotated.user?.id == "sub-1")
        #expect(rotated.idToken == "kept.id.token")
        #expect(rotated.accessToken.permissions == ["openid", "email"])
        #expect(rotated.accessToken.userID == "sub-1")
        #expect(rotated.refreshExpirationDate == previous.refreshExpirationDate)
        #expect(rotated.isSameFamily(as: previous) && !rotated.isSameIssue(as: previous))
        let kept = try await ProviderTokenAnswer(
            .object(["access_token": .string("newer"), "scope": .string("openid")])
        )
        .refresh(of: rotated, at: Self.provider, issuedAt: Self.issuedAt, idTokenValidator: nil)
        #expect(kept.refreshToken == "1//new", "a provider that does not rotate keeps the refresh token")
        #expect(kept.accessToken.permissions == ["openid"])
    }
}
