import Foundation
import HTTPTypes
import MendCore

/// The emulated issuers' authorization endpoint and consent: the checks of an authorization request, the consents
/// waiting for the person on the consent page, and the answer to the client (a code, Apple's id_token and its
/// first-time `user` object, or a refusal).
struct IssuerConsents: Sendable {
    /// A consent waiting for the user (manual consent).
    struct Pending: Sendable, Hashable {
        var kind: EmulatedIssuerKind
        var client: EmulatedIssuerClient
        var redirectURI: String
        var responseTypes: Set<String>
        var responseMode: String
        var scopes: [String]
        var state: String?
        var nonce: String?
        var challenge: String?
        var challengeMethod: String?
        var offline: Bool
        /// The `dpop_jkt` of the request (RFC 9449 §10): the thumbprint of the key the code is bound to.
        var dpopJKT: String? = nil
    }

    /// The consents the consent page shows, by id, until it is answered.
    var pending: [String: Pending] = [:]
    /// Apple: the users that authorized each client before (Apple sends the user's name only the first time).
    var appleAuthorized: Set<String> = []

    /// The authorization endpoint: checks the request as the real issuer does, then shows the consent page or
    /// answers at once (auto-consent). While the issuer speaks DPoP (`speaksDPoP`), a `dpop_jkt` binds the code to
    /// that key (RFC 9449 §10); one that is not a JWK SHA-256 thumbprint is refused. Otherwise it is ignored, as a
    /// parameter the issuer does not know.
    mutating func authorize(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String, speaksDPoP: Bool,
        tokens: inout IssuerTokens, keys: inout IssuerKeys, users: UserDirectory, context: inout EmulatorContext
    ) -> EmulatorResponse {
        func page(_ title: String, _ message: String) -> EmulatorResponse {
            .html(ConsentPage.error(title: title, message: message), status: .badRequest)
        }
        guard let client = context.configuration.issuerClient(kind, request.parameter("client_id")) else {
            return page("invalid_client", "The client_id is not registered with this issuer.")
        }
        guard let redirectURI = request.parameter("redirect_uri"), !redirectURI.isEmpty else {
            return page("invalid_request", "redirect_uri is required.")
        }
        if kind == .apple, !IssuerWire.isAppleRedirect(redirectURI) {
            return page("invalid_request", "Invalid web redirect url: Apple allows https redirects to a domain only.")
        }
        let allowed =
            kind == .google
            ? RedirectURIMatcher.isAllowed(redirectURI, registered: client.redirectURIs)
            : client.redirectURIs.contains(redirectURI)
        guard allowed else { return page("invalid_request", "Invalid redirect_uri: it is not registered.") }
        let responseTypeText = request.parameter("response_type") ?? ""
        let responseTypes = Set(responseTypeText.split(separator: " ").map(String.init))
        let supported: [Set<String>] = kind == .apple ? [["code"], ["code", "id_token"]] : [["code"]]
        guard supported.contains(responseTypes) else {
            return page("unsupported_response_type", "response_type '\(responseTypeText)' is not supported.")
        }
        let scopes = (request.parameter("scope") ?? "").split(separator: " ").map(String.init)
        let known: Set<String> = kind == .apple ? ["openid", "name", "email"] : ["openid", "email", "profile"]
        guard Set(scopes).isSubset(of: known) else {
            return page("invalid_scope", "Some requested scopes are not valid: \(scopes.joined(separator: " ")).")
        }
        if kind == .google, !scopes.contains("openid") {
            return page("invalid_scope", "This emulated issuer signs users in: include the openid scope.")
        }
        let responseMode =
            request.parameter("response_mode") ?? (responseTypes.contains("id_token") ? "fragment" : "query")
        guard ["query", "fragment", "form_post"].contains(responseMode), kind == .apple || responseMode == "query"
        else {
            return page("invalid_request", "response_mode '\(responseMode)' is not supported.")
        }
        if kind == .apple, scopes.contains("name") || scopes.contains("email"), responseMode != "form_post" {
            return page(
                "invalid_request", "response_mode must be form_post when name or email scope is requested.")
        }
        let challenge = request.parameter("code_challenge").flatMap { $0.isEmpty ? nil : $0 }
        let method = request.parameter("code_challenge_method") ?? (challenge == nil ? nil : "plain")
        if let method {
            let methods = kind == .apple ? ["S256"] : ["S256", "plain"]
            guard challenge != nil, methods.contains(method) else {
                return page("invalid_request", "Invalid code_challenge_method '\(method)'.")
            }
        }
        if kind == .google, client.secret == nil, challenge == nil {
            return page("invalid_request", "Missing code_challenge: this client is public and must use PKCE.")
        }
        let dpopJKT = speaksDPoP ? request.parameter("dpop_jkt") : nil
        if let dpopJKT, !IssuerDPoP.isThumbprint(dpopJKT) {
            return page(
                "invalid_request",
                "Invalid dpop_jkt: it must be the JWK SHA-256 thumbprint of the DPoP key, 43 base64url characters "
                    + "(RFC 9449 §10).")
        }
        let consent = Pending(
            kind: kind, client: client, redirectURI: redirectURI, responseTypes: responseTypes,
            responseMode: responseMode, scopes: scopes, state: request.parameter("state"),
            nonce: request.parameter("nonce"), challenge: challenge, challengeMethod: method,
            offline: request.parameter("access_type") == "offline", dpopJKT: dpopJKT)
        let approved: Bool
        switch users.autoConsent {
        case .manual:
            let id = context.random.alphanumeric(24)
            pending[id] = consent
            let app = EmulatedApp(
                id: client.id, secret: "", name: client.name, redirectURIs: [], clientToken: "")
            let permissions = scopes.map {
                ConsentPage.Permission(name: $0, isRequired: $0 == "openid", wasDeclined: false, alreadyGranted: false)
            }
            return .html(
                ConsentPage.render(
                    dialogID: id, app: app, users: users.profiles, selectedUserID: users.defaultUserID,
                    permissions: permissions, action: "/\(kind.rawValue)/consent"))
        case .deny: approved = false
        case .grantAll, .grant: approved = true
        }
        return complete(
            consent, userID: users.defaultUserID, approved: approved, issuer: issuer, tokens: &tokens, keys: &keys,
            users: users, context: &context)
    }

