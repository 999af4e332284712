public import Foundation

/// Shows the provider's login page and brings back where it redirected.
///
/// ``LoopbackBrowserPresenter`` does it for command-line and desktop apps (RFC 8252); an Apple app conforms its
/// ASWebAuthenticationSession to this protocol. Never an embedded web view the app could read.
public protocol LoginPresenter: Sendable {
    /// Prepares a presentation: after this, its redirect URI is known (a loopback port is bound, say).
    func begin() async throws -> any LoginPresentation
}

/// One presentation of the login page.
public protocol LoginPresentation: Sendable {
    /// The redirect URI the authorization request must name.
    var redirectURI: URL { get }
    /// Shows `authorizationURL` and waits for the redirect carrying `state`.
    ///
    /// - Returns: The redirect URL as received, or `nil` when the user closed the login without answering.
    func present(_ authorizationURL: URL, state: String) async throws -> String?
    /// Releases what ``LoginPresenter/begin()`` took (the loopback port).
    func end()
}

/// How a loopback presenter shows the login page.
public enum BrowserOpener: Sendable {
    /// The system browser (`open` on macOS, `xdg-open` elsewhere); when none can be started, the URL is printed.
    case system
    /// Print the URL to standard error, for the user to open (`--no-browser`).
    case printURL
    /// Your own code (a test's or a demo's headless browser).
    case custom(@Sendable (URL) async throws -> Void)

    func open(_ url: URL) async throws {
        switch self {
        case .custom(let open):
            try await open(url)
        case .printURL:
            Self.print(url)
        case .system:
            #if os(macOS)
                let command = "/usr/bin/open"
            #else
                let command = "/usr/bin/xdg-open"
            #endif
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = [url.absoluteString]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                Self.print(url)
            }
        }
    }

    private static func print(_ url: URL) {
        FileHandle.standardError.write(Data("Open this URL in a browser to log in:\n\(url.absoluteString)\n".utf8))
    }
}

/// Logs in through a browser and a loopback redirect receiver (RFC 8252 §7.3): for command-line and desktop apps.
public struct LoopbackBrowserPresenter: LoginPresenter {
    /// Which loopback address the presenter listens on.
    public enum Address: Sendable {
        /// `127.0.0.1`.
        case ipv4
        /// `[::1]`.
        case ipv6
    }

    /// How the login page is shown.
    package var opener: BrowserOpener
    /// The redirect's path.
    package var path: String
    /// Which loopback address to listen on.
    package var address: Address
    /// How long to wait for the user.
    package var timeout: Duration

    /// Creates a presenter.
    public init(
        opener: BrowserOpener = .system, path: String = "/callback", address: Address = .ipv4,
        timeout: Duration = .seconds(300)
    ) {
        self.opener = opener
        self.path = path
        self.address = address
        self.timeout = timeout
    }

    /// Binds the receiver.
    public func begin() async throws -> any LoginPresentation {
        Presentation(
            receiver: try LoopbackRedirectReceiver(path: path, address: address), opener: opener, timeout: timeout)
    }

    struct Presentation: LoginPresentation {
        let receiver: LoopbackRedirectReceiver
        let opener: BrowserOpener
        let timeout: Duration

        var redirectURI: URL { receiver.redirectURI }

        func present(_ authorizationURL: URL, state: String) async throws -> String? {
            async let redirect = receiver.waitForRedirect(state: state, timeout: timeout)
            try await opener.open(authorizationURL)
            return try await redirect
        }

        func end() { receiver.close() }
    }
}
