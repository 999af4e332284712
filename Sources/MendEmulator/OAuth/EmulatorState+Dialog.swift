import Foundation
import HTTPTypes
import MendCore

extension EmulatorState {
    /// `GET /{version}/dialog/oauth`: validates, then shows the consent page (or answers at once in auto-consent).
    mutating func dialog(_ request: EmulatorRequest, version: String?) -> EmulatorResponse {
        let parsed = DialogRequest.parse(request.query, apps: apps)
        guard case .success(let valid) = parsed else {
            if case .failure(let invalid) = parsed {
                return .html(ConsentPage.error(title: invalid.title, message: invalid.message), status: .badRequest)
            }
            return .html(ConsentPage.error(title: "Error", message: "Invalid request."), status: .badRequest)
        }
        let dialog = PendingDialog(
            id: random.alphanumeric(24), appID: valid.app.id, redirectURI: valid.redirectURI,
            responseTypes: valid.responseTypes, scopes: valid.scopes, state: valid.state,
            codeChallenge: valid.codeChallenge, nonce: valid.nonce, rerequest: valid.rerequest)
        let userID = defaultUserID
        switch autoConsent {
        case .manual:
            dialogs[dialog.id] = dialog
            let grant = users[userID]?.grants[dialog.appID] ?? Grant()
            let permissions = dialog.scopes.map { name in
                ConsentPage.Permission(
                    name: name, isRequired: name == "public_profile",
                    wasDeclined: !dialog.rerequest && grant.declined.contains(name),
                    alreadyGranted: grant.granted.contains(name))
            }
            let action = "/\(version ?? graphVersion)/dialog/oauth/confirm"
            return .html(
                ConsentPage.render(
                    dialogID: dialog.id, app: valid.app, users: userOrder.compactMap { users[$0]?.profile },
                    selectedUserID: userID, permissions: permissions, action: action))
        case .grantAll:
            return completeDialog(dialog, userID: userID, chosen: Set(dialog.scopes), baseURL: request.baseURL)
        case .grant(let scopes):
            return completeDialog(dialog, userID: userID, chosen: Set(scopes), baseURL: request.baseURL)
        case .deny:
            return completeDialog(dialog, userID: userID, chosen: nil, baseURL: request.baseURL)
        }
    }

    /// `POST /{version}/dialog/oauth/confirm`: the consent page's Continue or Cancel.
    mutating func confirmDialog(_ request: EmulatorRequest) -> EmulatorResponse {
        guard let id = request.form["dialog_id"], let dialog = dialogs.removeValue(forKey: id) else {
            return .html(
                ConsentPage.error(
                    title: "Login session expired", message: "This login dialog is no longer valid. Start again."),
                status: .badRequest)
        }
        let userID = request.form["user_id"].flatMap { users[$0] != nil ? $0 : nil } ?? defaultUserID
        guard request.form["decision"] != "cancel" else {
            return completeDialog(dialog, userID: userID, chosen: nil, baseURL: request.baseURL)
        }
        let chosen = Set(request.form.keys.filter { $0.hasPrefix("scope_") }.map { String($0.dropFirst(6)) })
        return completeDialog(dialog, userID: userID, chosen: chosen, baseURL: request.baseURL)
    }

    /// Records the user's answer and redirects: granted and declined scopes, a code and/or a token, the state; or
    /// `error=access_denied` when `chosen` is `nil` (Cancel). Every answer carries `iss` (RFC 9207), the issuer as
    /// the browser at `baseURL` sees it.
    mutating func completeDialog(
        _ dialog: PendingDialog, userID: String, chosen: Set<String>?, baseURL: String
    ) -> EmulatorResponse {
        let issuer = issuer(baseURL: baseURL)
        guard let chosen else {
            var pairs: [(String, String)] = [
                ("error", "access_denied"), ("error_code", "200"), ("error_description", "Permissions error"),
                ("error_reason", "user_denied"),
            ]
            if let state = dialog.state { pairs.append(("state", state)) }
            pairs.append(("iss", issuer))
            return .redirect(to: Self.redirect(dialog.redirectURI, query: pairs, fragment: nil))
        }
        let (requestedGranted, denied) = recordConsent(
            appID: dialog.appID, userID: userID, scopes: dialog.scopes, chosen: chosen, rerequest: dialog.rerequest)

        var pairs: [(String, String)] = []
        if dialog.responseTypes.contains("code") {
            let code = AuthorizationCode(
                value: "AQ" + random.alphanumeric(198), appID: dialog.appID, userID: userID,
                redirectURI: dialog.redirectURI, codeChallenge: dialog.codeChallenge, nonce: dialog.nonce,
                scopes: requestedGranted, issuedAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(configuration.codeLifetime)))
            codes[code.value] = code
            pairs.append(("code", code.value))
        }
        let usesFragment = dialog.responseTypes.contains("token") || dialog.responseTypes.contains("id_token")
        if dialog.responseTypes.contains("token") {
            let token = issueUserToken(
                appID: dialog.appID, userID: userID, lifetime: configuration.shortLivedTokenLifetime, longLived: false)
            pairs.append(("access_token", token.value))
            pairs.append(("data_access_expiration_time", String(Int(token.dataAccessExpiresAt!.timeIntervalSince1970))))
            pairs.append(("expires_in", String(configuration.shortLivedTokenLifetime)))
        }
        if dialog.responseTypes.contains("id_token"),
            let idToken = try? idToken(
                appID: dialog.appID, userID: userID, nonce: dialog.nonce, issuer: issuer)
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

    /// Records a user's answer to a consent page (the login dialog's or device login's): the scopes `chosen` among
    /// those offered (a scope declined before is offered again only on `rerequest`), `public_profile` always, and
    /// what was granted before. Returns the requested scopes granted and those denied, in request order.
    mutating func recordConsent(
        appID: String, userID: String, scopes: [String], chosen: Set<String>, rerequest: Bool
    ) -> (granted: [String], denied: [String]) {
        var grant = users[userID]?.grants[appID] ?? Grant()
        let offered = scopes.filter { rerequest || !grant.declined.contains($0) }
        var granted = Set(offered.filter { chosen.contains($0) })
        granted.insert("public_profile")
        granted.formUnion(scopes.filter { grant.granted.contains($0) && !offered.contains($0) })
        let requestedGranted = scopes.filter { granted.contains($0) }
        let denied = scopes.filter { !granted.contains($0) }
        grant.granted.formUnion(requestedGranted)
        grant.declined.formUnion(denied)
        grant.declined.subtract(grant.granted)
        users[userID]?.grants[appID] = grant
        // A new login installs the app again: tokens from now on work, older ones stay invalid.
        _ = nextGeneration()
        return (requestedGranted, denied)
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
