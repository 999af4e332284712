import Foundation
import HTTPTypes
import MendCore

/// The login dialogs waiting for the person's answer on the consent page, and the dialog's endpoints: the request's
/// checks, the consent page, and the answer's redirect with its code, token or id_token.
struct DialogBook: Sendable {
    /// The dialogs the consent page shows, by id, until it is answered.
    var pending: [String: PendingDialog] = [:]

    /// `GET /{version}/dialog/oauth`: validates, then shows the consent page (or answers at once in auto-consent).
    mutating func dialog(
        _ request: EmulatorRequest, version: String?, users: inout UserDirectory, tokens: inout TokenBook,
        context: inout EmulatorContext
    ) -> EmulatorResponse {
        let parsed = DialogRequest.parse(request.query, apps: context.apps)
        guard case .success(let valid) = parsed else {
            if case .failure(let invalid) = parsed {
                return .html(ConsentPage.error(title: invalid.title, message: invalid.message), status: .badRequest)
            }
            return .html(ConsentPage.error(title: "Error", message: "Invalid request."), status: .badRequest)
        }
        let dialog = PendingDialog(
            id: context.random.alphanumeric(24), appID: valid.app.id, redirectURI: valid.redirectURI,
            responseTypes: valid.responseTypes, scopes: valid.scopes, state: valid.state,
            codeChallenge: valid.codeChallenge, nonce: valid.nonce, rerequest: valid.rerequest)
        let userID = users.defaultUserID
        let chosen: Set<String>?
        switch users.autoConsent {
        case .manual:
            pending[dialog.id] = dialog
            let grant = users[userID]?.grants[dialog.appID] ?? Grant()
            let permissions = dialog.scopes.map { name in
                ConsentPage.Permission(
                    name: name, isRequired: name == "public_profile",
                    wasDeclined: !dialog.rerequest && grant.declined.contains(name),
                    alreadyGranted: grant.granted.contains(name))
            }
            let action = "/\(version ?? context.graphVersion)/dialog/oauth/confirm"
            return .html(
                ConsentPage.render(
                    dialogID: dialog.id, app: valid.app, users: users.profiles,
                    selectedUserID: userID, permissions: permissions, action: action))
        case .grantAll: chosen = Set(dialog.scopes)
        case .grant(let scopes): chosen = Set(scopes)
        case .deny: chosen = nil
        }
        return Self.complete(
            dialog, userID: userID, chosen: chosen, baseURL: request.baseURL, users: &users, tokens: &tokens,
            context: &context)
    }

    /// `POST /{version}/dialog/oauth/confirm`: the consent page's Continue or Cancel.
    mutating func confirm(
        _ request: EmulatorRequest, users: inout UserDirectory, tokens: inout TokenBook, context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard let id = request.form["dialog_id"], let dialog = pending.removeValue(forKey: id) else {
            return .html(
                ConsentPage.error(
                    title: "Login session expired", message: "This login dialog is no longer valid. Start again."),
                status: .badRequest)
        }
        return Self.complete(
            dialog, userID: users.chosenUser(request.form["user_id"]), chosen: ConsentPage.chosenScopes(request.form),
            baseURL: request.baseURL, users: &users, tokens: &tokens, context: &context)
    }

    /// Records the user's answer and redirects: granted and declined scopes, a code and/or a token, the state; or
    /// `error=access_denied` when `chosen` is `nil` (Cancel). Every answer carries `iss` (RFC 9207), the issuer as
    /// the browser at `baseURL` sees it.
    static func complete(
        _ dialog: PendingDialog, userID: String, chosen: Set<String>?, baseURL: String, users: inout UserDirectory,
        tokens: inout TokenBook, context: inout EmulatorContext
    ) -> EmulatorResponse {
        let issuer = context.issuer(baseURL: baseURL)
        guard let chosen else {
            var pairs: [(String, String)] = [
                ("error", "access_denied"), ("error_code", "200"), ("error_description", "Permissions error"),
                ("error_reason", "user_denied"),
            ]
            if let state = dialog.state { pairs.append(("state", state)) }
            pairs.append(("iss", issuer))
            return .redirect(to: Self.redirect(dialog.redirectURI, query: pairs, fragment: nil))
        }
        let (requestedGranted, denied) = users.recordConsent(
            appID: dialog.appID, userID: userID, scopes: dialog.scopes, chosen: chosen, rerequest: dialog.rerequest,
            context: &context)

        var pairs: [(String, String)] = []
        if dialog.responseTypes.contains("code") {
            let code = AuthorizationCode(
                value: "AQ" + context.random.alphanumeric(198), appID: dialog.appID, userID: userID,
                redirectURI: dialog.redirectURI, codeChallenge: dialog.codeChallenge, nonce: dialog.nonce,
                scopes: requestedGranted, issuedAt: context.now,
                expiresAt: context.now.addingTimeInterval(TimeInterval(context.configuration.codeLifetime)))
            tokens.codes[code.value] = code
            pairs.append(("code", code.value))
        }
        let usesFragment = dialog.responseTypes.contains("token") || dialog.responseTypes.contains("id_token")
        if dialog.responseTypes.contains("token") {
            let lifetime = context.configuration.shortLivedTokenLifetime
            let token = tokens.issueUserToken(
                appID: dialog.appID, userID: userID, lifetime: lifetime, longLived: false, context: &context)
            pairs.append(("access_token", token.value))
            pairs.append(("data_access_expiration_time", String(Int(token.dataAccessExpiresAt!.timeIntervalSince1970))))
            pairs.append(("expires_in", String(lifetime)))
        }
        if dialog.responseTypes.contains("id_token"),
            let idToken = try? tokens.idToken(
                appID: dialog.appID, userID: userID, nonce: dialog.nonce, issuer: issuer, users: users,
                context: &context)
        {
            pairs.append(("id_token", idToken))
        }
        if dialog.responseTypes.contains("granted_scopes") {
            pairs.append(("granted_scopes", requestedGranted.joined(separator: ",")))
            pairs.append(("denied_scopes", denied.joined(separator: ",")))
        }
        if let state = dialog.state { pairs.append(("state", state)) }
        pairs.append(("iss", issuer))
        let location =
            usesFragment
            ? Self.redirect(dialog.redirectURI, query: [], fragment: pairs)
            : Self.redirect(dialog.redirectURI, query: pairs, fragment: nil)
        return .redirect(to: location)
    }

    /// Appends query pairs to a redirect URI, and a fragment (`#_=_` for query answers, as the provider adds).
    static func redirect(_ uri: String, query: [(String, String)], fragment: [(String, String)]?) -> String {
        var base = uri
        if let hash = base.firstIndex(of: "#") { base = String(base[..<hash]) }
        if !query.isEmpty {
            base += (base.contains("?") ? "&" : "?") + FormEncoding.encode(query)
        }
        if let fragment {
            return base + "#" + FormEncoding.encode(fragment)
        }
        return base + "#_=_"
    }
}
