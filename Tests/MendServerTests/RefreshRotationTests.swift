import MendCore
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

    static func revoked(_ reason: String?) -> SessionRecord {
        var session = session
        session.revokedAt = 500
        session.revokedReason = reason
        return session
    }

    static let cases: [Case] = [
        Case(
            name: "current token rotates", token: token, session: session, now: 100, expected: .rotate(sessionID: "s1")),
        Case(name: "unknown token", token: nil, session: nil, now: 100, expected: .unknown),
        Case(name: "session gone", token: token, session: nil, now: 100, expected: .sessionEnded(reason: nil)),
        Case(
            name: "session revoked: logged out", token: token, session: revoked("logged_out"), now: 600,
            expected: .sessionEnded(reason: .loggedOut)),
        Case(
            name: "session revoked: deauthorized", token: token, session: revoked("deauthorized"), now: 600,
            expected: .sessionEnded(reason: .deauthorized)),
        Case(
            name: "session revoked for a legacy reason", token: token, session: revoked("logged out"), now: 600,
            expected: .sessionEnded(reason: nil)),
        Case(name: "rotated, within grace", token: rotated, session: session, now: 1010, expected: .concurrentRefresh),
        Case(
            name: "rotated, after grace", token: rotated, session: session, now: 1011,
            expected: .reuseDetected(sessionID: "s1")),
        Case(name: "expired token", token: token, session: session, now: 10_000, expected: .expired),
        Case(
            name: "rotated and revoked: revoked wins", token: rotated, session: revoked("refresh_token_reused"),
            now: 5000, expected: .sessionEnded(reason: .refreshTokenReused)),
    ]

    @Test(arguments: cases)
    func decides(_ example: Case) {
        #expect(
            RefreshRotation.decide(token: example.token, session: example.session, now: example.now, graceSeconds: 10)
                == example.expected)
    }

    @Test func everyStoredReasonHasItsSessionCode() {
        let expected: [SessionEndReason: MendError.Code] = [
            .loggedOut: .Session.loggedOut, .refreshTokenReused: .Session.refreshTokenReused,
            .deauthorized: .Session.providerAccessRevoked, .permissionsRevoked: .Session.providerAccessRevoked,
            .providerTokenInvalid: .Session.providerAccessRevoked, .userDeleted: .Session.userDeleted,
            .codeReplayed: .Session.revoked, .revoked: .Session.revoked,
        ]
        for reason in SessionEndReason.allCases {
            #expect(reason.code == expected[reason], "\(reason)")
            #expect(MendError.Code.Session.endsSession(reason.code))
            #expect(SessionEndReason.code(stored: reason.rawValue) == reason.code)
        }
        #expect(SessionEndReason.code(stored: nil) == .Session.sessionEnded)
        #expect(SessionEndReason.code(stored: "refresh token reuse detected") == .Session.sessionEnded)
    }
}
