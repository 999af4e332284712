import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin

/// `POST /v1/login/id_token`.
struct IDTokenLoginBody: Sendable {
    var provider: String
    var idToken: String
    /// The raw nonce the app generated (the token holds it, or its SHA-256 in hex).
    var nonce: String
    /// The authorization code the native sign-in also returned (Apple's `authorizationCode`, Google's
    /// `serverAuthCode`), exchanged by the provider's ``ProviderTokenKeeper`` for a token the server keeps to revoke
    /// at account deletion.
    var authorizationCode: String? = nil
}

/// The id_token validators of the configured issuers, one per provider name, made once (each caches its key set).
struct IDTokenValidators: Sendable {
    let byName: [String: (issuer: IDTokenIssuer, validator: IDTokenValidator)]
    /// How the issuers' token keepers call their providers.
    let transport: any HTTPTransport

    init(issuers: [IDTokenIssuer], transport: any HTTPTransport, clock: PipelineClock) {
        self.transport = transport
        byName = Dictionary(
            uniqueKeysWithValues: issuers.map { issuer in
                (
                    issuer.name,
                    (
                        issuer,
                        IDTokenValidator(
                            issuer: issuer.issuer, clientIDs: issuer.clientIDs, jwksURI: issuer.jwksURI,
                            transport: transport, clock: clock)
                    )
                )
            })
    }
}

