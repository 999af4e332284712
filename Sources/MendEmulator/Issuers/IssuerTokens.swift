import Crypto
import Foundation
import HTTPTypes
import MendCore

/// The emulated issuers' authorization codes, access and refresh tokens, and the revocations they received: issuing
/// them, client authentication, the token endpoint's code and refresh grants, revocation and Google's userinfo.
struct IssuerTokens: Sendable {
    /// An authorization code.
    struct Code: Sendable, Hashable {
        var kind: EmulatedIssuerKind
        var clientID: String
        var userID: String
        /// `nil` for a native sign-in's code (it was never redirected).
        var redirectURI: String?
        var challenge: String?
        var challengeMethod: String?
        var nonce: String?
        var scopes: [String]
        var offline: Bool
        var expiresAt: Date
        /// The thumbprint of the key the authorization request named (`dpop_jkt`, RFC 9449 §10): the token request
        /// redeeming the code must prove it.
        var dpopJKT: String? = nil
        var used = false
        var issuedTokens: [String] = []
    }

    /// An access or refresh token.
    struct Token: Sendable, Hashable {
        enum Kind: String, Sendable { case access, refresh }
        var kind: Kind
        var issuer: EmulatedIssuerKind
        var clientID: String
        var userID: String
        var scopes: [String]
        var expiresAt: Date?
        /// The refresh token an access token came from (revoking it revokes them).
        var refreshToken: String?
        var revoked = false
        /// The thumbprint of the key the token is bound to (DPoP), or `nil` for a bearer token.
        var jkt: String?
    }

    var codes: [String: Code] = [:]
    var tokens: [String: Token] = [:]
    /// Every revocation, in order (`GET /_emulator/issuers/revocations`); Facebook's `DELETE /me/permissions` too.
    var revocations: [IssuerRevocation] = []

    /// The refresh-token grant: a new access token (and an id_token for Apple, or Google with `openid`), bound to
    /// `jkt` when the request proved that key; a bound refresh token only with a proof of its own key while the issuer
    /// speaks DPoP (`checksBinding`: with DPoP turned off it is taken as a bearer one, as userinfo takes its tokens).
    mutating func refresh(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, client: EmulatedIssuerClient, issuer: String,
        jkt: String?, checksBinding: Bool, keys: inout IssuerKeys, users: UserDirectory,
        context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard let value = request.form["refresh_token"], let token = tokens[value], token.kind == .refresh,
            token.issuer == kind, token.clientID == client.id, !token.revoked
        else {
            return IssuerWire.oauthError(kind, "invalid_grant", "The refresh token is invalid, expired or revoked.")
        }
        if checksBinding, let bound = token.jkt, jkt.map({ ConstantTime.equal($0, bound) }) != true {
            return Self.unproven("The refresh token is bound to a key: prove it (RFC 9449 §5).")
        }
        let access = issueAccessToken(
            kind: kind, clientID: client.id, userID: token.userID, scopes: token.scopes, refreshToken: value,
            jkt: jkt, context: &context)
        var body: [(String, JSONValue?)] = [
            ("access_token", .string(access)), ("token_type", .string(jkt == nil ? "Bearer" : "DPoP")),
            ("expires_in", .int(kind == .apple ? 3600 : 3599)),
        ]
        if kind == .google { body.append(("scope", .string(IssuerWire.googleScopeText(token.scopes)))) }
        if kind == .apple || token.scopes.contains("openid"),
            let idToken = try? keys.idToken(
                kind: kind, clientID: client.id, userID: token.userID, nonce: nil, scopes: token.scopes,
                issuer: issuer, code: nil, accessToken: access, users: users, context: &context)
        {
            body.append(("id_token", .string(idToken)))
        }
        return IssuerWire.tokenResponse(.object(body))
    }