    /// `POST /{issuer}/consent`: the consent page's Continue or Cancel.
    mutating func consent(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String, tokens: inout IssuerTokens,
        keys: inout IssuerKeys, users: UserDirectory, context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard let id = request.form["dialog_id"], let consent = pending.removeValue(forKey: id),
            consent.kind == kind
        else {
            return .html(
                ConsentPage.error(title: "Session expired", message: "This sign-in is no longer valid. Start again."),
                status: .badRequest)
        }
        return complete(
            consent, userID: users.chosenUser(request.form["user_id"]), approved: request.form["decision"] != "cancel",
            issuer: issuer, tokens: &tokens, keys: &keys, users: users, context: &context)
    }

    /// The issuer's answer to the client: a code (and Apple's id_token with `code id_token`), the state, and on
    /// Apple's first authorization with `name` or `email` the `user` object; or the issuer's refusal.
    mutating func complete(
        _ consent: Pending, userID: String, approved: Bool, issuer: String, tokens: inout IssuerTokens,
        keys: inout IssuerKeys, users: UserDirectory, context: inout EmulatorContext
    ) -> EmulatorResponse {
        var pairs: [(String, String)] = []
        if approved {
            let code =
                (consent.kind == .apple ? "c" + context.random.alphanumeric(31).lowercased() + ".0.mend." : "4/0A")
                + context.random.alphanumeric(40)
            let lifetime: TimeInterval = consent.kind == .apple ? 300 : 600
            tokens.codes[code] = IssuerTokens.Code(
                kind: consent.kind, clientID: consent.client.id, userID: userID, redirectURI: consent.redirectURI,
                challenge: consent.challenge, challengeMethod: consent.challengeMethod, nonce: consent.nonce,
                scopes: consent.scopes, offline: consent.offline,
                expiresAt: context.now.addingTimeInterval(lifetime), dpopJKT: consent.dpopJKT)
            pairs.append(("code", code))
            if consent.responseTypes.contains("id_token"),
                let idToken = try? keys.idToken(
                    kind: consent.kind, clientID: consent.client.id, userID: userID, nonce: consent.nonce,
                    scopes: consent.scopes, issuer: issuer, code: code, accessToken: nil, users: users,
                    context: &context)
            {
                pairs.append(("id_token", idToken))
            }
            if consent.kind == .google {
                pairs += [
                    ("scope", IssuerWire.googleScopeText(consent.scopes)), ("authuser", "0"), ("prompt", "consent"),
                ]
            }
        } else {
            pairs.append(("error", consent.kind == .apple ? "user_cancelled_authorize" : "access_denied"))
        }
        if let state = consent.state { pairs.append(("state", state)) }
        if approved, consent.kind == .apple, consent.scopes.contains("name") || consent.scopes.contains("email"),
            appleAuthorized.insert("\(consent.client.id)|\(userID)").inserted,
            let user = users[userID]?.profile
        {
            // Apple sends the user's name and e-mail once, on the first authorization, beside the code.
            var object: [(String, JSONValue?)] = []
            if consent.scopes.contains("name") {
                object.append(
                    ("name", .object(["firstName": .string(user.firstName), "lastName": .string(user.lastName)])))
            }
            if consent.scopes.contains("email") {
                object.append(("email", .string(IssuerClaims.appleEmail(userID, users: users).address)))
            }
            pairs.append(("user", JSONValue.object(object).jsonText()))
        }
        switch consent.responseMode {
        case "form_post":
            return .html(IssuerWire.formPost(action: consent.redirectURI, fields: pairs))
        case "fragment":
            return .redirect(to: consent.redirectURI + "#" + FormEncoding.encode(pairs))
        default:
            let separator = consent.redirectURI.contains("?") ? "&" : "?"
            return .redirect(to: consent.redirectURI + separator + FormEncoding.encode(pairs))
        }
    }
}
