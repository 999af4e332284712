import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin

/// A session just opened, rotated or replayed: what the session response needs.
struct IssuedSession: Sendable {
    var sessionID: String
    var accessToken: SignedAccessToken
    var refreshToken: String
    var refreshExpiresIn: Int
    var user: UserRecord
    /// The key the session is bound to (DPoP), if it is.
    var proofKey: String?

    func body(providerToken: String?) -> SessionBody {
        SessionBody(
            sessionID: sessionID, accessToken: accessToken.token, tokenType: proofKey == nil ? "Bearer" : "DPoP",
            expiresIn: accessToken.expiresIn,
            refreshToken: refreshToken,
            refreshExpiresIn: refreshExpiresIn, user: UserBody(user), grantedScopes: user.grantedScopes,
            declinedScopes: user.declinedScopes, providerToken: providerToken)
    }
}

/// An access token and how long it is valid: the access-token lifetime, or less where the session's maximum
/// lifetime ends sooner.
struct SignedAccessToken: Sendable {
    var token: String
    var expiresIn: Int
}

/// A presented refresh token's row, its successor's (once rotated) and its session's: what
/// ``RefreshRotation/decide(token:successor:session:now:graceSeconds:maximumSeconds:)`` needs.
struct RefreshState: Sendable {
    var token: RefreshTokenRecord?
    var successor: RefreshTokenRecord?
    var session: SessionRecord?
}

/// The sessions mend-server issues: opening one, its access tokens, refresh with rotation and the grace window, the
/// bearer check (the revocation view first), logout and RFC 7009 revocation.
struct SessionAuthority: BackendPart {
    let services: BackendServices
    /// The sessions' slice of the configuration (their lifetimes, the refresh grace, the rate limits of refresh and
    /// login, PKCE and the redirect URIs; the signing keys are the signer's).
    let settings: ServerConfiguration.Sessions
    /// The `aud` of the access tokens.
    let audience: String
    /// The sessions and refresh tokens.
    let records: any SessionStore
    /// The users (a session opens and refreshes only while its user exists).
    let users: any IdentityStore
    /// Signs and verifies the access tokens.
    let signer: SessionSigner
    /// The sessions that ended within the access-token lifetime: what bearer checks consult instead of the database.
    let revocations: RevocationView
    /// DPoP: which requests must carry a proof, and the check of one.
    let dpop: DPoPCheck

    var accessLifetime: Int64 { Int64(settings.accessTokenLifetime.seconds) }
    var idleLifetime: Int64 { Int64(settings.idleLifetime.seconds) }
    var maximumLifetime: Int64 { Int64(settings.maximumLifetime.seconds) }
    var refreshGrace: Int64 { Int64(settings.refreshReuseGrace.seconds) }

    /// Where a session opened at `createdAt` and refreshed at `now` stops: the idle lifetime from now, and never
    /// past the absolute one.
    func expiry(createdAt: Int64, now: Int64) -> Int64 { min(now + idleLifetime, createdAt + maximumLifetime) }