    /// The authorization-code grant: the code (with PKCE) for an access token, a refresh token (Apple, or Google
    /// with offline access) and an id_token; a replayed code revokes what it issued. With `jkt` (the request proved
    /// a key) the access token is bound to it, and so is a public client's refresh token (RFC 9449 §5; a
    /// confidential client's is bound by its authentication already). A code whose authorization request named a
    /// key (`dpop_jkt`) is redeemed only with a proof of that key while the issuer speaks DPoP (`checksBinding`,
    /// RFC 9449 §10); a request without it is refused before the code is spent.
    mutating func exchange(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, client: EmulatedIssuerClient, issuer: String,
        jkt: String?, checksBinding: Bool, keys: inout IssuerKeys, users: UserDirectory,
        context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard let value = request.form["code"], var code = codes[value], code.kind == kind,
            code.clientID == client.id
        else {
            return IssuerWire.oauthError(kind, "invalid_grant", "The code is invalid or was issued to another client.")
        }
        guard !code.used else {
            // A replayed code: what it issued is revoked (RFC 6749 §4.1.2).
            for token in code.issuedTokens { tokens[token]?.revoked = true }
            return IssuerWire.oauthError(kind, "invalid_grant", "The code has already been used.")
        }
        guard code.expiresAt > context.now else {
            return IssuerWire.oauthError(kind, "invalid_grant", "The code has expired.")
        }
        guard request.form["redirect_uri"] == code.redirectURI else {
            return IssuerWire.oauthError(
                kind, "invalid_grant", "redirect_uri does not match the authorization request.")
        }
        if let challenge = code.challenge {
            guard let verifier = request.form["code_verifier"],
                PKCEProof.matches(verifier: verifier, challenge: challenge, method: code.challengeMethod ?? "plain")
            else {
                return IssuerWire.oauthError(kind, "invalid_grant", "The code_verifier does not match the challenge.")
            }
        }
        if checksBinding, let bound = code.dpopJKT, jkt.map({ ConstantTime.equal($0, bound) }) != true {
            return Self.unproven(
                jkt == nil
                    ? "The code is bound to a key by dpop_jkt: prove it (RFC 9449 §10)."
                    : "The proof is of another key than the authorization request's dpop_jkt (RFC 9449 §10).")
        }
        code.used = true
        let refresh: String? =
            kind == .apple || code.offline ? issueRefreshToken(kind: kind, code: code, context: &context) : nil
        if let refresh, client.secret == nil, kind == .google { tokens[refresh]?.jkt = jkt }
        let access = issueAccessToken(
            kind: kind, clientID: client.id, userID: code.userID, scopes: code.scopes, refreshToken: refresh,
            jkt: jkt, context: &context)
        code.issuedTokens = [access] + (refresh.map { [$0] } ?? [])
        codes[value] = code
        var body: [(String, JSONValue?)] = [
            ("access_token", .string(access)), ("token_type", .string(jkt == nil ? "Bearer" : "DPoP")),
            ("expires_in", .int(kind == .apple ? 3600 : 3599)), ("refresh_token", .string(refresh)),
        ]
        if kind == .google { body.append(("scope", .string(IssuerWire.googleScopeText(code.scopes)))) }
        if kind == .apple || code.scopes.contains("openid") {
            guard
                let idToken = try? keys.idToken(
                    kind: kind, clientID: client.id, userID: code.userID, nonce: code.nonce, scopes: code.scopes,
                    issuer: issuer, code: nil, accessToken: access, users: users, context: &context)
            else { return IssuerWire.oauthError(kind, "server_error", "The id_token could not be signed.") }
            body.append(("id_token", .string(idToken)))
        }
        return IssuerWire.tokenResponse(.object(body))
    }

    /// The token endpoint's refusal of a request that does not prove the key a grant is bound to: 400,
    /// `invalid_dpop_proof`, as the issuer's other refusals of a proof there (RFC 9449 §5).
    static func unproven(_ description: String) -> EmulatorResponse {
        .json(
            .object(["error": .string("invalid_dpop_proof"), "error_description": .string(description)]),
            status: .badRequest, headers: [.cacheControl: "no-store"])
    }

    mutating func issueAccessToken(
        kind: EmulatedIssuerKind, clientID: String, userID: String, scopes: [String], refreshToken: String?,
        jkt: String? = nil, context: inout EmulatorContext
    ) -> String {
        let value =
            kind == .apple
            ? "a" + context.random.alphanumeric(31).lowercased() + ".0.mend" : "ya29." + context.random.alphanumeric(60)
        tokens[value] = Token(
            kind: .access, issuer: kind, clientID: clientID, userID: userID, scopes: scopes,
            expiresAt: context.now.addingTimeInterval(3600), refreshToken: refreshToken, jkt: jkt)
        return value
    }

    private mutating func issueRefreshToken(
        kind: EmulatedIssuerKind, code: Code, context: inout EmulatorContext
    ) -> String {
        issueRefreshToken(
            kind: kind, clientID: code.clientID, userID: code.userID, scopes: code.scopes, context: &context)
    }

