import Foundation
import HTTPTypes
import MendCore

/// A device login waiting for its user: the code the device polls with, the code the user enters, and the answer.
struct DeviceAuthorization: Sendable, Hashable {
    /// What the user answered on the device page (or the control API did).
    enum Answer: Sendable, Hashable {
        /// Not yet.
        case pending
        /// Approved, as `userID`, with these scopes granted.
        case approved(userID: String, granted: [String], denied: [String])
        /// Declined.
        case declined
        /// Approved and already turned into a token: the code cannot be used again.
        case used
    }

    /// The long code the device polls with (`code`, RFC 8628 `device_code`).
    var deviceCode: String
    /// The short code the user enters (`user_code`).
    var userCode: String
    var appID: String
    var scopes: [String]
    var expiresAt: Date
    /// The interval the device must keep between polls, in seconds; "slow down" adds 5.
    var interval: Int
    var lastPoll: Date?
    var answer: Answer = .pending
    /// Which wire the login was started on: the provider's (`device/login`) or RFC 8628 (an issuer's).
    var isRFC8628: Bool
}

/// Why a device poll did not give a token, in terms both wires share (RFC 8628 §3.5 and the provider's subcodes).
enum DevicePollRefusal: Error, Sendable, Hashable {
    case authorizationPending
    case slowDown
    case accessDenied
    case expiredToken
    case invalidCode

    /// The provider's error (`code`, `error_subcode`, message, user title and message).
    var graphFailure: GraphFailure {
        switch self {
        case .authorizationPending:
            GraphFailure(
                code: 31, subcode: 1_349_174, message: "This request requires the user to take a pending action",
                userTitle: "Device Login Authorization Pending",
                userMessage: "User has not yet authorized your application. Continue polling.")
        case .slowDown:
            GraphFailure(
                code: 17, subcode: 1_349_172, message: "User request limit reached",
                userTitle: "OAuth Device Excessive Polling",
                userMessage: "Your device is polling too frequently. Space your requests with a minimum interval of "
                    + "5 seconds.", isTransient: true)
        case .accessDenied:
            GraphFailure(
                code: 31, subcode: 1_349_173, message: "The user declined the device login",
                userTitle: "Device Login Declined", userMessage: "The person declined to log in on this device.")
        case .expiredToken:
            GraphFailure(
                code: 463, subcode: 1_349_152, message: "The session has expired",
                userTitle: "Activation Code Expired",
                userMessage: "The code you entered has expired. Please go back to your device for a new code and "
                    + "try again.")
        case .invalidCode:
            GraphFailure(code: 100, message: "(#100) The code is not a valid device login code.")
        }
    }

    /// The RFC 8628 `error` value.
    var oauthError: String {
        switch self {
        case .authorizationPending: "authorization_pending"
        case .slowDown: "slow_down"
        case .accessDenied: "access_denied"
        case .expiredToken: "expired_token"
        case .invalidCode: "invalid_grant"
        }
    }
}

