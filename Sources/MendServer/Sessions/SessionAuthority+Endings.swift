import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin

extension SessionAuthority {
    // MARK: Logout

    /// The sessions' part of `POST /v1/session/logout`: revoke the session (and the refresh token's, if it is another
    /// of the same user).
    ///
    /// The session comes from a valid bearer or, without one (an expired access token must not stop a logout), from
    /// `refresh_token` alone. A refresh token of a session that already ended answers 204 too (logout is idempotent).
    ///
    /// - Returns: The user whose session was active and whose token was current — whose provider permissions the
    ///   logout may revoke — or `nil`.
    func logout(_ headers: HTTPFields, body: LogoutRequestBody, logger: Logger) async throws -> String? {
        let refreshToken = body.refreshToken.flatMap { $0.isEmpty || $0.utf8.count > 512 ? nil : $0 }
        let authenticated: AccessTokenClaims?
        do {
            authenticated = try await authenticate(headers)
        } catch let failure as ServerFailure where refreshToken != nil && failure.status == .unauthorized {
            authenticated = nil
        }
        let userID: String
        if let claims = authenticated {
            if try await store.revokeSession(id: claims.sessionID, reason: .loggedOut, now: now) {
                metrics.sessionsEnded(reason: SessionEndReason.loggedOut.metricsLabel, count: 1)
            }
            if let refreshToken, let record = try await store.refreshToken(hash: OpaqueToken.hash(refreshToken)),
                record.sessionID != claims.sessionID, let other = try await store.session(id: record.sessionID),
                other.userID == claims.subject
            {
                try await store.revokeSession(id: other.id, reason: .loggedOut, now: now)
            }
            userID = claims.subject
        } else {
            let state = try await refreshToken.asyncMap { try await refreshState(hash: OpaqueToken.hash($0)) }
            guard let state, let session = state.session else {
                throw ServerFailure.session(
                    .Session.accessTokenMissing,
                    "Logout needs a valid access token (Authorization: Bearer) or a known refresh_token.")
            }
            let decision = RefreshRotation.decide(
                token: state.token, successor: state.successor, session: session, now: now, graceSeconds: refreshGrace)
            if try await store.revokeSession(id: session.id, reason: .loggedOut, now: now) {
                metrics.sessionsEnded(reason: SessionEndReason.loggedOut.metricsLabel, count: 1)
            }
            switch decision {
            case .rotate, .replaySuccessor:
                userID = session.userID
            default:
                logger.info(
                    "logout with the refresh token of a session that had ended",
                    metadata: ["session_id": .string(session.id)])
                return nil
            }
        }
        return userID
    }

    // MARK: Revocation

    /// `POST /v1/session/revoke` (RFC 7009): a refresh token (current or any earlier one of its family) or an access
    /// token (expired or not, if its signature verifies) ends its whole session. Anything else — unknown, malformed,
    /// already revoked or expired — is no error (§2.2): the answer is 200 either way.
    func revoke(_ body: RevocationRequestBody, logger: Logger) async throws {
        let accessFirst = body.tokenTypeHint == "access_token"
        var sessionID: String?
        for tryAccess in accessFirst ? [true, false] : [false, true] where sessionID == nil {
            sessionID =
                try await tryAccess ? sessionNamed(byAccessToken: body.token) : sessionNamed(byRefreshToken: body.token)
        }
        guard let sessionID else {
            metrics.revocation(outcome: "unknown_token")
            return
        }
        let revoked = try await store.revokeSession(
            id: sessionID, reason: .loggedOut, detail: "token revocation", now: now)
        metrics.revocation(outcome: revoked ? "revoked" : "already_ended")
        if revoked {
            metrics.sessionsEnded(reason: "revocation", count: 1)
            logger.info("session revoked (token revocation)", metadata: ["session_id": .string(sessionID)])
        }
    }

    private func sessionNamed(byRefreshToken token: String) async throws -> String? {
        guard token.utf8.count <= 512 else { return nil }
        return try await store.refreshToken(hash: OpaqueToken.hash(token))?.sessionID
    }

    private func sessionNamed(byAccessToken token: String) async throws -> String? {
        guard token.utf8.count <= 8192, case .success(let claims) = signer.verifyIgnoringExpiry(token),
            let session = try await store.session(id: claims.sessionID), session.userID == claims.subject
        else { return nil }
        return session.id
    }
}