    mutating func issueRefreshToken(
        kind: EmulatedIssuerKind, clientID: String, userID: String, scopes: [String], context: inout EmulatorContext
    ) -> String {
        let value =
            kind == .apple
            ? "r" + context.random.alphanumeric(31).lowercased() + ".0.mend" : "1//0" + context.random.alphanumeric(60)
        tokens[value] = Token(
            kind: .refresh, issuer: kind, clientID: clientID, userID: userID, scopes: scopes, expiresAt: nil,
            refreshToken: nil)
        return value
    }

    /// Client authentication: Apple's client secret is an ES256 JWT signed with the team's key (`kid` the key id,
    /// `iss` the team, `sub` the client, `aud` the issuer, at most six months); Google's is the client's secret (form
    /// or HTTP Basic), and a public client sends none.
    static func authenticateClient(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String, keys: IssuerKeys,
        context: EmulatorContext
    ) -> Result<EmulatedIssuerClient, IssuerRefusal> {
        var clientID = request.form["client_id"]
        var secret = request.form["client_secret"]
        if case .valid(let basicID, let basicSecret)? = request.basicCredentials, kind == .google {
            guard clientID == nil || clientID == basicID else {
                return .failure(
                    IssuerRefusal(
                        IssuerWire.oauthError(kind, "invalid_client", "client_id differs from the Basic client.")))
            }
            clientID = basicID
            secret = basicSecret
        }
        guard let client = context.configuration.issuerClient(kind, clientID) else {
            return .failure(
                IssuerRefusal(IssuerWire.oauthError(kind, "invalid_client", "The client is not registered.")))
        }
        switch kind {
        case .apple:
            guard let secret, keys.verifyAppleClientSecret(secret, client: client, issuer: issuer, now: context.now)
            else {
                return .failure(IssuerRefusal(IssuerWire.oauthError(kind, "invalid_client", nil)))
            }
        case .google:
            if let expected = client.secret {
                guard let secret, ConstantTime.equal(secret, expected) else {
                    return .failure(IssuerRefusal(IssuerWire.oauthError(kind, "invalid_client", "Unauthorized")))
                }
            } else if secret != nil, secret != "" {
                return .failure(
                    IssuerRefusal(IssuerWire.oauthError(kind, "invalid_client", "This client has no secret.")))
            }
        }
        return .success(client)
    }

    // MARK: Revocation and userinfo

    /// Revocation (RFC 7009): the token, and for a refresh token every access token from it; recorded for tests.
    mutating func revoke(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String, keys: IssuerKeys,
        context: EmulatorContext
    ) -> EmulatorResponse {
        let clientID: String?
        if kind == .apple {
            switch Self.authenticateClient(request, kind: kind, issuer: issuer, keys: keys, context: context) {
            case .failure(let refusal): return refusal.response
            case .success(let client): clientID = client.id
            }
        } else {
            clientID = nil
        }
        guard let value = request.parameter("token"), let token = tokens[value], token.issuer == kind,
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
            revocations.append(
                IssuerRevocation(
                    issuer: kind.rawValue, clientID: token.clientID, userID: token.userID,
                    tokenKind: token.kind.rawValue, at: context.now))
        }
        tokens[value]?.revoked = true
        if token.kind == .refresh {
            for (other, record) in tokens where record.refreshToken == value {
                tokens[other]?.revoked = true
            }
        }
        return kind == .apple ? EmulatorResponse(status: .ok) : .json(.object([:]))
    }

    /// Google's userinfo endpoint, with the access token `value` (its binding already checked).
    func userinfo(_ value: String?, users: UserDirectory, context: EmulatorContext) -> EmulatorResponse {
        guard let value, let token = tokens[value], token.kind == .access,
            token.issuer == .google, !token.revoked, (token.expiresAt ?? .distantFuture) > context.now,
            let user = users[token.userID]?.profile
        else {
            return .json(
                .object([
                    "error": .string("invalid_request"),
                    "error_description": .string("Invalid Credentials"),
                ]), status: .unauthorized,
                headers: [.wwwAuthenticate: #"Bearer realm="https://accounts.google.com/", error="invalid_token""#])
        }
        let subject: [(String, JSONValue?)] = [("sub", .string(IssuerClaims.subject(.google, userID: token.userID)))]
        return .json(.object(subject + IssuerClaims.google(user, scopes: token.scopes)))
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
        return ConstantTime.equal(method == "S256" ? TokenBook.s256(verifier) : verifier, challenge)
    }
}
