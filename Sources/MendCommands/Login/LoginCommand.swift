import ArgumentParser
import Foundation
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer

/// `mend login`: log in without a vendor SDK (PKCE, state, nonce; a loopback redirect).
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract:
            "Log in through the browser: PKCE, state and a loopback redirect; the session goes to the state folder.",
        discussion: """
            Examples:
              mend login --app-id 1234 --backend https://api.example.com
              mend login --provider oidc --issuer https://id.example.com --app-id app
              mend login --provider google --app-id 1234-abc.apps.googleusercontent.com
              mend login --device --app-id 1234 --client-token abcd

            Against mend emulate (its address instead of http://127.0.0.1:8080):
              mend login --base-url http://127.0.0.1:8080 --app-id 111111111111111 \\
                --headless
              mend login --provider google --issuer http://127.0.0.1:8080/google \\
                --app-id mend-ios.apps.googleusercontent.com --headless

            Device login (--device) shows a code and an address to open on a phone or a computer, and waits for \
            the answer there. It is the default when no browser can be opened here (an SSH session, or Linux \
            without a display) and the provider can do it: Facebook with the app's client token (--client-token or \
            MEND_CLIENT_TOKEN), an OpenID Connect provider with a device authorization endpoint (a client secret, \
            if the client has one, from MEND_CLIENT_SECRET).

            A passkey (--passkey) signs in at the backend alone, with no provider and no app id: \
            mend login --passkey --backend https://api.example.com. Add one first with `mend passkeys add` after \
            another login. \(SoftwarePasskeys.note)
            """
    )

    @Option(
        name: .long,
        help: "facebook (default), google, or oidc (any OpenID Connect issuer, with --issuer); apple explains why not.")
    var provider = "facebook"

    @Option(
        name: .long,
        help: "The OIDC issuer, whose discovery document names the endpoints (google: https://accounts.google.com).")
    var issuer: String?

    @Option(name: .long, help: "The app (client) id (not with --passkey).")
    var appID: String?

    @Option(
        name: .long,
        help: "Scopes, comma-separated (default: public_profile,email for facebook; openid,email,profile otherwise).")
    var scopes: String?

    @Option(name: .long, help: "The app's backend (mend-server): exchange the code there instead of at the provider.")
    var backend: String?

    @Option(name: .long, help: "A Facebook-compatible provider at another address (mend emulate).")
    var baseURL: String?

    @Option(name: .customLong("api-version"), help: "The Graph API version (`--version` is the tool's own).")
    var version = GraphAPI.defaultVersion

    @Flag(
        name: .long,
        help: "Log in with a code entered on another device (TVs, SSH); the default when no browser can be opened.")
    var device = false

    @Option(
        name: .long,
        help: "The app's client token, for device login at Facebook (default: $MEND_CLIENT_TOKEN); not a secret.")
    var clientToken: String?

    @Flag(name: .long, help: "Print the login URL instead of opening a browser.")
    var noBrowser = false

    @Flag(name: .long, help: "Answer the consent page without a browser, granting everything (the emulator's page).")
    var headless = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Sign in at --backend with a passkey of the software authenticator (a development aid: its keys are in "
                + "the state folder), instead of a provider."))
    var passkey = false

    @Option(
        name: .long,
        help: "With --passkey: the origin of the ceremony (default: https:// and the backend's RP ID).")
    var origin: String?

    @Option(name: .long, help: "Where the session is kept (default: $XDG_STATE_HOME/mend).")
    var stateDirectory: String?

    @Option(name: .long, help: "Seconds to wait for the browser.")
    var timeout = 300

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Print the result as JSON on standard output: {\"loggedIn\", \"cancelled\", \"reason\", \"user\", "
                + "\"granted\", \"declined\", \"refreshable\"}, or an error report; what the person must do (a device "
                + "code) goes to standard error."))
    var json = false

    func validate() throws {
        if provider == "apple" {
            // Apple's rules, which the emulated Apple issuer enforces too: its authorization endpoint redirects only
            // to a registered https URL (never a loopback address), and posts its answer there (form_post) when
            // names or e-mail are asked for, so no terminal can receive it.
            throw ValidationError(
                "Sign in with Apple cannot return to a terminal: Apple redirects only to a registered https URL, never "
                    + "to a loopback address, and posts its answer to that server. Sign in with Apple in the app "
                    + "(AuthenticationServices) and send its id_token to mend-server (POST /v1/login/id_token, "
                    + "docs/server.md), or on the web through your own server.")
        }
        if passkey {
            guard backend != nil else { throw ValidationError("--passkey signs in at a backend: give --backend.") }
            if device || headless || noBrowser {
                throw ValidationError("--passkey opens no browser: leave out --device, --headless and --no-browser.")
            }
        } else if appID == nil {
            throw ValidationError("Missing expected argument '--app-id <app-id>'")
        }
        if origin != nil, !passkey { throw ValidationError("--origin is for --passkey.") }
        guard ["facebook", "google", "oidc"].contains(provider) else {
            throw ValidationError("--provider is facebook, google or oidc.")
        }
        if provider == "oidc", issuer == nil { throw ValidationError("--provider oidc needs --issuer.") }
        if device, headless || noBrowser {
            throw ValidationError("--device does not open a browser: leave out --headless and --no-browser.")
        }

        for url in [backend, baseURL, issuer].compactMap({ $0 }) where URL(string: url)?.host == nil {
            throw ValidationError("'\(url)' is not an absolute URL.")
        }
    }

    func run() async throws {
        let directory = LoginProfile.directory(stateDirectory)
        // Before the browser opens: a folder the session cannot be kept in is the setup's problem, said now (it was
        // found after the whole login, as a retryable "Something went wrong").
        do {
            try FileTokenStore(url: directory.appendingPathComponent("session.json")).prepare()
        } catch {
            throw Failure.report(error, json: json)
        }
        if passkey, let backend {
            return try await SoftwarePasskeys.logIn(
                backend: backend, directory: directory, origin: origin, version: version, json: json)
        }
        let profile = LoginProfile(
            provider: provider, appID: appID ?? "", baseURL: baseURL, issuer: issuer, backend: backend, version: version
        )
        let transport = AsyncHTTPClientTransport()
        let credentials: CredentialsManager
        let loginProvider: LoginProvider
        do {
            loginProvider = try await profile.loginProvider(transport: transport)
            credentials = CredentialsManager(
                store: FileTokenStore(url: directory.appendingPathComponent("session.json")),
                authority: profile.authority(provider: loginProvider, transport: transport),
                responseStore: LoginProfile.answers(directory: directory))
        } catch let error as MendError {
            throw Failure.report(error)
        }
        let defaultScopes = profile.isOpenIDConnect ? "openid,email,profile" : "public_profile,email"
        let login = LoginManager(
            provider: loginProvider, credentials: credentials,
            defaultScopes: (scopes ?? defaultScopes).split(separator: ",").map(String.init))
        if device || (!headless && !noBrowser && DeviceLoginCommand.noBrowserHere() != nil) {
            let command = DeviceLoginCommand(
                provider: loginProvider, profile: profile, directory: directory, credentials: credentials,
                clientToken: clientToken ?? ToolVariable.clientToken.value(),
                clientSecret: ToolVariable.clientSecret.value(),
                scopes: (scopes ?? defaultScopes).split(separator: ",").map(String.init), transport: transport,
                backend: profile.backendClient(transport: transport), output: LoginOutput(json: json))
            if device || command.isAvailable {
                if !device, let reason = DeviceLoginCommand.noBrowserHere() {
                    StandardError.write("No browser can be opened here (\(reason)): using device login.")
                }
                return try await command.run()
            }
        }
        let opener: BrowserOpener =
            headless ? .custom { url in try await HeadlessConsentBrowser().open(url) } : noBrowser ? .printURL : .system
        let spinner = Spinner(message: "Waiting for the login to finish in the browser")
        if !headless { spinner.start() }
        defer { spinner.stop() }
        do {
            let result = try await login.logIn(
                presenter: LoopbackBrowserPresenter(opener: opener, timeout: .seconds(timeout)))
            spinner.stop()
            let output = LoginOutput(json: json)
            if result.isCancelled {
                output.cancelled(reason: "userCancelled", message: "Login cancelled.")
                return
            }
            try profile.save(to: directory)
            output.loggedIn(result.session, granted: result.grantedPermissions, declined: result.declinedPermissions)
        } catch let error as MendError {
            spinner.stop()
            throw Failure.report(error, json: json)
        }
    }
}

