import Foundation
import HTTPTypes
import MendCore

/// The device login's endpoints: the provider's wire (`device/login`, `device/login_status`) and the page where the
/// person enters the code.
extension DeviceLoginBook {
    /// `POST /{version}/device/login` with `access_token=app_id|client_token` and `scope`: a new device login.
    mutating func deviceLogin(_ request: EmulatorRequest, context: inout EmulatorContext) -> EmulatorResponse {
        guard request.method == .post else {
            return context.render(.failure(GraphFailure(code: 100, message: "(#100) device/login accepts POST only.")))
        }
        guard let app = Self.clientTokenApp(request, apps: context.apps) else {
            return context.render(.failure(Self.clientTokenRequired))
        }
        let scopes = Self.scopes(request.parameter("scope"))
        let authorization = start(appID: app.id, scopes: scopes, isRFC8628: false, context: &context)
        return context.render(
            .success(
                .object([
                    "code": .string(authorization.deviceCode), "user_code": .string(authorization.userCode),
                    "verification_uri": .string("\(request.baseURL)/device"),
                    "expires_in": .int(context.configuration.deviceCodeLifetime),
                    "interval": .int(authorization.interval),
                ])))
    }

    /// `POST /{version}/device/login_status` with `access_token=app_id|client_token` and `code`: a long-lived user
    /// token once the user approved, else the provider's error (31/1349174 pending, 17/1349172 slow down,
    /// 31/1349173 declined, 463/1349152 expired).
    mutating func deviceLoginStatus(
        _ request: EmulatorRequest, users: inout UserDirectory, tokens: inout TokenBook,
        context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard request.method == .post else {
            return context.render(
                .failure(GraphFailure(code: 100, message: "(#100) device/login_status accepts POST only.")))
        }
        guard let app = Self.clientTokenApp(request, apps: context.apps) else {
            return context.render(.failure(Self.clientTokenRequired))
        }
        guard let code = request.parameter("code"), !code.isEmpty else {
            return context.render(.failure(GraphFailure(code: 100, message: "(#100) The parameter code is required")))
        }
        switch poll(deviceCode: code, appID: app.id, users: &users, context: &context) {
        case .failure(let refusal):
            return context.render(.failure(refusal.graphFailure))
        case .success(let approval):
            let lifetime = context.configuration.longLivedTokenLifetime
            let token = tokens.issueUserToken(
                appID: app.id, userID: approval.userID, lifetime: lifetime, longLived: true, context: &context)
            return context.render(
                .success(
                    .object([
                        "access_token": .string(token.value),
                        "data_access_expiration_time": .int(
                            Int(token.dataAccessExpiresAt?.timeIntervalSince1970 ?? 0)),
                        "expires_in": .int(lifetime),
                    ])))
        }
    }

    /// The refusal of a device login request without an `app_id|client_token` access token.
    static let clientTokenRequired = GraphFailure(
        code: 190, message: "Invalid OAuth access token: device login needs app_id|client_token.")

    /// The app of an `app_id|client_token` access token (device login's client credential).
    static func clientTokenApp(_ request: EmulatorRequest, apps: [String: EmulatedApp]) -> EmulatedApp? {
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
    mutating func devicePage(
        _ request: EmulatorRequest, confirm: Bool, users: inout UserDirectory, context: inout EmulatorContext
    ) -> EmulatorResponse {
        if confirm {
            guard request.method == .post else { return .html(DevicePage.enterCode(error: nil)) }
            let code = request.form["dialog_id"] ?? ""
            let userID = users.chosenUser(request.form["user_id"])
            let chosen = ConsentPage.chosenScopes(request.form)
            guard answer(userCode: code, userID: userID, chosen: chosen, users: &users, context: &context) else {
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
            let authorization = login(userCode: userCode), authorization.answer == .pending,
            context.now < authorization.expiresAt, let app = Self.app(authorization.appID, context: context)
        else {
            return .html(
                DevicePage.enterCode(error: "That code is not valid or has expired. Check the code on your device."),
                status: .badRequest)
        }
        let userID = users.defaultUserID
        let grant = users[userID]?.grants[app.id] ?? Grant()
        let permissions = authorization.scopes.map { name in
            ConsentPage.Permission(
                name: name, isRequired: name == "public_profile", wasDeclined: grant.declined.contains(name),
                alreadyGranted: grant.granted.contains(name))
        }
        return .html(
            ConsentPage.render(
                dialogID: userCode, app: app, users: users.profiles,
                selectedUserID: userID, permissions: permissions, action: "/device/confirm"))
    }
}
