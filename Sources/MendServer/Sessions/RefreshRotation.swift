/// What to do with a presented refresh token: a pure function of what the database holds and the time, tested
/// without I/O (RFC 9700 §4.14: rotation with reuse detection, and a grace window in which a refresh whose answer was
/// lost, or a concurrent refresh of the same token, gets the same successor again).
///
/// ```
/// unknown token                                           → unknown          (session/16)
/// session gone, revoked                                   → sessionEnded     (its reason: session/10–17)
/// rotated, within the grace, successor sealed and unused  → replaySuccessor  (200: the same successor again)
/// rotated, within the grace, session expired              → expired          (session/15)
/// rotated otherwise (after the grace, successor used)     → reuseDetected    (revoke the family: session/12)
/// past the session's absolute lifetime                    → expired(.maximum) (session/15)
/// past its expiry, or the session's                       → expired(.idle)   (session/15)
/// otherwise                                               → rotate           (claim it atomically; if the claim
///                                                                             loses, decide again: replay)
/// ```
enum RefreshRotation {
    /// Which of a session's lifetimes ended it.
    enum Lifetime: String, Sendable, Hashable {
        /// `MEND_SESSION_IDLE_TTL`: no refresh for that long.
        case idle
        /// `MEND_SESSION_MAX_TTL`: that long since the login.
        case maximum
    }

    enum Decision: Sendable, Hashable {
        /// Claim the token and issue a successor.
        case rotate(sessionID: String)
        /// Answer the successor that the token's row keeps sealed, with a new access token.
        case replaySuccessor(sessionID: String)
        case unknown
        /// The session is past one of its lifetimes.
        case expired(Lifetime)
        /// The session is over; `nil` when it is gone or its stored reason is unknown (session/10).
        case sessionEnded(reason: SessionEndReason?)
        /// The token was used after its successor, or after the grace: revoke the whole family.
        case reuseDetected(sessionID: String)
    }

    /// - Parameters:
    ///   - token: The presented token's row, if any.
    ///   - successor: The row of the token that replaced it (`token.replacedBy`), if it was rotated.
    ///   - session: The token's session.
    ///   - now: Unix seconds.
    ///   - graceSeconds: ``ServerConfiguration/Sessions/refreshReuseGrace``.
    ///   - maximumSeconds: ``ServerConfiguration/Sessions/maximumLifetime``.
    static func decide(
        token: RefreshTokenRecord?, successor: RefreshTokenRecord?, session: SessionRecord?, now: Int64,
        graceSeconds: Int64, maximumSeconds: Int64
    ) -> Decision {
        guard let token else { return .unknown }
        guard let session, session.id == token.sessionID else { return .sessionEnded(reason: nil) }
        if session.revokedAt != nil { return .sessionEnded(reason: SessionEndReason(stored: session.revokedReason)) }
        if let rotatedAt = token.rotatedAt {
            guard now - rotatedAt <= graceSeconds, token.successorSealed != nil, let successor,
                successor.tokenHash == token.replacedBy, successor.sessionID == session.id, successor.rotatedAt == nil
            else { return .reuseDetected(sessionID: session.id) }
            if now >= session.createdAt + maximumSeconds { return .expired(.maximum) }
            if now >= successor.expiresAt || now >= session.expiresAt { return .expired(.idle) }
            return .replaySuccessor(sessionID: session.id)
        }
        if now >= session.createdAt + maximumSeconds { return .expired(.maximum) }
        if now >= token.expiresAt || now >= session.expiresAt { return .expired(.idle) }
        return .rotate(sessionID: session.id)
    }
}