extension ProviderLogins {
    /// `POST /v1/login/id_token`: validate an id_token a native SDK handed the app (its signature by the issuer's
    /// keys, `iss`, `aud`, `exp`, `iat`, the nonce), find or create the user by `(provider, subject)`, and open a
    /// session as a code login does.
    ///
    /// With a valid access token in `Authorization`, the identity is linked to that session's user instead: linking
    /// takes a signed-in session and a fresh id_token, never a matching e-mail. An identity another user has already
    /// is refused (rest/409). Each id_token is accepted once.
    func login(
        idToken body: IDTokenLoginBody, request: PresentedRequest, client: SessionClient, logger: Logger
    ) async throws -> SessionBody {
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "login")
        guard let (issuer, validator) = idTokenValidators.byName[body.provider] else {
            let known = idTokenValidators.byName.keys.sorted()
            throw ServerFailure.badRequest(
                "provider \(body.provider) is not configured for id_token sign-in here"
                    + (known.isEmpty ? " (none is)." : " (configured: \(known.joined(separator: ", ")))."))
        }
        // A linking request must carry a session that is valid now: check it before the token is spent.
        let linkingUserID =
            request.presentedToken == nil ? nil : try await sessions.authenticate(request).subject
        let rule: IDTokenValidator.NonceRule =
            issuer.nonceHashing == .sha256Hex ? .sha256Hex(ofRawNonce: body.nonce) : .exact(body.nonce)
        let claims: IDTokenValidator.Claims
        do {
            claims = try await validator.validate(body.idToken, nonceRule: rule)
        } catch let error as MendError where error.code == .Login.invalidIDToken {
            await refused("id_token_rejected", provider: issuer.name, client: client, error: error, logger: logger)
            logger.notice(
                "id_token refused",
                metadata: ["provider": .string(issuer.name), "error": .string(error.developerMessage)])
            throw ServerFailure(error)
        } catch let error as MendError {
            metrics.upstreamFailure(operation: "\(issuer.name) keys", error: error.shortDescription)
            throw ServerFailure.upstream(error, operation: "\(issuer.name) key set")
        }
        if let rule = sessions.settings.rateLimits.loginPerUser {
            try await enforce(rule, key: Self.userRateKey(issuer.name, claims.subject), scope: "login per user")
        }
        // The same token twice is a replay (the nonce is the app's, and an app asks for one token per nonce).
        let tokenHash = OpaqueToken.hash("id_token:" + body.idToken)
        guard try await codes.claimLoginCode(hash: tokenHash, now: now) else {
            await refused("id_token_replayed", provider: issuer.name, client: client, error: nil, logger: logger)
            throw ServerFailure(
                MendError(
                    code: .Login.invalidIDToken, developerMessage: "This id_token has been used.", catalog: .server))
        }
        // The code is exchanged (and checked to be this sign-in's) before any user or identity is written: a refused
        // code leaves nothing behind.
        let kept = try await body.authorizationCode.asyncMap {
            try await keepToken(code: $0, claims: claims, issuer: issuer, validator: validator, logger: logger)
        }
        var identity = ProviderIdentity(claims, kept: kept ?? nil)
        identity.grantedScopes = kept??.scopes ?? []
        return try await completeIdentityLogin(
            identity, provider: issuer.name, flow: "id_token", linkingTo: linkingUserID,
            hash: tokenHash, client: client, logger: logger)
    }

    /// What every login ends with, whatever its provider: its user (found, linked or created; the profile replaced
    /// when the provider read it whole), the provider token kept on the identity, a session bound to the code's or
    /// token's hash, the metric and the log line.
    func completeIdentityLogin(
        _ login: ProviderIdentity, provider: String, flow: String, linkingTo linkingUserID: String?, hash: String?,
        client: SessionClient?, logger: Logger
    ) async throws -> SessionBody {
        let identity = IdentityClaims(
            provider: provider, subject: login.subject, email: login.email, emailVerified: login.emailVerified,
            isPrivateEmail: login.isPrivateEmail)
        var user = try await user(for: identity, name: login.name, linkingTo: linkingUserID, logger: logger)
        if login.replacesProfile {
            guard
                let replaced = try await identities.replaceProfile(
                    userID: user.id, name: login.name ?? user.name, email: login.email, picture: login.picture,
                    granted: login.grantedScopes, declined: login.declinedScopes, now: now)
            else { throw ServerFailure.sessionEnded(.userDeleted) }
            user = replaced
        } else {
            let added = login.grantedScopes.filter { !user.grantedScopes.contains($0) }
            if !added.isEmpty {
                // What the provider's token answer granted (its `scope`): the session's scopes, as Facebook's are.
                user.grantedScopes += added
                try await identities.setGrantedScopes(user.grantedScopes, userID: user.id, now: now)
            }
        }
        if let kept = login.kept {
            try await identities.keepProviderToken(
                provider: identity.provider, subject: identity.subject, clientID: kept.clientID, token: kept.token,
                expiresAt: kept.expiresAt.map { Int64($0.timeIntervalSince1970) }, now: now)
        }
        let session = try await sessions.openSession(for: user, client: client, provider: provider, flow: flow)
        if let hash { try await codes.attachSession(session.sessionID, toCodeHash: hash) }
        metrics.login(outcome: "success")
        logger.info(
            "login",
            metadata: [
                "provider": .string(provider), "user_id": .string(user.id), "session_id": .string(session.sessionID),
            ])
        let handedOut = login.kept.flatMap {
            $0.isAccessToken && providerSettings.returnsProviderToken ? $0 : nil
        }
        return sessions.sessionBody(session, providerToken: handedOut?.token)
    }

    /// Exchanges the authorization code of a native sign-in with the provider's ``ProviderTokenKeeper``, for a token
    /// to keep on the identity so that account deletion can revoke at the provider. A code the provider refuses (or
    /// one from another sign-in, or for a provider without a keeper) fails the sign-in, since the app sent it to be
    /// kept; a provider outage does not (`nil`, logged: the account then reports the provider as not revoked at
    /// deletion).
    private func keepToken(
        code: String, claims: IDTokenValidator.Claims, issuer: IDTokenIssuer, validator: IDTokenValidator,
        logger: Logger
    ) async throws -> KeptProviderToken? {
        guard let keeper = issuer.tokenKeeper else {
            throw ServerFailure.badRequest(
                "authorization_code is kept only for a provider with a token keeper: Apple with MEND_APPLE_TEAM_ID, "
                    + "MEND_APPLE_KEY_ID and MEND_APPLE_PRIVATE_KEY_FILE; Google with MEND_GOOGLE_SERVER_CLIENT_ID and "
                    + "MEND_GOOGLE_SERVER_CLIENT_SECRET.")
        }
        let audience = claims.audience.filter(issuer.clientIDs.contains)
        let kept: KeptProviderToken?
        do {
            kept = try await keeper.exchange(
                code: code, audience: audience, transport: idTokenValidators.transport, now: clock.now())
        } catch let error as MendError where error.category == .transient {
            metrics.upstreamFailure(operation: "\(issuer.name) code exchange", error: error.shortDescription)
            logger.notice(
                "code exchange failed: no token kept to revoke at deletion",
                metadata: ["provider": .string(issuer.name), "error": .string(error.shortDescription)])
            return nil
        } catch let error as MendError {
            throw ServerFailure.upstream(error, operation: "\(issuer.name) code exchange")
        }
        // The code must be this sign-in's: the token endpoint's id_token names the same subject. An answer without
        // one cannot show that, so the code is refused rather than kept on the wrong user.
        guard let kept else { return nil }
        guard let idToken = kept.idToken else {
            throw ServerFailure.badRequest(
                "\(issuer.name) answered authorization_code without an id_token: it cannot be shown to be this sign-in's."
            )
        }
        let again = try? await validator.validate(idToken, nonceRule: nil)
        guard again?.subject == claims.subject else {
            throw ServerFailure.badRequest("authorization_code belongs to another sign-in than id_token.")
        }
        return kept
    }

    /// The user the identity signs in: its owner, the linking session's user, or a new user.
    func user(
        for identity: IdentityClaims, name: String?, linkingTo linkingUserID: String?, logger: Logger
    ) async throws -> UserRecord {
        if let existing = try await identities.identity(provider: identity.provider, subject: identity.subject) {
            if let linkingUserID, linkingUserID != existing.userID {
                throw ServerFailure(
                    MendError(
                        code: .REST.updateConflict,
                        developerMessage:
                            "This \(identity.provider) account is linked to another user; it cannot be linked to this one.",
                        catalog: .server))
            }
            try await identities.touchIdentity(identity, now: now)
            guard let user = try await identities.user(id: existing.userID) else {
                // Its user was deleted meanwhile (an account deletion racing this sign-in).
                throw ServerFailure.sessionEnded(.userDeleted)
            }
            return user
        }
        if let linkingUserID {
            guard let user = try await identities.user(id: linkingUserID) else {
                throw ServerFailure.sessionEnded(.userDeleted)
            }
            guard try await identities.addIdentity(identity, userID: user.id, now: now) else {
                // Linked by a concurrent request meanwhile: decide again.
                return try await self.user(for: identity, name: name, linkingTo: linkingUserID, logger: logger)
            }
            logger.info(
                "identity linked", metadata: ["provider": .string(identity.provider), "user_id": .string(user.id)])
            return try await identities.user(id: user.id) ?? user
        }
        // The Facebook id becomes the user's `provider_user_id` (unique) when the identity is added, not here: two
        // first logins of one Facebook user at once each create a user, and the one whose identity loses is deleted.
        let created = try await identities.createUser(
            name: name ?? identity.email ?? "\(identity.provider) user", email: identity.email, facebookUserID: nil,
            now: now)
        if try await identities.addIdentity(identity, userID: created.id, now: now) {
            return try await identities.user(id: created.id) ?? created  // with the Facebook id the identity gave it
        }
        // A concurrent sign-in of the same identity created its user first: use that one.
        _ = try await identities.deleteUser(id: created.id, now: now)
        return try await user(for: identity, name: name, linkingTo: nil, logger: logger)
    }
}
