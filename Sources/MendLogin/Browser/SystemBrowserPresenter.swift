public import Foundation
public import MendCore

/// Where a system browser session hands the login back: a custom scheme (`fb1234://authorize`, the app's own), or
/// an `https` URL of the app's associated domain.
package enum WebAuthenticationCallback: Sendable, Hashable {
    /// Any URL of this scheme (compared without case).
    case customScheme(String)
    /// An `https` URL on this host and path (an associated domain; iOS 17.4 and macOS 14.4 or later).
    case https(host: String, path: String)

    /// Whether `url` is a callback of this kind.
    package func matches(_ url: URL) -> Bool {
        switch self {
        case .customScheme(let scheme):
            return url.scheme?.lowercased() == scheme.lowercased()
        case .https(let host, let path):
            guard url.scheme?.lowercased() == "https", url.host?.lowercased() == host.lowercased() else {
                return false
            }
            let actual = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? ""
            return (actual.isEmpty ? "/" : actual) == (path.isEmpty ? "/" : path)
        }
    }
}

/// One start of a system browser session, as a ``WebAuthenticationDriver`` receives it.
package struct WebAuthenticationRequest: Sendable, Hashable {
    /// The authorization URL to show.
    package var url: URL
    /// Where the session ends.
    package var callback: WebAuthenticationCallback
    /// Whether to keep no cookies from the system browser (no single sign-on, and nothing left behind).
    package var prefersEphemeralSession: Bool
}

/// How a system browser session ended, as a ``WebAuthenticationDriver`` reports it.
package enum WebAuthenticationOutcome: Sendable, Hashable {
    /// It reached the callback, with this URL.
    case redirected(URL)
    /// The person closed it (Cancel): the login is cancelled, not failed.
    case userCancelled
    /// No presentation anchor was given (the app's mistake).
    case presentationContextNotProvided
    /// The presentation anchor cannot show the session (a window not on screen).
    case presentationContextInvalid
    /// Anything else, in words.
    case failed(String)
}

/// The seam to the system's browser session (ASWebAuthenticationSession on Apple platforms): everything the
/// presenter decides — URL, callback matching, error mapping, cancellation, a second start while one runs — is in
/// ``SystemBrowserPresenter``, tested on every platform with a driver of the test's own; the driver only starts and
/// cancels.
package protocol WebAuthenticationDriver: AnyObject, Sendable {
    /// Starts a session for `request`. `completion` must be called once, when it ends; it is not called when the
    /// session does not start.
    ///
    /// - Returns: Whether the session started.
    @MainActor func start(
        _ request: WebAuthenticationRequest, completion: @escaping @Sendable (WebAuthenticationOutcome) -> Void
    ) -> Bool

    /// Ends a running session (the task that waits for it was cancelled). The driver may still call `completion`.
    @MainActor func cancel()
}

/// Logs in through the system browser session (ASWebAuthenticationSession on iOS, macOS and visionOS): a custom
/// scheme (`fb{app-id}://authorize` or the app's own) or an `https` callback, ephemeral sessions as an option, the
/// system's Cancel as a cancelled login (not an error), and an anchor the app supplies.
///
/// ```swift
/// let presenter = try SystemBrowserPresenter.facebook(appID: "1234", anchor: { view.window! })
/// let result = try await login.logIn(presenter: presenter)
/// ```
///
/// Errors: a redirect URI that no system session can catch (`http`, no scheme) is `login/321` when the presenter is
/// made; no anchor or one that cannot present is `login/321`; a second login while one is on screen is `login/322`
/// (the first goes on); a callback that is not the redirect URI's is `login/308`. Cancelling the waiting task ends
/// the session and throws `CancellationError`.
public struct SystemBrowserPresenter: LoginPresenter {
    /// The redirect URI the authorization request names.
    package let redirectURI: URL
    /// Where the system session ends, derived from ``redirectURI``.
    package let callback: WebAuthenticationCallback
    /// Whether to keep no browser cookies (no single sign-on with the browser, nothing left behind).
    package var prefersEphemeralSession: Bool
    let makeDriver: @MainActor @Sendable () -> any WebAuthenticationDriver
    let gate = PresentationGate()

    /// A presenter with your own driver (tests, or a platform Mend has no adapter for).
    ///
    /// - Throws: `login/321` when `redirectURI` cannot end a system browser session: `http`, no scheme, `https`
    ///   without a host.
    package init(
        redirectURI: URL, prefersEphemeralSession: Bool = false,
        driver: @escaping @MainActor @Sendable () -> any WebAuthenticationDriver
    ) throws(MendError) {
        self.redirectURI = redirectURI
        self.callback = try Self.callback(for: redirectURI)
        self.prefersEphemeralSession = prefersEphemeralSession
        self.makeDriver = driver
    }

