import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin

/// A session just opened, rotated or replayed: what the session response needs.
struct IssuedSession: Sendable {
    var sessionID: String
    var accessToken: String
    var refreshToken: String
    var refreshExpiresIn: Int
    var user: UserRecord

    func body(providerToken: String?, accessLifetime: Int) -> SessionBody {
        SessionBody(
            sessionID: sessionID, accessToken: accessToken, expiresIn: accessLifetime, refreshToken: refreshToken,
            refreshExpiresIn: refreshExpiresIn, user: UserBody(user), grantedScopes: user.grantedScopes,
            declinedScopes: user.declinedScopes, providerToken: providerToken)
    }
}

/// A presented refresh token's row, its successor's (once rotated) and its session's: what
/// ``RefreshRotation/decide(token:successor:session:now:graceSeconds:)`` needs.
struct RefreshState: Sendable {
    var token: RefreshTokenRecord?
    var successor: RefreshTokenRecord?
    var session: SessionRecord?
}

extension LoginBackend {
    var accessLifetime: Int64 { Int64(configuration.sessions.accessTokenLifetime.seconds) }
    var refreshLifetime: Int64 { Int64(configuration.sessions.refreshTokenLifetime.seconds) }
    var refreshGrace: Int64 { Int64(configuration.sessions.refreshReuseGrace.seconds) }

