import Testing

@testable import MendServer

/// The refresh-rotation state machine, without I/O.
@Suite struct RefreshRotationTests {
    static let session = SessionRecord(id: "s1", userID: "u1", scopes: ["email"], createdAt: 0, expiresAt: 10_000)
    static let token = RefreshTokenRecord(tokenHash: "h1", sessionID: "s1", createdAt: 0, expiresAt: 10_000)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var token: RefreshTokenRecord?
        var session: SessionRecord?
        var now: Int64
        var expected: RefreshRotation.Decision
        var testDescription: String { name }
    }

    static var rotated: RefreshTokenRecord {
        var token = token
        token.rotatedAt = 1000
        token.replacedBy = "h2"
        return token
    }

    static var revoked: SessionRecord {
        var session = session
        session.revokedAt = 500
        session.revokedReason = "logged out"
        return session
    }

    static let cases: [Case] = [
        Case(
            name: "current token rotates", token: token, session: session, now: 100, expected: .rotate(sessionID: "s1")),
        Case(name: "unknown token", token: nil, session: nil, now: 100, expected: .unknown),
        Case(name: "session gone", token: token, session: nil, now: 100, expected: .sessionEnded(reason: nil)),
        Case(
            name: "session revoked", token: token, session: revoked, now: 600,
            expected: .sessionEnded(reason: "logged out")),
        Case(name: "rotated, within grace", token: rotated, session: session, now: 1010, expected: .concurrentRefresh),
        Case(
            name: "rotated, after grace", token: rotated, session: session, now: 1011,
            expected: .reuseDetected(sessionID: "s1")),
        Case(name: "expired token", token: token, session: session, now: 10_000, expected: .expired),
        Case(
            name: "rotated and revoked: revoked wins", token: rotated, session: revoked, now: 5000,
            expected: .sessionEnded(reason: "logged out")),
    ]

    @Test(arguments: cases)
    func decides(_ example: Case) {
        #expect(
            RefreshRotation.decide(token: example.token, session: example.session, now: example.now, graceSeconds: 10)
                == example.expected)
    }
}
