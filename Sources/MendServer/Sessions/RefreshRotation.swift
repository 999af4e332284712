/// What to do with a presented refresh token: a pure function of what the database holds and the time, tested
/// without I/O (RFC 9700 §4.14: rotation with reuse detection and a short grace window for a legitimate retry).
///
/// ```
/// unknown token                      → unknown            (session/16)
/// session gone or revoked            → sessionEnded       (its reason: session/10–17)
/// already rotated, within the grace  → concurrentRefresh  (409: another refresh of the same token won)
/// already rotated, after the grace   → reuseDetected      (revoke the whole family: session/12)
/// past its expiry, or the session's  → expired            (session/15)
/// otherwise                          → rotate             (claim it atomically; if the claim loses, decide again)
/// ```
enum RefreshRotation {
    enum Decision: Sendable, Hashable {
        case rotate(sessionID: String)
        case unknown
        case expired
        /// The session is over; `nil` when it is gone or its stored reason is unknown (session/10).
        case sessionEnded(reason: SessionEndReason?)
        case concurrentRefresh
        case reuseDetected(sessionID: String)
    }

    static func decide(
        token: RefreshTokenRecord?, session: SessionRecord?, now: Int64, graceSeconds: Int64
    ) -> Decision {
        guard let token else { return .unknown }
        guard let session, session.id == token.sessionID else { return .sessionEnded(reason: nil) }
        if session.revokedAt != nil { return .sessionEnded(reason: SessionEndReason(stored: session.revokedReason)) }
        if let rotatedAt = token.rotatedAt {
            return now - rotatedAt <= graceSeconds ? .concurrentRefresh : .reuseDetected(sessionID: session.id)
        }
        if now >= token.expiresAt || now >= session.expiresAt { return .expired }
        return .rotate(sessionID: session.id)
    }
}
