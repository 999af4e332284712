import Foundation
import HTTPTypes
import Logging
import MendCore
import MendGraphAPI
import MendLogin

extension LoginBackend {
    /// `POST /v1/login/code`: exchange the code, verify the token, get a long-lived one, fetch the profile and the
    /// permissions, store the user, and open a session.
    func login(_ body: LoginRequestBody, clientAddress: String, logger: Logger) async throws -> SessionBody {
        try validate(body)
        if let rule = configuration.rateLimits.loginPerAddress {
            try await enforce(
                rule, key: "login:ip:\(RateLimiter.addressKey(clientAddress))", scope: "login per address")
        }
        let codeHash = OpaqueToken.hash(body.code)
        if let name = body.provider, name != "facebook" {
            return try await login(issuerCode: body, provider: name, codeHash: codeHash, logger: logger)
        }
        guard try await store.claimLoginCode(hash: codeHash, now: now) else {
            throw try await replayedCode(hash: codeHash, logger: logger)
        }
        let exchanged: ProviderToken
        do {
            exchanged = try await upstream("code exchange", logger: logger) {
                try await provider.exchangeCode(
                    body.code, redirectURI: body.redirectURI, codeVerifier: body.codeVerifier)
            }
        } catch let failure as ServerFailure {
            // Only a code the provider certainly did not use is released for the app to try again; after a timeout
            // or a dropped connection the provider may have used it, and sending it twice is what RFC 9700 forbids.
            if Self.exchangeCertainlyUnused(failure.error) { try? await store.releaseLoginCode(hash: codeHash) }
            metrics.login(outcome: "code_exchange_failed")
            throw failure
        }
        do {
            let session = try await completeLogin(token: exchanged, codeHash: codeHash, logger: logger)
            metrics.login(outcome: "success")
            return session
        } catch {
            metrics.login(outcome: "rejected")
            throw error
        }
    }

    /// `POST /v1/login/provider-token`: a user access token the app got from the provider by itself (device login),
    /// checked with `debug_token` — this app's, valid, a user's, with the required scopes — then the same steps and
    /// the same session as a code login. A token issued to another app is refused (401), so a token from another
    /// app's login cannot open a session here.
    func login(providerToken: String, clientAddress: String, logger: Logger) async throws -> SessionBody {
        if let rule = configuration.rateLimits.loginPerAddress {
            try await enforce(
                rule, key: "login:ip:\(RateLimiter.addressKey(clientAddress))", scope: "login per address")
        }
        do {
            let session = try await completeLogin(
                token: ProviderToken(value: providerToken, expiresIn: nil), codeHash: nil, logger: logger)
            metrics.login(outcome: "success")
            return session
        } catch {
            metrics.login(outcome: "rejected")
            throw error
        }
    }

    private func completeLogin(
        token exchanged: ProviderToken, codeHash: String?, logger: Logger
    ) async throws
        -> SessionBody
    {
        let inspection = try await upstream("debug_token", logger: logger) {
            try await provider.inspect(exchanged.value)
        }
        let verdict = inspection.verdict(appID: configuration.appID, requiredScopes: configuration.requiredScopes)
        guard case .success(let accepted) = verdict else {
            if case .failure(let error) = verdict {
                logger.notice(
                    "login refused by debug_token",
                    metadata: [
                        "error": .string(error.shortDescription),
                        "message": .string(redactor.redact(text: error.developerMessage)),
                    ])
                throw ServerFailure.upstream(error, operation: "debug_token")
            }
            throw ServerFailure.internalFailure("debug_token gave no verdict")
        }
        if let rule = configuration.rateLimits.loginPerUser {
            try await enforce(rule, key: "login:user:\(accepted.userID)", scope: "login per user")
        }
        var token = exchanged
        if configuration.exchangesForLongLivedToken {
            token = try await upstream("long-lived exchange", logger: logger) {
                try await provider.exchangeForLongLived(exchanged.value)
            }
        }
        let providerToken = token.value
        let profile = try await upstream("profile", logger: logger) { try await provider.profile(providerToken) }
        guard profile.id == accepted.userID else {
            throw ServerFailure.upstream(
                MendError(
                    code: .Graph.accessTokenInvalid, subcode: .invalidAccessToken,
                    developerMessage: "The profile belongs to another user than debug_token named.", catalog: .server),
                operation: "profile")
        }
        let permissions = try await upstream("permissions", logger: logger) {
            try await provider.permissions(providerToken)
        }
        let granted = permissions.granted.isEmpty ? accepted.scopes : permissions.granted
        let user = try await store.upsertUser(
            ServerStore.LoginUpsert(
                providerUserID: profile.id, name: profile.name, email: profile.email, picture: profile.picture,
                grantedScopes: granted, declinedScopes: permissions.declined, providerToken: providerToken,
                providerTokenExpiresAt: token.expiresIn.map { now + Int64($0) }),
            now: now)
        _ = try await store.addIdentity(
            ServerStore.IdentityClaims(provider: "facebook", subject: profile.id, email: profile.email),
            userID: user.id,
            now: now)
        let session = try await openSession(for: user)
        if let codeHash { try await store.attachSession(session.sessionID, toCodeHash: codeHash) }
        logger.info("login", metadata: ["user_id": .string(user.id), "session_id": .string(session.sessionID)])
        return sessionBody(session, providerToken: configuration.returnsProviderToken ? providerToken : nil)
    }