    /// Opens a session (a new refresh-token family) for `user`.
    func openSession(for user: UserRecord) async throws -> IssuedSession {
        let current = now
        let session = SessionRecord(
            id: OpaqueToken.make(prefix: "ses_", bytes: 16), userID: user.id, scopes: user.grantedScopes,
            createdAt: current, expiresAt: current + refreshLifetime)
        try await store.createSession(session)
        let refreshToken = OpaqueToken.make(prefix: "mrt_")
        try await store.insertRefreshToken(
            RefreshTokenRecord(
                tokenHash: OpaqueToken.hash(refreshToken), sessionID: session.id, createdAt: current,
                expiresAt: current + refreshLifetime))
        // The user may have been deleted since it was read (an account deletion racing this login): then the session
        // is ended and nothing is handed out (see `ServerStore.deleteUser`).
        guard try await store.user(id: user.id) != nil else {
            _ = try await store.revokeSession(id: session.id, reason: .userDeleted, now: current)
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        return IssuedSession(
            sessionID: session.id, accessToken: try await accessToken(user: user, session: session),
            refreshToken: refreshToken, refreshExpiresIn: Int(refreshLifetime), user: user)
    }

    func accessToken(user: UserRecord, session: SessionRecord) async throws -> String {
        let current = now
        return try await signer.sign(
            AccessTokenClaims(
                issuer: configuration.sessions.issuer, audience: configuration.accessTokenAudience, subject: user.id,
                sessionID: session.id,
                scope: session.scopes.joined(separator: " "), issuedAt: current, expiresAt: current + accessLifetime,
                tokenID: OpaqueToken.make(bytes: 12)))
    }

    func sessionBody(_ issued: IssuedSession, providerToken: String?) -> SessionBody {
        issued.body(providerToken: providerToken, accessLifetime: Int(accessLifetime))
    }

    // MARK: Refresh

    /// `POST /v1/session/refresh`: rotate the refresh token, or — for a token rotated within the grace window whose
    /// successor is still unused — answer that same successor again (see ``RefreshRotation``).
    func refresh(_ body: RefreshRequestBody, clientAddress: String, logger: Logger) async throws -> SessionBody {
        if let rule = configuration.sessions.rateLimits.refreshPerAddress {
            try await enforce(
                rule, key: "refresh:ip:\(RateLimiter.addressKey(clientAddress))", scope: "refresh per address")
        }
        guard !body.refreshToken.isEmpty, body.refreshToken.utf8.count <= 512 else {
            throw ServerFailure.badRequest("refresh_token is missing or too long.")
        }
        let hash = OpaqueToken.hash(body.refreshToken)
        var user: UserRecord?
        // Twice at most: a refresh that loses the claim to a concurrent one decides again, and replays the winner's.
        for _ in 0..<2 {
            let state = try await refreshState(hash: hash)
            let decision = RefreshRotation.decide(
                token: state.token, successor: state.successor, session: state.session, now: now,
                graceSeconds: refreshGrace)
            switch decision {
            case .unknown:
                metrics.refresh(outcome: "unknown")
                throw ServerFailure.session(
                    .Session.refreshTokenUnknown, "The refresh token is unknown; log in again.")
            case .expired:
                metrics.refresh(outcome: "expired")
                throw ServerFailure.session(
                    .Session.sessionExpired, "The refresh token or its session has expired; log in again.")
            case .sessionEnded(let reason):
                metrics.refresh(outcome: "session_ended")
                if let session = state.session, session.revokedAt != nil { throw ServerFailure.sessionEnded(session) }
                throw ServerFailure.sessionEnded(reason)
            case .reuseDetected(let sessionID):
                let reason = SessionEndReason.refreshTokenReused
                let revoked = try await store.revokeSession(id: sessionID, reason: reason, now: now)
                metrics.refresh(outcome: "reuse_detected")
                if revoked { metrics.sessionsEnded(reason: reason.metricsLabel, count: 1) }
                logger.warning(
                    "refresh token reuse detected: the session is revoked", metadata: ["session_id": .string(sessionID)]
                )
                throw ServerFailure.sessionEnded(reason)
            case .replaySuccessor:
                guard let token = state.token, let successor = state.successor, let session = state.session else {
                    continue
                }
                guard let sealed = token.successorSealed,
                    let successorToken = SuccessorSeal.open(sealed, with: body.refreshToken),
                    OpaqueToken.hash(successorToken) == successor.tokenHash
                else { throw ServerFailure.internalFailure("The stored successor of the refresh token is unreadable.") }
                let owner: UserRecord
                if let user { owner = user } else { owner = try await refreshingUser(of: session) }
                let issued = try await issue(
                    session: session, user: owner, refreshToken: successorToken,
                    refreshExpiresAt: successor.expiresAt)
                metrics.refresh(outcome: "replayed")
                logger.info(
                    "refresh replayed within the grace window: the same successor again",
                    metadata: ["session_id": .string(session.id)])
                return sessionBody(issued, providerToken: nil)
            case .rotate:
                guard let token = state.token, let session = state.session else { continue }
                let owner: UserRecord
                if let user { owner = user } else { owner = try await refreshingUser(of: session) }
                user = owner
                if let issued = try await rotate(token, presented: body.refreshToken, session: session, user: owner) {
                    metrics.refresh(outcome: "rotated")
                    return sessionBody(issued, providerToken: nil)
                }
            // Lost the claim to a concurrent refresh: decide again on what the winner wrote.
            }
        }
        metrics.refresh(outcome: "failed")
        throw ServerFailure.internalFailure("The refresh token could not be rotated; try again.")
    }

    /// What the database holds about the refresh token with this hash.
    func refreshState(hash: String) async throws -> RefreshState {
        guard let token = try await store.refreshToken(hash: hash) else { return RefreshState() }
        let successor = try await token.replacedBy.asyncMap { try await store.refreshToken(hash: $0) } ?? nil
        return RefreshState(token: token, successor: successor, session: try await store.session(id: token.sessionID))
    }

    /// The session's user, counted against the per-user refresh limit.
    private func refreshingUser(of session: SessionRecord) async throws -> UserRecord {
        if let rule = configuration.sessions.rateLimits.refreshPerUser {
            try await enforce(rule, key: "refresh:user:\(session.userID)", scope: "refresh per user")
        }
        guard let user = try await store.user(id: session.userID) else {
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        return user
    }

    /// Claims `record` and writes its successor (sealed on `record`'s row under a key derived from `presented`);
    /// `nil` when a concurrent refresh claimed it first.
    private func rotate(
        _ record: RefreshTokenRecord, presented: String, session: SessionRecord, user: UserRecord
    ) async throws -> IssuedSession? {
        let current = now
        let next = OpaqueToken.make(prefix: "mrt_")
        let nextHash = OpaqueToken.hash(next)
        // The successor's row exists before the claim, so that a refresh losing the claim finds it.
        try await store.insertRefreshToken(
            RefreshTokenRecord(
                tokenHash: nextHash, sessionID: session.id, createdAt: current, expiresAt: current + refreshLifetime))
        let claimed = try await store.claimRefreshToken(
            hash: record.tokenHash, replacement: nextHash,
            sealedSuccessor: try SuccessorSeal.seal(next, under: presented),
            now: current)
        guard claimed else {
            try await store.deleteRefreshToken(hash: nextHash)
            return nil
        }
        try await store.extendSession(id: session.id, until: current + refreshLifetime)
        return try await issue(
            session: session, user: user, refreshToken: next, refreshExpiresAt: current + refreshLifetime)
    }

    /// The session response for `refreshToken`, with a new access token carrying the user's current scopes.
    private func issue(
        session: SessionRecord, user: UserRecord, refreshToken: String, refreshExpiresAt: Int64
    ) async throws -> IssuedSession {
        var scoped = session
        scoped.scopes = user.grantedScopes
        return IssuedSession(
            sessionID: session.id, accessToken: try await accessToken(user: user, session: scoped),
            refreshToken: refreshToken, refreshExpiresIn: Int(max(0, refreshExpiresAt - now)), user: user)
    }

    // MARK: Authentication

    /// The token of an `Authorization: Bearer <token>` header, or `nil` when there is none or it is malformed.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let authorization = headers[.authorization] else { return nil }
        let bytes = authorization.utf8
        guard bytes.count > 7,
            zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 || ($0 == $1) })
        else { return nil }
        let rest = bytes.dropFirst(7).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var end = rest.endIndex
        while end > rest.startIndex, [UInt8(ascii: " "), UInt8(ascii: "\t")].contains(bytes[bytes.index(before: end)]) {
            end = bytes.index(before: end)
        }
        let token = String(Substring(rest[rest.startIndex..<end]))
        return token.isEmpty ? nil : token
    }

    /// The claims of a valid `Authorization: Bearer` access token whose session is active, or 401 with a session
    /// code: session/3 (no token), session/1 (expired), session/2 (not valid), or the session's end (session/10–17).
    ///
    /// The signature is checked on the caller's thread; whether the session ended comes from the ``RevocationView``
    /// while it is current, and from the database only while it is not (see ``RevocationView``).
    func authenticate(_ headers: HTTPFields) async throws -> AccessTokenClaims {
        guard let token = Self.bearerToken(headers) else {
            throw ServerFailure.session(
                .Session.accessTokenMissing, "Authorization: Bearer <access token> is required.")
        }
        let claims: AccessTokenClaims
        switch signer.verify(token, now: configuration.clock.now()) {
        case .success(let verified): claims = verified
        case .failure(.expired):
            throw ServerFailure.session(
                .Session.accessTokenExpired, "The access token has expired; refresh the session, then retry.")
        case .failure(let rejection):
            throw ServerFailure.session(
                .Session.accessTokenInvalid,
                "The access token is not valid (\(rejection)); refresh the session, then retry.")
        }
        switch revocations.status(of: claims.sessionID) {
        case .active:
            metrics.sessionCheck(fromDatabase: false)
        case .ended(let ending):
            metrics.sessionCheck(fromDatabase: false)
            throw ServerFailure.sessionEnded(storedReason: ending.reason, detail: ending.detail)
        case .unknown:
            metrics.sessionCheck(fromDatabase: true)
            try await requireActiveSession(of: claims)
        }
        return claims
    }

    /// Reads the session an access token names from the database: 401 with why it ended unless it is active.
    private func requireActiveSession(of claims: AccessTokenClaims) async throws {
        guard let session = try await store.session(id: claims.sessionID), session.userID == claims.subject else {
            // A session row goes with its user (data deletion), or is purged long after it expired.
            if try await store.user(id: claims.subject) == nil { throw ServerFailure.sessionEnded(.userDeleted) }
            throw ServerFailure.sessionEnded(nil, detail: "the session no longer exists")
        }
        if session.revokedAt != nil { throw ServerFailure.sessionEnded(session) }
        guard now < session.expiresAt else {
            throw ServerFailure.session(.Session.sessionExpired, "The session has expired; log in again.")
        }
    }

    /// `GET /v1/session`.
    func introspect(_ headers: HTTPFields) async throws -> IntrospectionBody {
        let claims = try await authenticate(headers)
        return IntrospectionBody(
            valid: true, userID: claims.subject, scopes: claims.scopes, expiresAt: claims.expiresAt,
            sessionID: claims.sessionID)
    }

    // MARK: Logout

    /// `POST /v1/session/logout`: revoke the session (and the refresh token's, if it is another of the same user);
    /// optionally revoke the provider permissions, which ends every session of the user.
    ///
    /// The session comes from a valid bearer or, without one (an expired access token must not stop a logout), from
    /// `refresh_token` alone. A refresh token of a session that already ended answers 204 too (logout is idempotent),
    /// but revokes the provider permissions only while the session is active and the token current.
    func logout(_ headers: HTTPFields, body: LogoutRequestBody, logger: Logger) async throws {
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
                return
            }
        }
        guard body.revokeProviderPermissions == true, let user = try await store.user(id: userID) else { return }
        if let token = user.providerToken, let facebook {
            try await upstream("revoke permissions", logger: logger) { try await facebook.revokePermissions(token) }
        }
        try await store.recordTokenCheck(userID: user.id, now: now, invalidReason: "permissions revoked at logout")
        let reason = SessionEndReason.permissionsRevoked
        let ended = try await store.revokeSessions(userID: user.id, reason: reason, now: now)
        metrics.sessionsEnded(reason: reason.metricsLabel, count: ended)
        logger.info("provider permissions revoked at logout", metadata: ["user_id": .string(user.id)])
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

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