/// What `mend login` prints: words, or with `--json` one JSON object on standard output.
struct LoginOutput {
    /// Whether standard output holds one JSON object.
    let json: Bool

    /// What the person must do (open an address, enter a code): standard output, or standard error with `--json`, so
    /// that standard output holds the JSON alone.
    func instructions(_ text: String) {
        if json { StandardError.write(text) } else { print(text) }
        fflush(nil)  // visible before the wait, whatever buffers it
    }

    /// A login that ended without a session: `reason` is `userCancelled`, `declined` or `expired`.
    func cancelled(reason: String, message: String) {
        guard json else { return print(message) }
        print(
            JSONValue.object([
                "loggedIn": .bool(false), "cancelled": .bool(true), "reason": .string(reason),
                "message": .string(message),
            ]).jsonText())
    }

    /// A login that stored `session`; `note` is a remark for people (the text output only).
    func loggedIn(_ session: Session?, granted: Set<String>, declined: Set<String>, note: String? = nil) {
        let user = session?.user
        if json {
            let userObject = user.map { user in
                JSONValue.object([
                    "id": .string(user.id), "name": user.name.map(JSONValue.string) ?? .null,
                    "email": user.email.map(JSONValue.string) ?? .null,
                ])
            }
            print(
                JSONValue.object([
                    "loggedIn": .bool(true), "cancelled": .bool(false), "user": userObject ?? .null,
                    "granted": .array(granted.sorted().map(JSONValue.string)),
                    "declined": .array(declined.sorted().map(JSONValue.string)),
                    "refreshable": .bool(session?.refreshToken != nil),
                ]).jsonText())
            return
        }
        print("Logged in as \(user?.name ?? user?.id ?? "?") (\(user?.id ?? "?")).")
        print("Granted: \(granted.sorted().joined(separator: ", "))")
        if let note { print(note) }
        if !declined.isEmpty {
            print("Declined: \(declined.sorted().joined(separator: ", ")) (ask again only when needed)")
        }
    }
}

