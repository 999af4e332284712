import Foundation
import MendCore
import MendEmulator
import MendFacebook
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import Testing

/// A driver that plays the system browser session: it answers the emulator's consent page with a headless browser
/// and reports where the dialog redirected, or reports what the test tells it to.
@MainActor
final class ScriptedDriver: WebAuthenticationDriver {
    enum Behaviour: Sendable {
        /// Answer the consent page with this decision and report the redirect.
        case consent(HeadlessConsentBrowser.Decision)
        /// Report this outcome at once.
        case report(WebAuthenticationOutcome)
        /// Report a redirect to this URL.
        case redirect(String)
        /// Never end (until cancelled: then report the person's cancel, as ASWebAuthenticationSession does).
        case hang
        /// Refuse to start.
        case refuseToStart
    }

    let behaviour: Behaviour
    private(set) var requests: [WebAuthenticationRequest] = []
    private(set) var cancels = 0
    /// Set by the test when the login it waits for has returned; read when the driver is cancelled.
    nonisolated let loginReturned = Locked(false)
    /// Whether the login had already returned when the driver was cancelled (the system sheet left on screen).
    private(set) var cancelledAfterTheLoginReturned = false
    private var completion: (@Sendable (WebAuthenticationOutcome) -> Void)?
    private var startWaiters: [CheckedContinuation<Void, Never>] = []

    init(_ behaviour: Behaviour) { self.behaviour = behaviour }

    /// Returns once a session was started.
    func waitUntilStarted() async {
        if !requests.isEmpty { return }
        await withCheckedContinuation { startWaiters.append($0) }
    }

    func start(
        _ request: WebAuthenticationRequest, completion: @escaping @Sendable (WebAuthenticationOutcome) -> Void
    ) -> Bool {
        requests.append(request)
        self.completion = completion
        for waiter in startWaiters { waiter.resume() }
        startWaiters = []
        switch behaviour {
        case .consent(let decision):
            Task {
                do {
                    let location = try await HeadlessConsentBrowser(decision: decision).answer(request.url)
                    completion(.redirected(URL(string: location)!))
                } catch {
                    completion(.failed("\(error)"))
                }
            }
        case .report(let outcome): completion(outcome)
        case .redirect(let text): completion(.redirected(URL(string: text)!))
        case .hang: break
        case .refuseToStart: return false
        }
        return true
    }

    func cancel() {
        cancels += 1
        if loginReturned.withLock({ $0 }) { cancelledAfterTheLoginReturned = true }
        completion?(.userCancelled)
    }
}

@Suite("The system browser presenter through its driver (the ASWebAuthenticationSession logic, on every platform)")
struct SystemBrowserPresenterTests {
    static let appID = EmulatedApp.default.id

    /// A presenter whose driver is `driver`, made on the main actor when the login starts.
    static func presenter(
        _ driver: ScriptedDriver, redirectURI: URL = SystemBrowserPresenter.facebookRedirectURI(appID: appID),
        ephemeral: Bool = false
    ) throws -> SystemBrowserPresenter {
        try SystemBrowserPresenter(redirectURI: redirectURI, prefersEphemeralSession: ephemeral, driver: { driver })
    }

    static func login(_ emulator: RunningEmulator) -> LoginManager {
        let provider = LoginProvider.emulator(baseURL: emulator.baseURL, appID: appID)
        return LoginManager(
            provider: provider,
            credentials: CredentialsManager(
                store: InMemoryTokenStore(),
                authority: provider.dialect.sessionAuthority(
                    for: provider, transport: AsyncHTTPClientTransport(), idTokenValidator: nil)))
    }

    @Test("fb{app-id}://authorize: the custom-scheme callback, the ephemeral option, a session from the emulator")
    func customScheme() async throws {
        try await withEmulator { emulator in
            let driver = await ScriptedDriver(.consent(.grantAll))
            let presenter = try Self.presenter(driver, ephemeral: true)
            #expect(presenter.redirectURI.absoluteString == "fb111111111111111://authorize")
            let result = try await Self.login(emulator).logIn(presenter: presenter)
            #expect(result.session?.user?.name == TestUser.defaults[0].name)
            let request = try #require(await driver.requests.first)
            #expect(request.callback == .customScheme("fb111111111111111"))
            #expect(request.prefersEphemeralSession)
            #expect(request.url.absoluteString.contains("redirect_uri=fb111111111111111://authorize"))
        }
    }

