import Foundation
import HTTPTypes
import MendCore
import MendLogin

/// A configured ``IDTokenIssuer`` as a ``CodeLoginProvider``: its ``ProviderTokenKeeper`` exchanges the code with the
/// server's client secret, the redirect URI and the PKCE verifier (or answers that it takes no code logins: Apple's,
/// whose web flow posts its answer to the app's own https server), the answer's id_token says who logged in
/// (validated as a native sign-in's, without a nonce: the server never saw the app's), and the keeper revokes what it
/// kept at account deletion.
struct IssuerCodeLogin: CodeLoginProvider {
    let issuer: IDTokenIssuer
    let validator: IDTokenValidator

    var name: String { issuer.name }

    func exchange(_ code: CodeLoginRequest, context: ProviderCallContext) async throws -> ProviderGrant? {
        guard let keeper = issuer.tokenKeeper else { return nil }
        let kept = try await context.call("\(name) code exchange") {
            try await keeper.exchange(
                loginCode: code.code, redirectURI: code.redirectURI, codeVerifier: code.codeVerifier,
                transport: context.transport, now: context.now)
        }
        // The keeper answers with the token to keep (its refresh token, else its access token).
        return kept.map {
            ProviderGrant(clientID: $0.clientID, refreshToken: $0.token, idToken: $0.idToken, scopes: $0.scopes)
        }
    }

    func identify(_ grant: ProviderGrant, context: ProviderCallContext) async throws -> ProviderIdentity {
        guard let idToken = grant.idToken else {
            throw ServerFailure.badRequest("\(name) answered the code without an id_token: ask for the openid scope.")
        }
        let claims: IDTokenValidator.Claims
        do {
            claims = try await validator.validate(idToken, nonceRule: nil)
        } catch let error as MendError where error.code == .Login.invalidIDToken {
            throw ServerFailure(error)
        }
        var identity = ProviderIdentity(claims, kept: grant.tokenToKeep)
        identity.grantedScopes = grant.scopes
        return identity
    }

    func revoke(_ token: KeptProviderToken, context: ProviderCallContext) async throws {
        guard let keeper = issuer.tokenKeeper else { return }
        try await context.call("\(name) revocation") {
            try await keeper.revoke(token, transport: context.transport, now: context.now)
        }
    }
}

extension ProviderIdentity {
    /// The identity an id_token's claims name.
    init(_ claims: IDTokenValidator.Claims, kept: KeptProviderToken?) {
        self.init(
            subject: claims.subject, name: claims.name, email: claims.email, emailVerified: claims.emailVerified,
            isPrivateEmail: claims.isPrivateEmail, kept: kept)
    }
}
