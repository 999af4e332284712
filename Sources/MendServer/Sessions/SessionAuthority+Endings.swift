import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin

extension SessionAuthority {
    // MARK: Logout

    /// The sessions' part of `POST /v1/session/logout`: end the caller's session (`local`, and the refresh token's
    /// too, if it is another of the same user), every other session of the user (`others`), or all of them
    /// (`global`).
    ///
    /// The session comes from a valid bearer or, without one (an expired access token must not stop a logout), from
    /// `refresh_token` alone. A refresh token of a session that already ended answers 204 too (logout is idempotent)
    /// and ends nothing else.
    ///
    /// - Returns: The user whose session was active and whose token was current — whose provider permissions the
    ///   logout may revoke — or `nil`.
    func logout(_ request: PresentedRequest, body: LogoutRequestBody, logger: Logger) async throws -> String? {
        let refreshToken = body.refreshToken.flatMap { $0.isEmpty || $0.utf8.count > 512 ? nil : $0 }
        let authenticated: AccessTokenClaims?
        do {
            authenticated = try await authenticate(request)
        } catch let failure as ServerFailure where refreshToken != nil && failure.status == .unauthorized {
            authenticated = nil
        }
        let caller: (userID: String, sessionID: String)
        if let claims = authenticated {
            caller = (claims.subject, claims.sessionID)
            if body.scope == .local, let refreshToken,
                let record = try await records.refreshToken(hash: OpaqueToken.hash(refreshToken)),
                record.sessionID != claims.sessionID, let other = try await records.session(id: record.sessionID),
                other.userID == claims.subject
            {
                try await end(other.id, reason: .loggedOut, detail: nil)
            }
        } else {
            let state = try await refreshToken.asyncMap { try await refreshState(hash: OpaqueToken.hash($0)) }
            guard let state, let session = state.session else {
                throw ServerFailure.session(
                    .Session.accessTokenMissing,
                    "Logout needs a valid access token (Authorization: Bearer) or a known refresh_token.")
            }
            let decision = RefreshRotation.decide(
                token: state.token, successor: state.successor, session: session, now: now, graceSeconds: refreshGrace,
                maximumSeconds: maximumLifetime)
            // A bound session's refresh token — its current one, or an earlier one (a reuse, which would end it) —
            // ends it only with a proof of its key.
            switch decision {
            case .rotate, .replaySuccessor, .reuseDetected:
                if session.proofKey != nil {
                    let presented = try await dpop.tokenRequestKey(
                        request, now: Int64(clock.now().timeIntervalSince1970), opensSession: false)
                    try dpop.requireKey(of: session, presented: presented)
                }
            default: break
            }
            switch decision {
            case .rotate, .replaySuccessor:
                caller = (session.userID, session.id)
            default:
                try await end(session.id, reason: .loggedOut, detail: nil)
                logger.info(
                    "logout with the refresh token of a session that had ended",
                    metadata: ["session_id": .string(session.id)])
                return nil
            }
        }
        return try await logout(caller, scope: body.scope, logger: logger)
    }

    /// Ends what `scope` names for the caller's user and session; returns the user.
    private func logout(
        _ caller: (userID: String, sessionID: String), scope: LogoutScope, logger: Logger
    ) async throws -> String {
        switch scope {
        case .local:
            try await end(caller.sessionID, reason: .loggedOut, detail: nil)
        case .others, .global:
            let kept = scope == .others ? caller.sessionID : nil
            let detail = scope == .others ? "signed out from another session" : "signed out everywhere"
            let ended = try await records.revokeSessions(
                userID: caller.userID, keeping: kept, reason: .loggedOut, detail: detail, now: now)
            metrics.sessionsEnded(reason: SessionEndReason.loggedOut.metricsLabel, count: ended)
            logger.info(
                "logout", metadata: ["scope": .string(scope.rawValue), "sessions_ended": .stringConvertible(ended)])
        }
        return caller.userID
    }

    /// Lets a refresh of `session` go on only with a proof of the key it is bound to; a bearer session under
    /// `MEND_DPOP=required` ends here (session/10, `binding_required`).
    func requireBinding(of session: SessionRecord, presented: String?) async throws {
        if dpop.endsUnbound(session) {
            try await end(session.id, reason: .bindingRequired, detail: nil)
            throw ServerFailure.sessionEnded(.bindingRequired)
        }
        try dpop.requireKey(of: session, presented: presented)
    }

    /// Ends one session for `reason`, counting it if it was active.
    private func end(_ sessionID: String, reason: SessionEndReason, detail: String?) async throws {
        if try await records.revokeSession(id: sessionID, reason: reason, detail: detail, now: now) {
            metrics.sessionsEnded(reason: reason.metricsLabel, count: 1)
        }
    }

    // MARK: Devices

    /// `GET /v1/sessions`: the caller's active sessions, newest first, the caller's own marked `current`.
    func list(_ request: PresentedRequest) async throws -> JSONValue {
        let claims = try await authenticate(request)
        let current = now
        let sessions = try await records.activeSessions(userID: claims.subject, now: current)
            .filter { current < $0.createdAt + maximumLifetime }
        return .object(["sessions": .array(sessions.map { $0.listed(currentID: claims.sessionID) })])
    }

    /// `DELETE /v1/sessions/{id}`: ends one of the caller's own sessions (session/11 for it); a session of another
    /// user, or none, is 404 — the caller learns nothing about sessions that are not theirs.
    func endSession(id: String, request: PresentedRequest, logger: Logger) async throws {
        let claims = try await authenticate(request)
        guard id.utf8.count <= 64, let session = try await records.session(id: id), session.userID == claims.subject
        else { throw ServerFailure.notFound("The caller has no session \(id.prefix(64)).") }
        try await end(
            session.id, reason: .loggedOut,
            detail: session.id == claims.sessionID ? nil : "signed out from another session")
        logger.info("session ended by its user", metadata: ["session_id": .string(session.id)])
    }
}
