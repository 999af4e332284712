import HTTPTypes
import Logging
import MendCore
import MendGraphAPI

/// What concerns the user's account at the provider: the profile (`GET /v1/me`, refreshed from Facebook), logout
/// with the provider's permissions revoked, the activity log, account deletion, and the end of a dead provider token.
struct Accounts: BackendPart {
    let services: BackendServices
    /// The sessions: the bearer check, logout.
    let sessions: SessionAuthority
    /// The users and their identities (with the provider tokens kept for them).
    let identities: any IdentityStore
    /// The logins' providers: account deletion revokes the app's access at each.
    let logins: ProviderLogins

    /// The sessions' records (ending every session of a user).
    var sessionRecords: any SessionStore { sessions.records }
    /// The Graph API calls of the configured Facebook app (`nil` without one).
    var facebook: ProviderGateway? { logins.facebook }

    /// `GET /v1/me`: the stored profile, refreshed from the provider (with `appsecret_proof`) when it is older than
    /// ``FacebookApp/profileMaxAge``. A provider outage serves the stored profile; a dead provider token
    /// ends the user's sessions and answers the provider's error.
    func me(_ request: PresentedRequest, logger: Logger) async throws -> UserBody {
        let claims = try await sessions.authenticate(request)
        guard var user = try await identities.user(id: claims.subject) else {
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        guard let facebook, now - user.profileRefreshedAt >= Int64(facebook.app.profileMaxAge.seconds),
            let identity = try await identities.identity(provider: "facebook", userID: user.id),
            let token = identity.providerToken
        else { return UserBody(user) }
        do {
            let profile = try await facebook.profile(token)
            try await identities.updateProfile(
                userID: user.id, name: profile.name, email: profile.email, picture: profile.picture, now: now)
            user.name = profile.name
            user.email = profile.email
            user.picture = profile.picture
        } catch let error as MendError
            where error.matches(.Graph.accessTokenInvalid) || error.matches(.Graph.sessionInvalid)
        {
            metrics.upstreamFailure(operation: "profile", error: error.shortDescription)
            let detail = "provider token invalid (\(error.shortDescription))"
            try await endProviderAccess(identity: identity, detail: detail, logger: logger)
            throw ServerFailure.upstream(error, operation: "profile")
        } catch let error as MendError {
            metrics.upstreamFailure(operation: "profile", error: error.shortDescription)
            logger.notice(
                "profile refresh failed: serving the stored profile",
                metadata: ["error": .string(error.shortDescription)])
        }
        return UserBody(user)
    }

    /// The identity's provider token is dead: forget it and end every session of its user (session/13), with the
    /// provider's error as the detail.
    func endProviderAccess(identity: IdentityRecord, detail: String, logger: Logger) async throws {
        try await identities.recordTokenCheck(
            provider: identity.provider, subject: identity.subject, now: now, invalidReason: detail)
        let reason = SessionEndReason.providerTokenInvalid
        let ended = try await sessionRecords.revokeSessions(
            userID: identity.userID, reason: reason, detail: detail, now: now)
        metrics.sessionsEnded(reason: reason.metricsLabel, count: ended)
        logger.notice(
            "provider token invalid: sessions ended",
            metadata: [
                "user_id": .string(identity.userID), "sessions": .stringConvertible(ended), "reason": .string(detail),
            ])
    }

    /// `POST /v1/session/logout`: the session ends (``SessionAuthority/logout(_:body:logger:)``); with
    /// `revoke_provider_permissions`, and only while the session was active and its token current, the Facebook
    /// permissions are revoked too, which ends every session of the user.
    func logout(_ request: PresentedRequest, body: LogoutRequestBody, logger: Logger) async throws {
        guard let userID = try await sessions.logout(request, body: body, logger: logger),
            body.revokeProviderPermissions == true, let user = try await identities.user(id: userID)
        else { return }
        let identity = try await identities.identity(provider: "facebook", userID: user.id)
        if let token = identity?.providerToken, let facebook {
            try await upstream("revoke permissions", logger: logger) { try await facebook.revokePermissions(token) }
        }
        if let identity {
            try await identities.recordTokenCheck(
                provider: identity.provider, subject: identity.subject, now: now,
                invalidReason: "permissions revoked at logout")
        }
        let reason = SessionEndReason.permissionsRevoked
        let ended = try await sessionRecords.revokeSessions(userID: user.id, reason: reason, now: now)
        metrics.sessionsEnded(reason: reason.metricsLabel, count: ended)
        logger.info("provider permissions revoked at logout", metadata: ["user_id": .string(user.id)])
    }

    /// `GET /v1/me/activity`: the caller's latest 50 audit events, newest first.
    func activity(_ request: PresentedRequest) async throws -> JSONValue {
        let claims = try await sessions.authenticate(request)
        let events = try await services.auditLog.auditEvents(userID: claims.subject, limit: 50)
        return .object(["events": .array(events.map(\.activity))])
    }
}