    /// Opens a session (a new refresh-token family) for `user`, recording the `client` that opened it and the
    /// `provider` and `flow` (`code`, `provider_token`, `id_token`) of the login; the audit log's `login` event is
    /// written with it (a trigger, in the same statement).
    func openSession(
        for user: UserRecord, client: SessionClient?, provider: String? = nil, flow: String? = nil
    ) async throws -> IssuedSession {
        let current = now
        let expiresAt = expiry(createdAt: current, now: current)
        let session = SessionRecord(
            id: OpaqueToken.make(prefix: "ses_", bytes: 16), userID: user.id, scopes: user.grantedScopes,
            createdAt: current, expiresAt: expiresAt, client: client?.name, clientPlatform: client?.platform,
            firstAddress: client?.addressKey, lastAddress: client?.addressKey, provider: provider, flow: flow,
            proofKey: client?.proofKey)
        try await records.createSession(session)
        let refreshToken = OpaqueToken.make(prefix: "mrt_")
        try await records.insertRefreshToken(
            RefreshTokenRecord(
                tokenHash: OpaqueToken.hash(refreshToken), sessionID: session.id, createdAt: current,
                expiresAt: expiresAt))
        // The user may have been deleted since it was read (an account deletion racing this login): then the session
        // is ended and nothing is handed out (see `SQLIdentityStore.deleteUser`).
        guard try await users.user(id: user.id) != nil else {
            _ = try await records.revokeSession(id: session.id, reason: .userDeleted, now: current)
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        return IssuedSession(
            sessionID: session.id, accessToken: try accessToken(user: user, session: session, at: current),
            refreshToken: refreshToken, refreshExpiresIn: Int(expiresAt - current), user: user,
            proofKey: session.proofKey)
    }

    /// A new access token for `session` at `current` (the same second as the rest of the answer: `expires_in` and
    /// `refresh_expires_in` of one answer are counted from one reading of the clock).
    func accessToken(user: UserRecord, session: SessionRecord, at current: Int64) throws -> SignedAccessToken {
        let expiresAt = min(current + accessLifetime, session.createdAt + maximumLifetime)
        let token = try signer.sign(
            AccessTokenClaims(
                issuer: settings.issuer, audience: audience, subject: user.id,
                sessionID: session.id,
                scope: session.scopes.joined(separator: " "), issuedAt: current,
                expiresAt: expiresAt,
                tokenID: OpaqueToken.make(bytes: 12), confirmation: session.proofKey.map { .init(jkt: $0) }))
        return SignedAccessToken(token: token, expiresIn: Int(expiresAt - current))
    }

    func sessionBody(_ issued: IssuedSession, providerToken: String?) -> SessionBody {
        issued.body(providerToken: providerToken)
    }

    // MARK: Refresh

    /// `POST /v1/session/refresh`: rotate the refresh token, or — for a token rotated within the grace window whose
    /// successor is still unused — answer that same successor again (see ``RefreshRotation``).
    func refresh(_ body: RefreshRequestBody, client: SessionClient, logger: Logger) async throws -> SessionBody {
        try await enforce(
            settings.rateLimits.refreshPerAddress, address: client.address, action: "refresh")
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
                graceSeconds: refreshGrace, maximumSeconds: maximumLifetime)
            switch decision {
            case .unknown:
                metrics.refresh(outcome: "unknown")
                throw ServerFailure.session(
                    .Session.refreshTokenUnknown, "The refresh token is unknown; log in again.")
            case .expired(let lifetime):
                metrics.refresh(outcome: "expired")
                if let session = state.session {
                    await audit(
                        .sessionExpired,
                        AuditRecord(
                            at: now, event: "", userID: session.userID, sessionID: session.id,
                            provider: session.provider, detail: lifetime.rawValue, address: client.addressKey,
                            client: session.client),
                        logger: logger)
                }
                throw Self.lifetimeEnded(lifetime, settings)
            case .sessionEnded(let reason):
                metrics.refresh(outcome: "session_ended")
                if let session = state.session, session.revokedAt != nil { throw ServerFailure.sessionEnded(session) }
                throw ServerFailure.sessionEnded(reason)
            case .reuseDetected(let sessionID):
                // A bound session's earlier token is a reuse only from its key's holder: without a proof of the key,
                // it is refused as the current token would be, and the session stays.
                if let session = state.session { try dpop.requireKey(of: session, presented: client.proofKey) }
                let reason = SessionEndReason.refreshTokenReused
                let revoked = try await records.revokeSession(id: sessionID, reason: reason, now: now)
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
                try await requireBinding(of: session, presented: client.proofKey)
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
                try await requireBinding(of: session, presented: client.proofKey)
                let owner: UserRecord
                if let user { owner = user } else { owner = try await refreshingUser(of: session) }
                user = owner
                if let issued = try await rotate(
                    token, presented: body.refreshToken, session: session, user: owner, client: client)
                {
                    metrics.refresh(outcome: "rotated")
                    return sessionBody(issued, providerToken: nil)
                }
            // Lost the claim to a concurrent refresh: decide again on what the winner wrote.
            }
        }
        metrics.refresh(outcome: "failed")
        throw ServerFailure.internalFailure("The refresh token could not be rotated; try again.")
    }

    /// session/15 for the lifetime that ended, saying which and how long it is.
    static func lifetimeEnded(
        _ lifetime: RefreshRotation.Lifetime, _ settings: ServerConfiguration.Sessions
    )
        -> ServerFailure
    {
        switch lifetime {
        case .idle:
            ServerFailure.session(
                .Session.sessionExpired,
                "The session ended: it was not refreshed within its idle lifetime "
                    + "(\(DurationText.format(settings.idleLifetime))). Sign in again.")
        case .maximum:
            ServerFailure.session(
                .Session.sessionExpired,
                "The session ended: it reached its maximum lifetime "
                    + "(\(DurationText.format(settings.maximumLifetime)) from the login). Sign in again.")
        }
    }

    /// What the database holds about the refresh token with this hash.
    func refreshState(hash: String) async throws -> RefreshState {
        guard let token = try await records.refreshToken(hash: hash) else { return RefreshState() }
        let successor = try await token.replacedBy.asyncMap { try await records.refreshToken(hash: $0) } ?? nil
        return RefreshState(token: token, successor: successor, session: try await records.session(id: token.sessionID))
    }

    /// The session's user, counted against the per-user refresh limit.
    private func refreshingUser(of session: SessionRecord) async throws -> UserRecord {
        if let rule = settings.rateLimits.refreshPerUser {
            try await enforce(rule, key: "refresh:user:\(session.userID)", scope: "refresh per user")
        }
        guard let user = try await users.user(id: session.userID) else {
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        return user
    }

    /// Claims `record` and writes its successor (sealed on `record`'s row under a key derived from `presented`);
    /// `nil` when a concurrent refresh claimed it first.
    private func rotate(
        _ record: RefreshTokenRecord, presented: String, session: SessionRecord, user: UserRecord,
        client: SessionClient
    ) async throws -> IssuedSession? {
        let current = now
        let expiresAt = expiry(createdAt: session.createdAt, now: current)
        let next = OpaqueToken.make(prefix: "mrt_")
        let nextHash = OpaqueToken.hash(next)
        // The successor's row exists before the claim, so that a refresh losing the claim finds it.
        try await records.insertRefreshToken(
            RefreshTokenRecord(
                tokenHash: nextHash, sessionID: session.id, createdAt: current, expiresAt: expiresAt))
        let claimed = try await records.claimRefreshToken(
            hash: record.tokenHash, replacement: nextHash,
            sealedSuccessor: try SuccessorSeal.seal(next, under: presented),
            now: current)
        guard claimed else {
            try await records.deleteRefreshToken(hash: nextHash)
            return nil
        }
        try await records.touchSession(id: session.id, until: expiresAt, address: client.addressKey, now: current)
        return try await issue(session: session, user: user, refreshToken: next, refreshExpiresAt: expiresAt)
    }

    /// The session response for `refreshToken`, with a new access token carrying the user's current scopes.
    private func issue(
        session: SessionRecord, user: UserRecord, refreshToken: String, refreshExpiresAt: Int64
    ) async throws -> IssuedSession {
        var scoped = session
        scoped.scopes = user.grantedScopes
        let current = now
        return IssuedSession(
            sessionID: session.id, accessToken: try accessToken(user: user, session: scoped, at: current),
            refreshToken: refreshToken, refreshExpiresIn: Int(max(0, refreshExpiresAt - current)), user: user,
            proofKey: session.proofKey)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
