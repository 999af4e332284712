import HTTPTypes
import Logging
import MendCore
import MendGraphAPI

/// `DELETE /v1/me`: what was done.
struct AccountDeletionBody: Encodable, Sendable, Equatable {
    var deleted: Bool
    var sessionsEnded: Int
    /// The providers where the app's access was revoked.
    var revokedAt: [String]
    /// Linked providers where the server held no token to revoke with (the user can remove the app there).
    var notRevoked: [String]

    enum CodingKeys: String, CodingKey {
        case deleted, sessionsEnded = "sessions_ended", revokedAt = "revoked_at", notRevoked = "not_revoked"
    }
}

extension Accounts {
    /// `DELETE /v1/me`: the user deletes their account. The app's access is revoked at each linked provider where the
    /// server holds a token, by that provider's ``CodeLoginProvider/revoke(_:context:)`` (Facebook:
    /// `DELETE /me/permissions`; an issuer: its ``ProviderTokenKeeper`` revokes the token kept from the sign-in's
    /// authorization code), every session ends (session/14), and the user's
    /// data (profile, identities, sessions, refresh tokens) is deleted.
    ///
    /// A provider that cannot be reached fails the request (502/503/504) and deletes nothing, so that the app can
    /// retry and no grant outlives the account; a token the provider already considers dead counts as revoked.
    func deleteAccount(_ request: PresentedRequest, logger: Logger) async throws -> AccountDeletionBody {
        let claims = try await sessions.authenticate(request)
        guard let user = try await identities.user(id: claims.subject) else {
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        return try await deleteAccount(of: user, detail: "account deleted by the user", logger: logger)
    }

    /// Deletes `user`'s account: what `DELETE /v1/me` and the admin API's `DELETE /v1/admin/users/{id}` do alike;
    /// `detail` says who asked, in the sessions' ending.
    func deleteAccount(of user: UserRecord, detail: String, logger: Logger) async throws -> AccountDeletionBody {
        let linked = try await identities.identities(userID: user.id)
        let context = logins.callContext(logger: logger)
        // Every provider's kept token is on its identity (Facebook's too, since migration 9).
        var kept: [(provider: String, token: KeptProviderToken)] = []
        for identity in linked {
            guard let token = identity.providerToken else { continue }
            kept.append((identity.provider, KeptProviderToken(clientID: identity.providerClientID ?? "", token: token)))
        }
        var revokedAt: [String] = []
        for (name, token) in kept {
            guard let provider = logins.providers[name] else { continue }
            try await upstream("\(name) revocation", logger: logger) {
                try await provider.revoke(token, context: context)
            }
            if !revokedAt.contains(name) { revokedAt.append(name) }
        }
        let providers = Set(linked.map(\.provider)).union(user.providerUserID == nil ? [] : ["facebook"])
        let notRevoked = providers.subtracting(revokedAt).sorted()
        let reason = SessionEndReason.userDeleted
        let (deleted, ended) = try await identities.deleteUser(
            id: user.id, reason: reason, detail: detail, now: now)
        metrics.sessionsEnded(reason: reason.metricsLabel, count: ended)
        logger.info(
            "account deleted",
            metadata: [
                "user_id": .string(user.id), "sessions": .stringConvertible(ended),
                "revoked_at": .string(revokedAt.joined(separator: ",")),
                "not_revoked": .string(notRevoked.joined(separator: ",")),
            ])
        return AccountDeletionBody(deleted: deleted, sessionsEnded: ended, revokedAt: revokedAt, notRevoked: notRevoked)
    }
}