/// Prints a classified error the way every login command does, and exits 1.
enum Failure {
    /// With `json`, the error report (`mend explain --json`'s fields) on standard output; else the words on standard
    /// error.
    static func report(_ error: MendError, json: Bool) -> ExitCode {
        guard json else { return report(error) }
        print(ErrorReport.json(ErrorReport(error, locale: Locale(identifier: MendLocalization.preferredLanguage))))
        return ExitCode(1)
    }

    /// The developer's cause first (the path, the URL, the reason), then the code and what to do; the app user's
    /// words last, as what an app would show.
    static func report(_ error: MendError) -> ExitCode {
        let locale = Locale(identifier: MendLocalization.preferredLanguage)
        StandardError.write(
            """
            error: \(Redactor.standard.redact(text: error.developerMessage))
              code:      \(error.codePath) \(error.name) (\(error.category.rawValue); \(error.recovery))
              reference: \(error.referenceID ?? "— (never reached the API)")
              an app shows: \(error.userTitle(locale: locale)): \(error.userMessage(locale: locale))
            """)
        return ExitCode(1)
    }

    /// No token and no session: the command sent nothing. Says how to log in — on standard error, or with `json` as
    /// an error report (login/310) on standard output — and returns ``ExitCodes/notLoggedIn``.
    static func notLoggedIn(command: String, json: Bool) -> ExitCode {
        let advice =
            "Not logged in: `mend \(command)` sends no request without a token. Run `mend login`, or give a token "
            + "with --token or MEND_ACCESS_TOKEN."
        if json {
            let error = MendError(code: .Login.missingAccessToken, developerMessage: advice, catalog: .login)
            print(ErrorReport.json(ErrorReport(error, locale: Locale(identifier: MendLocalization.preferredLanguage))))
        } else {
            StandardError.write(advice)
        }
        return ExitCode(ExitCodes.notLoggedIn)
    }
}

/// A spinner on standard error while the browser is open (only when standard error is a terminal).
///
/// Frames are written under the same lock that ``stop()`` clears the line under: once stopped, no frame can
/// follow the cleared line and land in the middle of what the command prints next.
final class Spinner: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var running = false
    }

    private let state = Locked(State())
    let message: @Sendable () -> String

    init(message: String) { self.message = { message } }

    /// A spinner whose text is read at every frame (a countdown).
    init(dynamic message: @escaping @Sendable () -> String) { self.message = message }

    func start() {
        guard isatty(STDERR_FILENO) != 0 else { return }
        let message = self.message
        let state = self.state
        state.withLock { $0.running = true }
        let task = Task {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            while !Task.isCancelled {
                let frame = Data("\r\u{1B}[K\(frames[index % frames.count]) \(message())…".utf8)
                let wrote = state.withLock { state -> Bool in
                    guard state.running else { return false }
                    FileHandle.standardError.write(frame)
                    return true
                }
                guard wrote else { return }
                index += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        state.withLock { $0.task = task }
    }

    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.running else { return nil }
            state.running = false
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }
}