    /// Whether a failed code exchange certainly left the code unused, so that the app may send it again: a
    /// transient failure where the request never reached the provider (no connection, no address), or where
    /// the provider answered with its own error (a token endpoint that answers an error issued no token). A timeout,
    /// a dropped connection, an unreadable answer or a gateway's page is ambiguous: the code stays claimed.
    static func exchangeCertainlyUnused(_ error: MendError) -> Bool {
        guard error.category == .transient else { return false }
        switch error.domain {
        case .transport:
            return [.Transport.cannotConnect, .Transport.cannotFindHost, .Transport.notConnected].contains(error.code)
        case .graph:
            return true
        default:
            return false
        }
    }

    private func validate(_ body: LoginRequestBody) throws {
        guard !body.code.isEmpty, body.code.utf8.count <= 4096 else {
            throw ServerFailure.badRequest("code is missing or too long.")
        }
        guard RedirectURIPolicy.allows(body.redirectURI, allowed: configuration.allowedRedirectURIs) else {
            throw ServerFailure.badRequest("redirect_uri is not one of the server's allowed redirect URIs.")
        }
        guard body.codeVerifier != nil || !configuration.requiresPKCE else {
            throw ServerFailure.badRequest(
                "code_verifier is required: log in with PKCE (RFC 7636, S256). A server for confidential clients only "
                    + "can allow logins without it (MEND_REQUIRE_PKCE=false).")
        }
        if let verifier = body.codeVerifier, !CodeVerifierRule.isValid(verifier) {
            throw ServerFailure.badRequest("code_verifier must be 43–128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636).")
        }
    }

    /// A code seen before: revoke the session it issued (RFC 9700 §4.2.4), and refuse as the provider does.
    func replayedCode(hash: String, logger: Logger) async throws -> ServerFailure {
        metrics.login(outcome: "code_replayed")
        if let sessionID = try await store.sessionIssued(byCodeHash: hash) {
            let reason = SessionEndReason.codeReplayed
            let revoked = try await store.revokeSession(id: sessionID, reason: reason, now: now)
            if revoked { metrics.sessionsEnded(reason: reason.metricsLabel, count: 1) }
            logger.warning(
                "authorization code replayed: the session it issued is revoked",
                metadata: ["session_id": .string(sessionID)])
        } else {
            logger.warning("authorization code replayed")
        }
        return ServerFailure(
            MendError(
                code: .Graph.invalidParameter, subcode: MendError.Subcode(rawValue: 36009),
                developerMessage: "This authorization code has been used.", catalog: .server),
            status: .badRequest)
    }

    /// Takes a token from the rate-limit bucket or throws 429.
    ///
    /// On PostgreSQL the buckets are shared by every instance (one row per key, see
    /// `ServerStore.takeRateLimitToken`); on SQLite (one instance) they are kept in memory.
    func enforce(_ rule: RateLimitRule, key: String, scope: String) async throws {
        let wait: Int?
        if database.kind == .postgres {
            wait = try await store.takeRateLimitToken(
                key: key, rule: rule, now: configuration.now().timeIntervalSince1970
            ).map { max(1, Int($0.rounded(.up))) }
        } else {
            wait = await rateLimiter.check(key: key, rule: rule, now: configuration.now())
        }
        if let wait {
            metrics.rateLimited(scope: scope)
            throw ServerFailure.rateLimited(retryAfter: wait, scope: scope)
        }
    }
}