    /// The callback a redirect URI stands for: a custom scheme, or an `https` host and path.
    static func callback(for redirectURI: URL) throws(MendError) -> WebAuthenticationCallback {
        guard let scheme = redirectURI.scheme?.lowercased(), !scheme.isEmpty else {
            throw Self.unusable("The redirect URI \(redirectURI.absoluteString) has no scheme.")
        }
        switch scheme {
        case "https":
            guard let host = redirectURI.host, !host.isEmpty else {
                throw Self.unusable("The https redirect URI \(redirectURI.absoluteString) has no host.")
            }
            let path = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)?.path ?? ""
            return .https(host: host, path: path.isEmpty ? "/" : path)
        case "http":
            throw Self.unusable(
                "A system browser session cannot end at an http URL (\(redirectURI.absoluteString)): use a custom "
                    + "scheme, an https associated domain, or LoopbackBrowserPresenter.")
        default:
            // RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
            let valid =
                scheme.first?.isLetter == true
                && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            guard valid else { throw Self.unusable("The redirect URI's scheme \(scheme) is not a valid scheme.") }
            return .customScheme(scheme)
        }
    }

    static func unusable(_ message: String) -> MendError {
        MendError.login(.Login.presentationFailed, message)
    }

    /// Prepares a presentation (nothing to bind: the redirect URI is fixed).
    public func begin() async throws -> any LoginPresentation {
        Presentation(presenter: self)
    }

    struct Presentation: LoginPresentation {
        let presenter: SystemBrowserPresenter
        var redirectURI: URL { presenter.redirectURI }

        func present(_ authorizationURL: URL, state: String) async throws -> String? {
            guard presenter.gate.enter() else {
                throw MendError.login(
                    .Login.loginInProgress,
                    "A login is already on screen; this one was not started (the first one goes on).")
            }
            defer { presenter.gate.leave() }
            try Task.checkCancellation()
            let request = WebAuthenticationRequest(
                url: authorizationURL, callback: presenter.callback,
                prefersEphemeralSession: presenter.prefersEphemeralSession)
            let session = RunningSession()
            let makeDriver = presenter.makeDriver
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<WebAuthenticationOutcome, Never>) in
                    session.setContinuation(continuation)
                    Task { @MainActor in
                        guard !session.isCancelled else { return session.finish(.userCancelled) }
                        let driver = makeDriver()
                        // Cancelled between the check and here: never show a sheet for a login that ended.
                        guard session.setDriver(driver) else { return session.finish(.userCancelled) }
                        let started = driver.start(request) { outcome in session.finish(outcome) }
                        if !started { session.finish(.failed("the system browser session did not start")) }
                    }
                }
            } onCancel: {
                session.cancel()
            }
            try Task.checkCancellation()
            switch outcome {
            case .redirected(let url):
                guard presenter.callback.matches(url) else {
                    throw MendError.login(
                        .Login.badChallengeString,
                        "The system browser session ended at a URL that is not the redirect URI's.")
                }
                return url.absoluteString
            case .userCancelled:
                return nil
            case .presentationContextNotProvided:
                throw SystemBrowserPresenter.unusable(
                    "The system browser session has no presentation anchor: give the presenter the window to show it "
                        + "from.")
            case .presentationContextInvalid:
                throw SystemBrowserPresenter.unusable(
                    "The presentation anchor cannot show the system browser session (is the window on screen?).")
            case .failed(let reason):
                throw MendError.login(.Login.unknown, "The system browser session failed: \(reason).")
            }
        }

        func end() {}
    }
}

/// One login on screen at a time, per presenter.
final class PresentationGate: Sendable {
    private let busy = Locked(false)

    /// Takes the gate; `false` when a login is on screen.
    func enter() -> Bool {
        busy.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
    }

    func leave() { busy.withLock { $0 = false } }
}

/// One running system session: its driver, the continuation that waits for it, and a cancellation that may come
/// before the driver exists. The continuation is resumed once, whatever calls first.
final class RunningSession: Sendable {
    private struct State {
        var continuation: CheckedContinuation<WebAuthenticationOutcome, Never>?
        var driver: (any WebAuthenticationDriver)?
        var cancelled = false
        var finished = false
    }

    private let state = Locked(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Keeps the continuation; resumes it at once when the session already finished (a cancellation came first).
    func setContinuation(_ continuation: CheckedContinuation<WebAuthenticationOutcome, Never>) {
        let finishedFirst = state.withLock { state -> Bool in
            if state.finished { return true }
            state.continuation = continuation
            return false
        }
        if finishedFirst { continuation.resume(returning: .userCancelled) }
    }

    /// Keeps the driver about to start; `false` (and the driver not kept) when the wait was already cancelled.
    func setDriver(_ driver: any WebAuthenticationDriver) -> Bool {
        state.withLock { state in
            if state.cancelled { return false }
            state.driver = driver
            return true
        }
    }

    /// Resumes the waiting task with `outcome`, the first time only.
    func finish(_ outcome: WebAuthenticationOutcome) {
        let continuation = state.withLock { state -> CheckedContinuation<WebAuthenticationOutcome, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// The waiting task was cancelled: cancel the driver (on the main actor), then end the wait — so that the login
    /// never returns while its system session is still on screen. Without a driver yet, the wait ends at once and no
    /// driver will start.
    func cancel() {
        let driver = state.withLock { state -> (any WebAuthenticationDriver)? in
            state.cancelled = true
            return state.driver
        }
        guard let driver else { return finish(.userCancelled) }
        Task { @MainActor in
            driver.cancel()
            self.finish(.userCancelled)
        }
    }
}
