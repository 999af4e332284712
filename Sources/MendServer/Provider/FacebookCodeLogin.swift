import Foundation
import Logging
import MendCore
import MendGraphAPI

/// The configured Facebook app as a ``CodeLoginProvider``: the code is exchanged with the app secret; the token is
/// checked with `debug_token` (this app's, valid, a user's, with the required scopes), exchanged for a long-lived one
/// (unless configured not to), and the profile and permissions are read with `appsecret_proof`. Its token is also
/// kept on the user's Facebook identity, where the validity check, the profile refresh and account deletion find it.
struct FacebookCodeLogin: CodeLoginProvider {
    let gateway: ProviderGateway

    var name: String { "facebook" }

    func exchange(_ code: CodeLoginRequest, context: ProviderCallContext) async throws -> ProviderGrant? {
        let token = try await context.call("code exchange") {
            try await gateway.exchangeCode(code.code, redirectURI: code.redirectURI, codeVerifier: code.codeVerifier)
        }
        return ProviderGrant(clientID: gateway.appID, accessToken: token.value, expiresIn: token.expiresIn)
    }

    func identify(_ grant: ProviderGrant, context: ProviderCallContext) async throws -> ProviderIdentity {
        guard let shortLived = grant.accessToken else {
            throw ServerFailure.internalFailure("a Facebook grant without an access token")
        }
        let inspection = try await context.call("debug_token") { try await gateway.inspect(shortLived) }
        let accepted: (userID: String, scopes: [String])
        switch inspection.verdict(appID: gateway.appID, requiredScopes: gateway.app.requiredScopes) {
        case .success(let verdict):
            accepted = verdict
        case .failure(let error):
            let failure = ServerFailure.upstream(error, operation: "debug_token").redacted(
                with: context.services.redactor)
            context.logger.notice(
                "login refused by debug_token",
                metadata: [
                    "error": .string(error.shortDescription), "message": .string(failure.error.developerMessage),
                ])
            throw failure
        }
        var token = ProviderToken(value: shortLived, expiresIn: grant.expiresIn)
        if gateway.app.exchangesForLongLivedToken {
            token = try await context.call("long-lived exchange") { try await gateway.exchangeForLongLived(shortLived) }
        }
        let value = token.value
        let profile = try await context.call("profile") { try await gateway.profile(value) }
        guard profile.id == accepted.userID else {
            throw ServerFailure.upstream(
                MendError(
                    code: .Graph.accessTokenInvalid, subcode: .invalidAccessToken,
                    developerMessage: "The profile belongs to another user than debug_token named.", catalog: .server),
                operation: "profile")
        }
        let permissions = try await context.call("permissions") { try await gateway.permissions(value) }
        return ProviderIdentity(
            subject: profile.id, name: profile.name, email: profile.email, picture: profile.picture,
            grantedScopes: permissions.granted.isEmpty ? accepted.scopes : permissions.granted,
            declinedScopes: permissions.declined,
            kept: KeptProviderToken(
                clientID: gateway.appID, token: value,
                expiresAt: token.expiresIn.map { context.now.addingTimeInterval(TimeInterval($0)) },
                isAccessToken: true),
            replacesProfile: true)
    }

    /// `DELETE /me/permissions`: the user removes the app. A token Facebook already considers dead counts as revoked.
    func revoke(_ token: KeptProviderToken, context: ProviderCallContext) async throws {
        do {
            try await context.call("revoke permissions") { try await gateway.revokePermissions(token.token) }
        } catch let failure as ServerFailure
            where failure.error.matches(.Graph.accessTokenInvalid) || failure.error.matches(.Graph.sessionInvalid)
        {
            return
        }
    }
}
