import ArgumentParser
import Foundation
import MendCore
import MendHTTP
import MendLogin

/// `mend login --device`: device login — the code and the address on standard output, a countdown on standard
/// error while the person answers on another device, then the session stored like any login's.
struct DeviceLoginCommand {
    let provider: LoginProvider
    let profile: LoginProfile
    let directory: URL
    let credentials: CredentialsManager
    let clientToken: String?
    let clientSecret: String?
    let scopes: [String]
    let transport: any HTTPTransport
    /// The app's backend: it turns the provider token into an app session (`POST /v1/login/provider-token`).
    let backend: BackendSessionClient?
    /// Words, or JSON (`--json`).
    let output: LoginOutput

    /// Why no browser can be opened here, or `nil` when one can: an SSH session, or Linux without a display.
    static func noBrowserHere(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if environment["SSH_CONNECTION"] != nil || environment["SSH_TTY"] != nil { return "an SSH session" }
        #if os(Linux)
            if (environment["DISPLAY"] ?? "").isEmpty, (environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
                return "no display"
            }
        #endif
        return nil
    }

    /// Whether the provider can do device login with what was given (its dialect says: Facebook with a client token,
    /// an OpenID Connect provider with a device authorization endpoint).
    var isAvailable: Bool {
        (try? provider.dialect.deviceLoginWire(for: provider, clientToken: clientToken, clientSecret: clientSecret))
            != nil
    }

    func run() async throws {
        let device = DeviceLogin(
            provider: provider, clientToken: clientToken, clientSecret: clientSecret, transport: transport,
            idTokenValidator: profile.idTokenValidator(provider: provider, transport: transport))
        let locale = Locale(identifier: MendLocalization.preferredLanguage)
        do {
            let authorization = try await device.start(scopes: scopes)
            let minutes = max(1, Int(authorization.expiresIn.components.seconds + 59) / 60)
            output.instructions(
                """
                To log in, open \(authorization.verificationURI) on a phone or a computer and enter the code:

                    \(authorization.userCode)

                The code expires in \(minutes) minute\(minutes == 1 ? "" : "s").
                """)
            let deadline = ContinuousClock.now + authorization.expiresIn
            let spinner = Spinner(dynamic: {
                let left = max(0, (deadline - ContinuousClock.now).components.seconds)
                return "Waiting for the code to be entered (\(left / 60):\(String(format: "%02d", left % 60)) left)"
            })
            spinner.start()
            defer { spinner.stop() }
            let result = try await device.waitForApproval(authorization)
            spinner.stop()
            guard var session = result.session else {
                let key = result.cancellation?.messageKey
                output.cancelled(
                    reason: result.cancellation.map { "\($0)" } ?? "userCancelled",
                    message: key.map { "\($0.title(locale: locale)): \($0.message(locale: locale))" }
                        ?? "Login cancelled.")
                return
            }
            if let backend {
                let user = session.user
                session = try await backend.exchange(providerToken: session.accessToken.tokenString)
                if session.user == nil { session.user = user }
            }
            try await credentials.signIn(session)
            try profile.save(to: directory)
            var note: String?
            if backend == nil, session.refreshToken == nil {
                let expiry = session.accessToken.expirationDate.map { " (it expires \($0.formatted(.iso8601)))" } ?? ""
                note =
                    "This session is the provider's token alone\(expiry): it cannot be refreshed; log in again when it "
                    + "expires. With --backend, mend-server turns it into a session that refreshes."
            }
            output.loggedIn(
                session, granted: result.grantedPermissions, declined: result.declinedPermissions, note: note)
        } catch let error as MendError {
            throw Failure.report(error, json: output.json)
        }
    }
}