extension EmulatorState {
    /// Starts a device login for `app`: a long device code, a short user code (8 letters and digits that cannot
    /// be confused), the code's lifetime and the polling interval from the configuration.
    mutating func startDeviceLogin(appID: String, scopes: [String], isRFC8628: Bool) -> DeviceAuthorization {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ23456789")
        var userCode = ""
        repeat {
            userCode = String((0..<8).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        } while deviceLogins.values.contains { $0.userCode == userCode }
        let authorization = DeviceAuthorization(
            deviceCode: random.alphanumeric(32), userCode: userCode, appID: appID, scopes: scopes,
            expiresAt: now.addingTimeInterval(TimeInterval(configuration.deviceCodeLifetime)),
            interval: configuration.deviceLoginInterval, isRFC8628: isRFC8628)
        deviceLogins[authorization.deviceCode] = authorization
        return authorization
    }

    /// One poll of a device login by `appID`: who approved and what they granted (the caller issues the tokens), else
    /// why not. A poll sooner than the interval
    /// after the last one is "slow down", and the interval grows by 5 seconds for this and every later poll (RFC
    /// 8628 §3.5); expiry is checked first.
    mutating func pollDeviceLogin(
        deviceCode: String, appID: String
    ) -> Result<(userID: String, granted: [String]), DevicePollRefusal> {
        guard var authorization = deviceLogins[deviceCode], authorization.appID == appID else {
            return .failure(.invalidCode)
        }
        defer { deviceLogins[deviceCode] = authorization }
        if now >= authorization.expiresAt { return .failure(.expiredToken) }
        let previous = authorization.lastPoll
        authorization.lastPoll = now
        if let previous, now.timeIntervalSince(previous) < TimeInterval(authorization.interval) {
            authorization.interval += 5
            return .failure(.slowDown)
        }
        if authorization.answer == .pending {
            // Auto-consent answers at the first poll, as the login dialog answers at once.
            let chosen: Set<String>?
            switch autoConsent {
            case .manual: chosen = nil
            case .grantAll: chosen = Set(authorization.scopes)
            case .grant(let scopes): chosen = Set(scopes)
            case .deny:
                chosen = nil
                authorization.answer = .declined
            }
            if let chosen {
                let (granted, denied) = recordConsent(
                    appID: appID, userID: defaultUserID, scopes: authorization.scopes, chosen: chosen,
                    rerequest: false)
                authorization.answer = .approved(userID: defaultUserID, granted: granted, denied: denied)
            }
        }
        switch authorization.answer {
        case .pending: return .failure(.authorizationPending)
        case .declined: return .failure(.accessDenied)
        case .used: return .failure(.invalidCode)
        case .approved(let userID, let granted, _):
            authorization.answer = .used
            return .success((userID, granted))
        }
    }

    /// Answers a pending device login by its user code, as the device page or the control API does: approve as
    /// `userID` with the `chosen` scopes, or decline (`chosen == nil`). Returns `false` for an unknown, expired or
    /// already answered code.
    mutating func answerDeviceLogin(userCode: String, userID: String, chosen: Set<String>?) -> Bool {
        let normalized = Self.normalizeUserCode(userCode)
        guard
            let authorization = deviceLogins.values.first(where: { $0.userCode == normalized }),
            authorization.answer == .pending, now < authorization.expiresAt, users[userID] != nil
        else { return false }
        guard let chosen else {
            deviceLogins[authorization.deviceCode]?.answer = .declined
            return true
        }
        let (granted, denied) = recordConsent(
            appID: authorization.appID, userID: userID, scopes: authorization.scopes, chosen: chosen,
            rerequest: false)
        deviceLogins[authorization.deviceCode]?.answer = .approved(userID: userID, granted: granted, denied: denied)
        return true
    }

    /// Every device login, for `GET /_emulator/device` (without device codes), oldest expiry first.
    func deviceLoginSummaries() -> [DeviceLoginSummary] {
        deviceLogins.values.sorted { ($0.expiresAt, $0.userCode) < ($1.expiresAt, $1.userCode) }.map { login in
            let answer =
                switch login.answer {
                case .pending: now >= login.expiresAt ? "expired" : "pending"
                case .approved: "approved"
                case .declined: "declined"
                case .used: "used"
                }
            return DeviceLoginSummary(
                userCode: login.userCode, appID: login.appID, scopes: login.scopes, expiresAt: login.expiresAt,
                interval: login.interval, answer: answer, wire: login.isRFC8628 ? "rfc8628" : "provider")
        }
    }

    /// The app a device login was started for, as the device page shows it: a registered app, or an issuer's
    /// client (`google:<client id>`).
    func deviceApp(_ appID: String) -> EmulatedApp? {
        if let app = apps[appID] { return app }
        let parts = appID.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = EmulatedIssuerKind(rawValue: parts[0]),
            let client = configuration.issuerClients.first(where: { $0.kind == kind && $0.id == parts[1] })
        else { return nil }
        return EmulatedApp(id: appID, secret: "", name: client.name, redirectURIs: [], clientToken: "")
    }

    /// A user code as typed: letters upper-cased, spaces and dashes dropped.
    static func normalizeUserCode(_ text: String) -> String {
        String(text.uppercased().filter { $0.isLetter || $0.isNumber })
    }

    // MARK: - The provider's wire

    /// `POST /{version}/device/login` with `access_token=app_id|client_token` and `scope`: a new device login.
    mutating func deviceLogin(_ request: EmulatorRequest) -> EmulatorResponse {
        guard request.method == .post else {
            return render(.failure(GraphFailure(code: 100, message: "(#100) device/login accepts POST only.")))
        }
        guard let app = clientTokenApp(request) else {
            return render(
                .failure(
                    GraphFailure(
                        code: 190, message: "Invalid OAuth access token: device login needs app_id|client_token.")))
        }
        let scopes = Self.scopes(request.parameter("scope"))
        let authorization = startDeviceLogin(appID: app.id, scopes: scopes, isRFC8628: false)
        return render(
            .success(
                .object([
                    "code": .string(authorization.deviceCode), "user_code": .string(authorization.userCode),
                    "verification_uri": .string("\(request.baseURL)/device"),
                    "expires_in": .int(configuration.deviceCodeLifetime),
                    "interval": .int(authorization.interval),
                ])))
    }

    /// `POST /{version}/device/login_status` with `access_token=app_id|client_token` and `code`: a long-lived user
    /// token once the user approved, else the provider's error (31/1349174 pending, 17/1349172 slow down,
    /// 31/1349173 declined, 463/1349152 expired).
    mutating func deviceLoginStatus(_ request: EmulatorRequest) -> EmulatorResponse {
        guard request.method == .post else {
            return render(.failure(GraphFailure(code: 100, message: "(#100) device/login_status accepts POST only.")))
        }
        guard let app = clientTokenApp(request) else {
            return render(
                .failure(
                    GraphFailure(
                        code: 190, message: "Invalid OAuth access token: device login needs app_id|client_token.")))
        }
        guard let code = request.parameter("code"), !code.isEmpty else {
            return render(.failure(GraphFailure(code: 100, message: "(#100) The parameter code is required")))
        }
        switch pollDeviceLogin(deviceCode: code, appID: app.id) {
        case .failure(let refusal):
            return render(.failure(refusal.graphFailure))
        case .success(let approval):
            let token = issueUserToken(
                appID: app.id, userID: approval.userID, lifetime: configuration.longLivedTokenLifetime,
                longLived: true)
            return render(
                .success(
                    .object([
                        "access_token": .string(token.value),
                        "data_access_expiration_time": .int(
                            Int(token.dataAccessExpiresAt?.timeIntervalSince1970 ?? 0)),
                        "expires_in": .int(configuration.longLivedTokenLifetime),
                    ])))
        }
    }

    /// The app of an `app_id|client_token` access token (device login's client credential).
    func clientTokenApp(_ request: EmulatorRequest) -> EmulatedApp? {
        guard let token = request.accessToken else { return nil }
        let parts = token.split(separator: "|", maxSplits: 1)
        guard parts.count == 2, let app = apps[String(parts[0])], !app.clientToken.isEmpty,
            app.clientToken == parts[1]
        else { return nil }
        return app
    }

    /// Scopes from a comma- or space-separated list, `public_profile` first when none are named.
    static func scopes(_ text: String?) -> [String] {
        let names = (text ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        return names.isEmpty ? ["public_profile"] : names
    }

    // MARK: - The page where the user enters the code

    /// `GET /device[?user_code=…]`: the form for the code, or, with a code, the consent page for that device login.
    /// `POST /device/confirm`: the consent page's answer.
    mutating func devicePage(_ request: EmulatorRequest, confirm: Bool) -> EmulatorResponse {
        if confirm {
            guard request.method == .post else { return .html(DevicePage.enterCode(error: nil)) }
            let code = request.form["dialog_id"] ?? ""
            let userID = request.form["user_id"].flatMap { users[$0] != nil ? $0 : nil } ?? defaultUserID
            let chosen =
                request.form["decision"] == "cancel"
                ? nil : Set(request.form.keys.filter { $0.hasPrefix("scope_") }.map { String($0.dropFirst(6)) })
            guard answerDeviceLogin(userCode: code, userID: userID, chosen: chosen) else {
                return .html(
                    DevicePage.enterCode(
                        error: "This code has expired or was already used. Start again on your device."),
                    status: .badRequest)
            }
            return .html(DevicePage.done(approved: chosen != nil))
        }
        guard let typed = request.parameter("user_code"), !typed.isEmpty else {
            return .html(DevicePage.enterCode(error: nil))
        }
        let userCode = Self.normalizeUserCode(typed)
        guard
            let authorization = deviceLogins.values.first(where: { $0.userCode == userCode }),
            authorization.answer == .pending, now < authorization.expiresAt, let app = deviceApp(authorization.appID)
        else {
            return .html(
                DevicePage.enterCode(error: "That code is not valid or has expired. Check the code on your device."),
                status: .badRequest)
        }
        let userID = defaultUserID
        let grant = users[userID]?.grants[app.id] ?? Grant()
        let permissions = authorization.scopes.map { name in
            ConsentPage.Permission(
                name: name, isRequired: name == "public_profile", wasDeclined: grant.declined.contains(name),
                alreadyGranted: grant.granted.contains(name))
        }
        return .html(
            ConsentPage.render(
                dialogID: userCode, app: app, users: userOrder.compactMap { users[$0]?.profile },
                selectedUserID: userID, permissions: permissions, action: "/device/confirm"))
    }
}

/// The device page's HTML: the form for the code, and the page after the answer.
enum DevicePage {
    static func enterCode(error: String?) -> String {
        let message = error.map { "<p id=\"error-message\" class=\"declined\">\(ConsentPage.escape($0))</p>\n" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Connect a device</title>
            <style>\(ConsentPage.style)</style>
            </head>
            <body>
            <main>
            <p class="brand">Mend provider emulator</p>
            <h1>Connect a device</h1>
            \(message)<form id="device-form" method="get" action="/device">
            <p><label for="user-code">Enter the code shown on your device</label>
            <input id="user-code" name="user_code" autocomplete="off" autocapitalize="characters" required></p>
            <p class="actions"><button type="submit" id="continue">Continue</button></p>
            </form>
            </main>
            </body>
            </html>

            """
    }

    static func done(approved: Bool) -> String {
        let text =
            approved
            ? "You're connected. Go back to your device to continue." : "You didn't connect the device."
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Connect a device</title>
            <style>\(ConsentPage.style)</style>
            </head>
            <body>
            <main>
            <p class="brand">Mend provider emulator</p>
            <h1 id="device-result">\(text)</h1>
            </main>
            </body>
            </html>

            """
    }
}

// MARK: - RFC 8628 at an issuer (Google)

extension EmulatorState {
    /// RFC 8628's grant type at the token endpoint.
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

    /// `POST {issuer}/device/code` (RFC 8628 §3.1; Google's device authorization endpoint): client
    /// authentication as at the token endpoint, then `device_code`, `user_code`, `verification_url` (Google's
    /// name, beside RFC 8628's `verification_uri`), `expires_in` and `interval`.
    mutating func issuerDeviceAuthorization(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String
    ) -> EmulatorResponse {
        let client: EmulatedIssuerClient
        switch authenticateIssuerClient(request, kind: kind, issuer: issuer) {
        case .failure(let refusal): return refusal.response
        case .success(let authenticated): client = authenticated
        }
        let scopes = Self.scopes(request.form["scope"] ?? "openid")
        let authorization = startDeviceLogin(
            appID: "\(kind.rawValue):\(client.id)", scopes: scopes, isRFC8628: true)
        let page = "\(request.baseURL)/device"
        return Self.tokenResponse(
            .object([
                "device_code": .string(authorization.deviceCode), "user_code": .string(authorization.userCode),
                "verification_url": .string(page), "verification_uri": .string(page),
                "verification_uri_complete": .string("\(page)?user_code=\(authorization.userCode)"),
                "expires_in": .int(configuration.deviceCodeLifetime), "interval": .int(authorization.interval),
            ]))
    }

    /// The device-code grant (RFC 8628 §3.4): tokens once approved (an access token, a refresh token, an id_token
    /// for `openid`), else `authorization_pending`, `slow_down`, `access_denied` or `expired_token` (§3.5).
    mutating func pollIssuerDeviceLogin(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, client: EmulatedIssuerClient, issuer: String
    ) -> EmulatorResponse {
        guard let deviceCode = request.form["device_code"], !deviceCode.isEmpty else {
            return Self.oauthError(kind, "invalid_request", "device_code is required.")
        }
        switch pollDeviceLogin(deviceCode: deviceCode, appID: "\(kind.rawValue):\(client.id)") {
        case .failure(let refusal):
            return Self.oauthError(kind, refusal.oauthError, refusal.graphFailure.userMessage)
        case .success(let approval):
            let refresh = issueIssuerRefreshToken(
                kind: kind, clientID: client.id, userID: approval.userID, scopes: approval.granted)
            let access = issueIssuerAccessToken(
                kind: kind, clientID: client.id, userID: approval.userID, scopes: approval.granted,
                refreshToken: refresh)
            var body: [(String, JSONValue?)] = [
                ("access_token", .string(access)), ("token_type", .string("Bearer")), ("expires_in", .int(3599)),
                ("refresh_token", .string(refresh)), ("scope", .string(Self.googleScopeText(approval.granted))),
            ]
            if approval.granted.contains("openid") {
                guard
                    let idToken = try? issuerIDToken(
                        kind: kind, clientID: client.id, userID: approval.userID, nonce: nil,
                        scopes: approval.granted, issuer: issuer, code: nil, accessToken: access)
                else { return Self.oauthError(kind, "server_error", "The id_token could not be signed.") }
                body.append(("id_token", .string(idToken)))
            }
            return Self.tokenResponse(.object(body))
        }
    }
}