    @Test("An https callback (an associated domain) is matched by host and path")
    func httpsCallback() async throws {
        try await withEmulator { emulator in
            let driver = await ScriptedDriver(.consent(.grantAll))
            let presenter = try Self.presenter(driver, redirectURI: URL(string: "https://app.example/callback")!)
            #expect(presenter.callback == .https(host: "app.example", path: "/callback"))
            let result = try await Self.login(emulator).logIn(presenter: presenter)
            #expect(result.session != nil)
            #expect(
                !WebAuthenticationCallback.https(host: "app.example", path: "/callback").matches(
                    URL(string: "https://app.example/other?code=x")!))
        }
    }

    @Test("The system's Cancel and the consent page's Cancel are cancelled results, not errors")
    func cancels() async throws {
        try await withEmulator { emulator in
            let closed = try await Self.login(emulator).logIn(
                presenter: try Self.presenter(await ScriptedDriver(.report(.userCancelled))))
            #expect(closed.isCancelled)
            #expect(closed.cancellation == .userCancelled)
            let declined = try await Self.login(emulator).logIn(
                presenter: try Self.presenter(await ScriptedDriver(.consent(.cancel))))
            #expect(declined.isCancelled)
        }
    }

    @Test("The driver's failures map to typed errors; a callback elsewhere is refused as a possible forgery")
    func failures() async throws {
        try await withEmulator { emulator in
            let cases: [(ScriptedDriver.Behaviour, MendError.Code)] = [
                (.report(.presentationContextNotProvided), .Login.presentationFailed),
                (.report(.presentationContextInvalid), .Login.presentationFailed),
                (.report(.failed("boom")), .Login.unknown),
                (.refuseToStart, .Login.unknown),
                (.redirect("otherapp://authorize?code=stolen"), .Login.badChallengeString),
            ]
            for (behaviour, code) in cases {
                let error = await #expect(throws: MendError.self) {
                    try await Self.login(emulator).logIn(presenter: try Self.presenter(await ScriptedDriver(behaviour)))
                }
                #expect(error?.code == code, "\(behaviour)")
            }
        }
    }

    @Test("A second login while one is on screen is login/322, and the first one goes on to its session")
    func secondStart() async throws {
        try await withEmulator { emulator in
            let driver = await ScriptedDriver(.hang)
            let presenter = try Self.presenter(driver)
            let login = Self.login(emulator)
            let first = Task { try await login.logIn(presenter: presenter) }
            await driver.waitUntilStarted()
            let second = await #expect(throws: MendError.self) { try await login.logIn(presenter: presenter) }
            #expect(second?.code == .Login.loginInProgress)
            #expect(await driver.requests.count == 1)
            first.cancel()
            await #expect(throws: CancellationError.self) { try await first.value }
            // The gate is free again.
            let again = try await login.logIn(presenter: try Self.presenter(await ScriptedDriver(.consent(.grantAll))))
            #expect(again.session != nil)
        }
    }

    @Test("Cancelling the waiting task cancels the system session and throws CancellationError")
    func taskCancellation() async throws {
        try await withEmulator { emulator in
            let driver = await ScriptedDriver(.hang)
            let login = Self.login(emulator)
            let presenter = try Self.presenter(driver)
            let task = Task { try await login.logIn(presenter: presenter) }
            await driver.waitUntilStarted()
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(await driver.cancels == 1)
        }
    }

    @Test("A cancelled login returns only after the system session was told to close, even when the main actor is busy")
    func cancellationWaitsForTheDriver() async throws {
        try await withEmulator { emulator in
            let driver = await ScriptedDriver(.hang)
            let login = Self.login(emulator)
            let presenter = try Self.presenter(driver)
            let task = Task {
                defer { driver.loginReturned.withLock { $0 = true } }
                return try await login.logIn(presenter: presenter)
            }
            await driver.waitUntilStarted()
            await MainActor.run {
                task.cancel()
                // The app's main thread is busy (drawing, a long layout): the driver can only be cancelled after it.
                // A login that returned meanwhile would leave the system sheet on screen for a login that ended.
                Thread.sleep(forTimeInterval: 0.3)
            }
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(await driver.cancels == 1)
            #expect(await !driver.cancelledAfterTheLoginReturned)
        }
    }

    @Test("Redirect URIs no system session can end at are refused when the presenter is made (login/321)")
    func unusableRedirects() async throws {
        let driver = await ScriptedDriver(.hang)
        for text in ["http://127.0.0.1/callback", "https:///callback", "https:callback", "/callback"] {
            let url = try #require(URL(string: text))
            let error = #expect(throws: MendError.self) {
                try SystemBrowserPresenter(redirectURI: url, driver: { driver })
            }
            #expect(error?.code == .Login.presentationFailed, "\(text)")
        }
    }
}
