import Crypto
import Foundation
import HTTPTypes
import MendCore

/// The emulated OpenID Connect issuers' endpoints. Paths are relative to the issuer (`/apple`, `/google`):
///
/// | | Apple | Google |
/// |---|---|---|
/// | discovery | `/.well-known/openid-configuration` | the same |
/// | keys | `/auth/keys` | `/oauth2/v3/certs` |
/// | authorization | `/auth/authorize` | `/o/oauth2/v2/auth` |
/// | token | `/auth/token` | `/token` |
/// | revocation | `/auth/revoke` | `/revoke` |
/// | userinfo | — | `/v1/userinfo` |
extension EmulatorState {
    /// One request to an issuer; `segments` are the path's segments after the issuer's.
    mutating func handleIssuer(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, segments: [String]
    ) -> EmulatorResponse {
        let issuer = kind.issuer(baseURL: request.baseURL)
        let path = "/" + segments.joined(separator: "/")
        switch (kind, path) {
        case (_, "/.well-known/openid-configuration"):
            return .json(Self.discoveryDocument(kind: kind, issuer: issuer))
        case (.apple, "/auth/keys"), (.google, "/oauth2/v3/certs"):
            return .json(issuerJWKS(kind))
        case (.apple, "/auth/authorize"), (.google, "/o/oauth2/v2/auth"):
            return issuerAuthorize(request, kind: kind, issuer: issuer)
        case (_, "/consent") where request.method == .post:
            return issuerConsent(request, kind: kind, issuer: issuer)
        case (.apple, "/auth/token"), (.google, "/token"):
            guard request.method == .post else { return Self.oauthError(kind, "invalid_request", "Use POST.") }
            return issuerToken(request, kind: kind, issuer: issuer)
        case (.apple, "/auth/revoke"), (.google, "/revoke"):
            guard request.method == .post else { return Self.oauthError(kind, "invalid_request", "Use POST.") }
            return issuerRevoke(request, kind: kind, issuer: issuer)
        case (.google, "/v1/userinfo"):
            return googleUserinfo(request)
        case (.google, "/device/code"):
            guard request.method == .post else { return Self.oauthError(kind, "invalid_request", "Use POST.") }
            return issuerDeviceAuthorization(request, kind: kind, issuer: issuer)
        default:
            return .json(.object(["error": .string("not_found")]), status: .notFound)
        }
    }

    // MARK: Discovery and keys

