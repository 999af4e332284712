import Foundation
import HTTPTypes
import Logging
import MendCore
import MendLogin

extension LoginBackend {
    /// `POST /v1/login/code` with `provider` naming a configured issuer (`google`, any OpenID Connect provider): the
    /// issuer's ``ProviderTokenKeeper`` exchanges the code with the server's client secret, the redirect URI and the
    /// PKCE verifier; the id_token of the answer (validated as a native sign-in's, without a nonce: the server never
    /// saw the app's) says who logged in; the user is found or created by `(provider, subject)`, the refresh token is
    /// kept for account deletion, and the session is the one every login opens. Each code is used once.
    func login(
        issuerCode body: LoginRequestBody, provider name: String, codeHash: String, logger: Logger
    )
        async throws -> SessionBody
    {
        guard let (issuer, validator) = idTokenValidators.byName[name], let keeper = issuer.tokenKeeper else {
            throw ServerFailure.badRequest("provider \(name) does not take code logins here.")
        }
        guard try await store.claimLoginCode(hash: codeHash, now: now) else {
            throw try await replayedCode(hash: codeHash, logger: logger)
        }
        let kept: KeptProviderToken?
        do {
            kept = try await upstream("\(name) code exchange", logger: logger) {
                try await keeper.exchange(
                    loginCode: body.code, redirectURI: body.redirectURI, codeVerifier: body.codeVerifier,
                    transport: idTokenValidators.transport, now: configuration.now())
            }
        } catch let failure as ServerFailure {
            if Self.exchangeCertainlyUnused(failure.error) { try? await store.releaseLoginCode(hash: codeHash) }
            metrics.login(outcome: "code_exchange_failed")
            throw failure
        }
        guard let kept else {
            try? await store.releaseLoginCode(hash: codeHash)
            throw ServerFailure.badRequest("provider \(name) does not take code logins here.")
        }
        guard let idToken = kept.idToken else {
            metrics.login(outcome: "rejected")
            throw ServerFailure.badRequest("\(name) answered the code without an id_token: ask for the openid scope.")
        }
        let claims: IDTokenValidator.Claims
        do {
            claims = try await validator.validate(idToken, nonceRule: nil)
        } catch let error as MendError where error.code == .Login.invalidIDToken {
            metrics.login(outcome: "id_token_rejected")
            throw ServerFailure(error, status: .unauthorized)
        }
        if let rule = configuration.rateLimits.loginPerUser {
            try await enforce(rule, key: "login:\(issuer.name):\(claims.subject)", scope: "login per user")
        }
        return try await completeIdentityLogin(
            claims: claims, issuer: issuer, linkingTo: nil, kept: kept, hash: codeHash, logger: logger)
    }
}