    static func discoveryDocument(kind: EmulatedIssuerKind, issuer: String) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        switch kind {
        case .apple:
            return .object([
                "issuer": .string(issuer), "authorization_endpoint": .string("\(issuer)/auth/authorize"),
                "token_endpoint": .string("\(issuer)/auth/token"),
                "revocation_endpoint": .string("\(issuer)/auth/revoke"),
                "jwks_uri": .string("\(issuer)/auth/keys"),
                "response_types_supported": strings(["code", "code id_token"]),
                "response_modes_supported": strings(["query", "fragment", "form_post"]),
                "subject_types_supported": strings(["pairwise"]),
                "id_token_signing_alg_values_supported": strings(["RS256"]),
                "scopes_supported": strings(["openid", "email", "name"]),
                "token_endpoint_auth_methods_supported": strings(["client_secret_post"]),
                "code_challenge_methods_supported": strings(["S256"]),
                "claims_supported": strings([
                    "aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce",
                    "nonce_supported", "real_user_status", "sub", "at_hash", "c_hash", "auth_time",
                ]),
            ])
        case .google:
            return .object([
                "issuer": .string(issuer), "authorization_endpoint": .string("\(issuer)/o/oauth2/v2/auth"),
                "token_endpoint": .string("\(issuer)/token"), "userinfo_endpoint": .string("\(issuer)/v1/userinfo"),
                "revocation_endpoint": .string("\(issuer)/revoke"), "jwks_uri": .string("\(issuer)/oauth2/v3/certs"),
                "response_types_supported": strings(["code"]),
                "subject_types_supported": strings(["public"]),
                "id_token_signing_alg_values_supported": strings(["RS256"]),
                "scopes_supported": strings(["openid", "email", "profile"]),
                "token_endpoint_auth_methods_supported": strings(["client_secret_post", "client_secret_basic"]),
                "claims_supported": strings([
                    "aud", "email", "email_verified", "exp", "family_name", "given_name", "iat", "iss", "name",
                    "picture", "sub", "hd", "azp", "at_hash", "nonce",
                ]),
                "code_challenge_methods_supported": strings(["plain", "S256"]),
                "grant_types_supported": strings([
                    "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
                ]),
                "device_authorization_endpoint": .string("\(issuer)/device/code"),
            ])
        }
    }

    mutating func issuerJWKS(_ kind: EmulatedIssuerKind) -> JSONValue {
        var ring = issuers.signingKeys[kind] ?? SigningKeyRing()
        _ = try? ring.current(random: &random)
        issuers.signingKeys[kind] = ring
        return (try? ring.jwks()) ?? .object(["keys": .array([])])
    }

    /// Rotates an issuer's signing key (the JWKS keeps the previous one).
    mutating func rotateIssuerKey(_ kind: EmulatedIssuerKind) throws {
        var ring = issuers.signingKeys[kind] ?? SigningKeyRing()
        try ring.rotate(random: &random)
        issuers.signingKeys[kind] = ring
    }

    // MARK: Authorization

    private func issuerClient(_ kind: EmulatedIssuerKind, _ id: String?) -> EmulatedIssuerClient? {
        guard let id else { return nil }
        return configuration.issuerClients.first { $0.kind == kind && $0.id == id }
    }

    /// The authorization endpoint: checks the request as the real issuer does, then shows the consent page or
    /// answers at once (auto-consent).
    mutating func issuerAuthorize(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String
    ) -> EmulatorResponse {
        func page(_ title: String, _ message: String) -> EmulatorResponse {
            .html(ConsentPage.error(title: title, message: message), status: .badRequest)
        }
        guard let client = issuerClient(kind, request.parameter("client_id")) else {
            return page("invalid_client", "The client_id is not registered with this issuer.")
        }
        guard let redirectURI = request.parameter("redirect_uri"), !redirectURI.isEmpty else {
            return page("invalid_request", "redirect_uri is required.")
        }
        if kind == .apple, !Self.isAppleRedirect(redirectURI) {
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
        let consent = IssuerState.PendingConsent(
            kind: kind, client: client, redirectURI: redirectURI, responseTypes: responseTypes,
            responseMode: responseMode, scopes: scopes, state: request.parameter("state"),
            nonce: request.parameter("nonce"), challenge: challenge, challengeMethod: method,
            offline: request.parameter("access_type") == "offline")
        switch autoConsent {
        case .manual:
            let id = random.alphanumeric(24)
            issuers.consents[id] = consent
            let app = EmulatedApp(
                id: client.id, secret: "", name: client.name, redirectURIs: [], clientToken: "")
            let permissions = scopes.map {
                ConsentPage.Permission(name: $0, isRequired: $0 == "openid", wasDeclined: false, alreadyGranted: false)
            }
            return .html(
                ConsentPage.render(
                    dialogID: id, app: app, users: userOrder.compactMap { users[$0]?.profile },
                    selectedUserID: defaultUserID, permissions: permissions, action: "/\(kind.rawValue)/consent"))
        case .deny:
            return completeConsent(consent, userID: defaultUserID, approved: false, issuer: issuer)
        case .grantAll, .grant:
            return completeConsent(consent, userID: defaultUserID, approved: true, issuer: issuer)
        }
    }

    /// `POST /{issuer}/consent`: the consent page's Continue or Cancel.
    mutating func issuerConsent(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String
    ) -> EmulatorResponse {
        guard let id = request.form["dialog_id"], let consent = issuers.consents.removeValue(forKey: id),
            consent.kind == kind
        else {
            return .html(
                ConsentPage.error(title: "Session expired", message: "This sign-in is no longer valid. Start again."),
                status: .badRequest)
        }
        let userID = request.form["user_id"].flatMap { users[$0] != nil ? $0 : nil } ?? defaultUserID
        return completeConsent(consent, userID: userID, approved: request.form["decision"] != "cancel", issuer: issuer)
    }

    /// The issuer's answer to the client: a code (and Apple's id_token with `code id_token`), the state, and on
    /// Apple's first authorization with `name` or `email` the `user` object; or the issuer's refusal.
    mutating func completeConsent(
        _ consent: IssuerState.PendingConsent, userID: String, approved: Bool, issuer: String
    ) -> EmulatorResponse {
        var pairs: [(String, String)] = []
        if approved {
            let code =
                (consent.kind == .apple ? "c" + random.alphanumeric(31).lowercased() + ".0.mend." : "4/0A")
                + random.alphanumeric(40)
            let lifetime: TimeInterval = consent.kind == .apple ? 300 : 600
            issuers.codes[code] = IssuerState.Code(
                kind: consent.kind, clientID: consent.client.id, userID: userID, redirectURI: consent.redirectURI,
                challenge: consent.challenge, challengeMethod: consent.challengeMethod, nonce: consent.nonce,
                scopes: consent.scopes, offline: consent.offline, expiresAt: now.addingTimeInterval(lifetime))
            pairs.append(("code", code))
            if consent.responseTypes.contains("id_token"),
                let idToken = try? issuerIDToken(
                    kind: consent.kind, clientID: consent.client.id, userID: userID, nonce: consent.nonce,
                    scopes: consent.scopes, issuer: issuer, code: code, accessToken: nil)
            {
                pairs.append(("id_token", idToken))
            }
            if consent.kind == .google {
                pairs += [("scope", Self.googleScopeText(consent.scopes)), ("authuser", "0"), ("prompt", "consent")]
            }
        } else {
            pairs.append(("error", consent.kind == .apple ? "user_cancelled_authorize" : "access_denied"))
        }
        if let state = consent.state { pairs.append(("state", state)) }
        if approved, consent.kind == .apple, consent.scopes.contains("name") || consent.scopes.contains("email"),
            issuers.appleAuthorized.insert("\(consent.client.id)|\(userID)").inserted,
            let user = users[userID]?.profile
        {
            // Apple sends the user's name and e-mail once, on the first authorization, beside the code.
            var object: [(String, JSONValue?)] = []
            if consent.scopes.contains("name") {
                object.append(
                    ("name", .object(["firstName": .string(user.firstName), "lastName": .string(user.lastName)])))
            }
            if consent.scopes.contains("email") { object.append(("email", .string(appleEmail(userID).address))) }
            pairs.append(("user", JSONValue.object(object).jsonText()))
        }
        switch consent.responseMode {
        case "form_post":
            return .html(Self.formPost(action: consent.redirectURI, fields: pairs))
        case "fragment":
            return .redirect(to: consent.redirectURI + "#" + FormEncoding.encode(pairs))
        default:
            let separator = consent.redirectURI.contains("?") ? "&" : "?"
            return .redirect(to: consent.redirectURI + separator + FormEncoding.encode(pairs))
        }
    }

    /// Apple's redirect rule: `https` to a domain name (never an IP address or `localhost`).
    static func isAppleRedirect(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), components.scheme == "https",
            let host = components.host?.lowercased(), host.contains("."), !host.hasSuffix(".")
        else { return false }
        let isIPv4 = host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
        return !isIPv4 && !host.contains(":") && host != "localhost" && !host.hasSuffix(".localhost")
    }

    /// The page a `form_post` answer is: a form that posts itself to the redirect URI (OAuth 2.0 Form Post
    /// Response Mode).
    static func formPost(action: String, fields: [(String, String)]) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let inputs = fields.map { #"<input type="hidden" name="\#(escape($0.0))" value="\#(escape($0.1))">"# }
        return """
            <!DOCTYPE html>
            <html><head><title>Submit This Form</title></head>
            <body onload="document.forms[0].submit()">
            <form method="post" action="\(escape(action))">
            \(inputs.joined(separator: "\n"))
            <noscript><button type="submit">Continue</button></noscript>
            </form></body></html>
            """
    }

    static func googleScopeText(_ scopes: [String]) -> String {
        scopes.map { scope in
            switch scope {
            case "email": "https://www.googleapis.com/auth/userinfo.email"
            case "profile": "https://www.googleapis.com/auth/userinfo.profile"
            default: scope
            }
        }.joined(separator: " ")
    }

    // MARK: Tokens

    /// The token endpoint: client authentication, then the code (with PKCE) or a refresh token.
    mutating func issuerToken(_ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String) -> EmulatorResponse
    {
        let client: EmulatedIssuerClient
        switch authenticateIssuerClient(request, kind: kind, issuer: issuer) {
        case .failure(let refusal): return refusal.response
        case .success(let authenticated): client = authenticated
        }
        switch request.form["grant_type"] {
        case "authorization_code":
            return exchangeIssuerCode(request, kind: kind, client: client, issuer: issuer)
        case Self.deviceCodeGrant where kind == .google:
            return pollIssuerDeviceLogin(request, kind: kind, client: client, issuer: issuer)
        case "refresh_token":
            guard let value = request.form["refresh_token"], let token = issuers.tokens[value], token.kind == .refresh,
                token.issuer == kind, token.clientID == client.id, !token.revoked
            else { return Self.oauthError(kind, "invalid_grant", "The refresh token is invalid, expired or revoked.") }
            let access = issueIssuerAccessToken(
                kind: kind, clientID: client.id, userID: token.userID, scopes: token.scopes, refreshToken: value)
            var body: [(String, JSONValue?)] = [
                ("access_token", .string(access)), ("token_type", .string("Bearer")),
                ("expires_in", .int(kind == .apple ? 3600 : 3599)),
            ]
            if kind == .google { body.append(("scope", .string(Self.googleScopeText(token.scopes)))) }
            if kind == .apple || token.scopes.contains("openid"),
                let idToken = try? issuerIDToken(
                    kind: kind, clientID: client.id, userID: token.userID, nonce: nil, scopes: token.scopes,
                    issuer: issuer, code: nil, accessToken: access)
            {
                body.append(("id_token", .string(idToken)))
            }
            return Self.tokenResponse(.object(body))
        case nil:
            return Self.oauthError(kind, "invalid_request", "grant_type is required.")
        case let other?:
            return Self.oauthError(kind, "unsupported_grant_type", "grant_type '\(other)' is not supported.")
        }
    }

    private mutating func exchangeIssuerCode(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, client: EmulatedIssuerClient, issuer: String
    ) -> EmulatorResponse {
        guard let value = request.form["code"], var code = issuers.codes[value], code.kind == kind,
            code.clientID == client.id
        else { return Self.oauthError(kind, "invalid_grant", "The code is invalid or was issued to another client.") }
        guard !code.used else {
            // A replayed code: what it issued is revoked (RFC 6749 §4.1.2).
            for token in code.issuedTokens { issuers.tokens[token]?.revoked = true }
            return Self.oauthError(kind, "invalid_grant", "The code has already been used.")
        }
        guard code.expiresAt > now else { return Self.oauthError(kind, "invalid_grant", "The code has expired.") }
        guard request.form["redirect_uri"] == code.redirectURI else {
            return Self.oauthError(kind, "invalid_grant", "redirect_uri does not match the authorization request.")
        }
        if let challenge = code.challenge {
            guard let verifier = request.form["code_verifier"],
                PKCEProof.matches(verifier: verifier, challenge: challenge, method: code.challengeMethod ?? "plain")
            else { return Self.oauthError(kind, "invalid_grant", "The code_verifier does not match the challenge.") }
        }
        code.used = true
        let refresh: String? =
            kind == .apple || code.offline ? issueIssuerRefreshToken(kind: kind, code: code) : nil
        let access = issueIssuerAccessToken(
            kind: kind, clientID: client.id, userID: code.userID, scopes: code.scopes, refreshToken: refresh)
        code.issuedTokens = [access] + (refresh.map { [$0] } ?? [])
        issuers.codes[value] = code
        var body: [(String, JSONValue?)] = [
            ("access_token", .string(access)), ("token_type", .string("Bearer")),
            ("expires_in", .int(kind == .apple ? 3600 : 3599)), ("refresh_token", .string(refresh)),
        ]
        if kind == .google { body.append(("scope", .string(Self.googleScopeText(code.scopes)))) }
        if kind == .apple || code.scopes.contains("openid") {
            guard
                let idToken = try? issuerIDToken(
                    kind: kind, clientID: client.id, userID: code.userID, nonce: code.nonce, scopes: code.scopes,
                    issuer: issuer, code: nil, accessToken: access)
            else { return Self.oauthError(kind, "server_error", "The id_token could not be signed.") }
            body.append(("id_token", .string(idToken)))
        }
        return Self.tokenResponse(.object(body))
    }

    mutating func issueIssuerAccessToken(
        kind: EmulatedIssuerKind, clientID: String, userID: String, scopes: [String], refreshToken: String?
    ) -> String {
        let value =
            kind == .apple ? "a" + random.alphanumeric(31).lowercased() + ".0.mend" : "ya29." + random.alphanumeric(60)
        issuers.tokens[value] = IssuerState.Token(
            kind: .access, issuer: kind, clientID: clientID, userID: userID, scopes: scopes,
            expiresAt: now.addingTimeInterval(3600), refreshToken: refreshToken)
        return value
    }

    private mutating func issueIssuerRefreshToken(kind: EmulatedIssuerKind, code: IssuerState.Code) -> String {
        issueIssuerRefreshToken(kind: kind, clientID: code.clientID, userID: code.userID, scopes: code.scopes)
    }

    mutating func issueIssuerRefreshToken(
        kind: EmulatedIssuerKind, clientID: String, userID: String, scopes: [String]
    ) -> String {
        let value =
            kind == .apple ? "r" + random.alphanumeric(31).lowercased() + ".0.mend" : "1//0" + random.alphanumeric(60)
        issuers.tokens[value] = IssuerState.Token(
            kind: .refresh, issuer: kind, clientID: clientID, userID: userID, scopes: scopes, expiresAt: nil,
            refreshToken: nil)
        return value
    }

    /// Client authentication: Apple's client secret is an ES256 JWT signed with the team's key (`kid` the key id,
    /// `iss` the team, `sub` the client, `aud` the issuer, at most six months); Google's is the client's secret (form
    /// or HTTP Basic), and a public client sends none.
    func authenticateIssuerClient(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String
    ) -> Result<EmulatedIssuerClient, IssuerRefusal> {
        var clientID = request.form["client_id"]
        var secret = request.form["client_secret"]
        if case .valid(let basicID, let basicSecret)? = request.basicCredentials, kind == .google {
            guard clientID == nil || clientID == basicID else {
                return .failure(
                    IssuerRefusal(Self.oauthError(kind, "invalid_client", "client_id differs from the Basic client.")))
            }
            clientID = basicID
            secret = basicSecret
        }
        guard let client = issuerClient(kind, clientID) else {
            return .failure(IssuerRefusal(Self.oauthError(kind, "invalid_client", "The client is not registered.")))
        }
        switch kind {
        case .apple:
            guard let secret, verifyAppleClientSecret(secret, client: client, issuer: issuer) else {
                return .failure(IssuerRefusal(Self.oauthError(kind, "invalid_client", nil)))
            }
        case .google:
            if let expected = client.secret {
                guard let secret, ConstantTime.equal(secret, expected) else {
                    return .failure(IssuerRefusal(Self.oauthError(kind, "invalid_client", "Unauthorized")))
                }
            } else if secret != nil, secret != "" {
                return .failure(IssuerRefusal(Self.oauthError(kind, "invalid_client", "This client has no secret.")))
            }
        }
        return .success(client)
    }

    /// Whether `secret` is a valid Apple client secret for `client`.
    func verifyAppleClientSecret(_ secret: String, client: EmulatedIssuerClient, issuer: String) -> Bool {
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])),
            let payloadData = Base64URL.decode(String(parts[1])),
            let signatureData = Base64URL.decode(String(parts[2])),
            case .success(let header) = JSONValue.parse(headerData),
            case .success(let claims) = JSONValue.parse(payloadData),
            header["alg"]?.stringValue == "ES256", header["kid"]?.stringValue == client.appleKeyID,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            issuers.appleTeamKey.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return false }
        let current = now.timeIntervalSince1970
        guard claims["iss"]?.stringValue == client.appleTeamID, claims["sub"]?.stringValue == client.id,
            claims["aud"]?.stringValue == issuer, let issuedAt = claims["iat"]?.doubleValue,
            let expires = claims["exp"]?.doubleValue
        else { return false }
        return issuedAt <= current + 60 && expires > current && expires - issuedAt <= 15_777_000
    }

    /// A signed id_token in the issuer's shape.
    mutating func issuerIDToken(
        kind: EmulatedIssuerKind, clientID: String, userID: String, nonce: String?, scopes: [String], issuer: String,
        code: String?, accessToken: String?
    ) throws -> String {
        guard let user = users[userID]?.profile else { throw GraphFailure.catalog(code: 100, subcode: 33) }
        var ring = issuers.signingKeys[kind] ?? SigningKeyRing()
        let key = try ring.current(random: &random)
        issuers.signingKeys[kind] = ring
        let issuedAt = Int(now.timeIntervalSince1970)
        var claims: [(String, JSONValue?)] = [
            ("iss", .string(issuer)), ("aud", .string(clientID)), ("exp", .int(issuedAt + 3600)),
            ("iat", .int(issuedAt)), ("sub", .string(Self.issuerSubject(kind, userID: userID))),
            ("nonce", .string(nonce)), ("at_hash", .string(accessToken.map(Self.halfHash))),
        ]
        switch kind {
        case .apple:
            claims.append(("c_hash", .string(code.map(Self.halfHash))))
            claims.append(("auth_time", .int(issuedAt)))
            claims.append(("nonce_supported", .bool(true)))
            if scopes.contains("email") || code == nil {
                let email = appleEmail(userID)
                claims += [
                    ("email", .string(email.address)), ("email_verified", .string("true")),
                    ("is_private_email", .string(email.isPrivate ? "true" : "false")),
                ]
            }
            claims.append(("real_user_status", .int(2)))
        case .google:
            claims.append(("azp", .string(clientID)))
            if scopes.contains("email") {
                let email = Self.googleEmail(user)
                claims += [("email", .string(email)), ("email_verified", .bool(true))]
                if let domain = email.split(separator: "@").last, domain != "gmail.com" {
                    claims.append(("hd", .string(String(domain))))
                }
            }
            if scopes.contains("profile") {
                claims += [
                    ("name", .string(user.name)), ("given_name", .string(user.firstName)),
                    ("family_name", .string(user.lastName)), ("picture", .string(user.pictureURL)),
                ]
            }
        }
        return try SigningKeyRing.sign(claims: JSONValue.object(claims), with: key)
    }

    /// The user's subject at an issuer: Apple's `000123.<hex>.0456`, Google's 21 digits; stable per user.
    static func issuerSubject(_ kind: EmulatedIssuerKind, userID: String) -> String {
        let digest = Array(SHA256.hash(data: Data("\(kind.rawValue):\(userID)".utf8)))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        switch kind {
        case .apple:
            return String(format: "%06d", Int(digest[0]) * 1000 + Int(digest[1])) + "." + hex.prefix(32) + "."
                + String(format: "%04d", Int(digest[2]) * 10 + Int(digest[3]) % 10)
        case .google:
            // 20 decimal digits from the digest's bytes, after a leading 1: 21 digits, as Google's subjects are.
            return "1" + digest.prefix(20).map { String($0 % 10) }.joined()
        }
    }

    /// The e-mail Apple shares: the first user hides theirs behind the private relay (as "Hide My Email" does), and
    /// so does a user without one; the others share their own.
    func appleEmail(_ userID: String) -> (address: String, isPrivate: Bool) {
        if userID != userOrder.first, let email = users[userID]?.profile.email { return (email, false) }
        let digest = SHA256.hash(data: Data("relay:\(userID)".utf8)).prefix(6)
        return (digest.map { String(format: "%02x", $0) }.joined() + "@privaterelay.appleid.com", true)
    }

    /// The e-mail Google shows: the user's own (a Workspace domain gives `hd`), or a Gmail address.
    static func googleEmail(_ user: TestUser) -> String {
        user.email ?? "\(user.firstName.lowercased()).example@gmail.com"
    }

    /// The left half of a SHA-256, base64url (`at_hash`, `c_hash`).
    static func halfHash(_ value: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(value.utf8)).prefix(16)))
    }

    static func tokenResponse(_ body: JSONValue) -> EmulatorResponse {
        .json(body, headers: [.cacheControl: "no-store", HTTPField.Name("pragma")!: "no-cache"])
    }

    /// An OAuth error body: Apple answers 400 for every error, `invalid_client` included, without a description;
    /// Google answers `invalid_client` with 401.
    static func oauthError(_ kind: EmulatedIssuerKind, _ error: String, _ description: String?) -> EmulatorResponse {
        let status: HTTPResponse.Status = kind == .google && error == "invalid_client" ? .unauthorized : .badRequest
        var body: [(String, JSONValue?)] = [("error", .string(error))]
        if kind == .google { body.append(("error_description", .string(description))) }
        return .json(.object(body), status: status, headers: [.cacheControl: "no-store"])
    }

    // MARK: Revocation and userinfo

    /// Revocation (RFC 7009): the token, and for a refresh token every access token from it; recorded for tests.
    mutating func issuerRevoke(_ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String) -> EmulatorResponse
    {
        let clientID: String?
        if kind == .apple {
            switch authenticateIssuerClient(request, kind: kind, issuer: issuer) {
            case .failure(let refusal): return refusal.response
            case .success(let client): clientID = client.id
            }
        } else {
            clientID = nil
        }
        guard let value = request.parameter("token"), let token = issuers.tokens[value], token.issuer == kind,
            clientID == nil || token.clientID == clientID
        else {
            // Apple answers 200 for a token it does not know (RFC 7009 §2.2); Google says it is invalid.
            return kind == .apple
                ? EmulatorResponse(status: .ok)
                : .json(
                    .object([
                        "error": .string("invalid_token"), "error_description": .string("Token expired or revoked"),
                    ]), status: .badRequest)
        }
        if !token.revoked {
            issuers.revocations.append(
                IssuerRevocation(
                    issuer: kind.rawValue, clientID: token.clientID, userID: token.userID,
                    tokenKind: token.kind.rawValue, at: now))
        }
        issuers.tokens[value]?.revoked = true
        if token.kind == .refresh {
            for (other, record) in issuers.tokens where record.refreshToken == value {
                issuers.tokens[other]?.revoked = true
            }
        }
        return kind == .apple ? EmulatorResponse(status: .ok) : .json(.object([:]))
    }

    /// Google's userinfo endpoint, with the access token.
    func googleUserinfo(_ request: EmulatorRequest) -> EmulatorResponse {
        guard let value = request.accessToken, let token = issuers.tokens[value], token.kind == .access,
            token.issuer == .google, !token.revoked, (token.expiresAt ?? .distantFuture) > now,
            let user = users[token.userID]?.profile
        else {
            return .json(
                .object([
                    "error": .string("invalid_request"),
                    "error_description": .string("Invalid Credentials"),
                ]), status: .unauthorized,
                headers: [.wwwAuthenticate: #"Bearer realm="https://accounts.google.com/", error="invalid_token""#])
        }
        var body: [(String, JSONValue?)] = [("sub", .string(Self.issuerSubject(.google, userID: token.userID)))]
        if token.scopes.contains("profile") {
            body += [
                ("name", .string(user.name)), ("given_name", .string(user.firstName)),
                ("family_name", .string(user.lastName)), ("picture", .string(user.pictureURL)),
            ]
        }
        if token.scopes.contains("email") {
            let email = Self.googleEmail(user)
            body += [("email", .string(email)), ("email_verified", .bool(true))]
            if let domain = email.split(separator: "@").last, domain != "gmail.com" {
                body.append(("hd", .string(String(domain))))
            }
        }
        return .json(.object(body))
    }

    // MARK: Native sign-in (what a native SDK hands the app)

    /// What a native SDK hands the app after the user signs in: an id_token for `clientID` with `nonce` as given
    /// (Apple and Limited Login: the SHA-256 of the app's raw nonce, hex), and an authorization code the app's
    /// backend can exchange without a redirect URI: Apple's, for `clientID`; Google's `serverAuthCode`, for
    /// `serverClientID` (the server's web client, with offline access) when one is given.
    mutating func nativeSignIn(
        kind: EmulatedIssuerKind, clientID: String, userID: String, nonce: String?, serverClientID: String? = nil,
        baseURL: String
    ) throws(ControlError) -> JSONValue {
        guard issuerClient(kind, clientID) != nil else { throw .notFound("\(kind.rawValue) client \(clientID)") }
        guard users[userID] != nil else { throw .notFound("user \(userID)") }
        let scopes = kind == .apple ? ["name", "email"] : ["openid", "email", "profile"]
        var code: String?
        if kind == .apple {
            let value = "c" + random.alphanumeric(31).lowercased() + ".0.mend." + random.alphanumeric(40)
            issuers.codes[value] = IssuerState.Code(
                kind: kind, clientID: clientID, userID: userID, redirectURI: nil, challenge: nil,
                challengeMethod: nil, nonce: nonce, scopes: scopes, offline: true,
                expiresAt: now.addingTimeInterval(300))
            code = value
        } else if kind == .google, let serverClientID {
            guard issuerClient(kind, serverClientID)?.secret != nil else {
                throw .invalid("serverClientID must be a Google web client (one with a secret)")
            }
            let value = "4/0" + random.alphanumeric(70)
            issuers.codes[value] = IssuerState.Code(
                kind: kind, clientID: serverClientID, userID: userID, redirectURI: nil, challenge: nil,
                challengeMethod: nil, nonce: nil, scopes: scopes, offline: true, expiresAt: now.addingTimeInterval(300))
            code = value
        }
        guard
            let idToken = try? issuerIDToken(
                kind: kind, clientID: clientID, userID: userID, nonce: nonce, scopes: scopes,
                issuer: kind.issuer(baseURL: baseURL), code: code, accessToken: nil)
        else { throw .invalid("the id_token could not be signed") }
        return JSONValue.object([("id_token", .string(idToken)), ("authorization_code", .string(code))])
    }
}

/// A client authentication the issuer refused, with its answer.
struct IssuerRefusal: Error {
    var response: EmulatorResponse
    init(_ response: EmulatorResponse) { self.response = response }
}

/// PKCE verification (RFC 7636 §4.6).
enum PKCEProof {
    static func matches(verifier: String, challenge: String, method: String) -> Bool {
        guard (43...128).contains(verifier.count) else { return false }
        return ConstantTime.equal(method == "S256" ? EmulatorState.s256(verifier) : verifier, challenge)
    }
}
