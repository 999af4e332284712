import MendCore
import MendLogin
import Testing

@testable import MendServer

/// The refresh-rotation state machine, without I/O.
@Suite struct RefreshRotationTests {
    static let session = SessionRecord(id: "s1", userID: "u1", scopes: ["email"], createdAt: 0, expiresAt: 10_000)
    /// The maximum lifetime of the sessions here (they were created at 0).
    static let maximum: Int64 = 10_500
    static let token = RefreshTokenRecord(tokenHash: "h1", sessionID: "s1", createdAt: 0, expiresAt: 10_000)
    static let successor = RefreshTokenRecord(tokenHash: "h2", sessionID: "s1", createdAt: 1000, expiresAt: 11_000)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var token: RefreshTokenRecord?
        var successor: RefreshTokenRecord?
        var session: SessionRecord?
        var now: Int64
        var expected: RefreshRotation.Decision
        var testDescription: String { name }
    }

    /// Rotated at 1000 into `successor`, which it keeps sealed.
    static var rotated: RefreshTokenRecord {
        var token = token
        token.rotatedAt = 1000
        token.replacedBy = "h2"
        token.successorSealed = "v1:sealed"
        return token
    }

    /// Rotated before migration 2: no sealed successor.
    static var rotatedWithoutSeal: RefreshTokenRecord {
        var token = rotated
        token.successorSealed = nil
        return token
    }

    /// The successor, itself rotated at 1005: used.
    static var usedSuccessor: RefreshTokenRecord {
        var successor = successor
        successor.rotatedAt = 1005
        successor.replacedBy = "h3"
        return successor
    }

    static func revoked(_ reason: String?) -> SessionRecord {
        var session = session
        session.revokedAt = 500
        session.revokedReason = reason
        return session
    }

    static var extended: SessionRecord { expiringAt(11_000) }

    static func expiringAt(_ expiresAt: Int64) -> SessionRecord {
        var session = session
        session.expiresAt = expiresAt
        return session
    }

    static let cases: [Case] = [
        Case(
            name: "current token rotates", token: token, session: session, now: 100, expected: .rotate(sessionID: "s1")),
        Case(name: "unknown token", token: nil, session: nil, now: 100, expected: .unknown),
        Case(name: "session gone", token: token, session: nil, now: 100, expected: .sessionEnded(reason: nil)),
        Case(
            name: "session of another family", token: token,
            session: SessionRecord(id: "s9", userID: "u1", scopes: [], createdAt: 0, expiresAt: 10_000), now: 100,
            expected: .sessionEnded(reason: nil)),
        Case(
            name: "session revoked: logged out", token: token, session: revoked("logged_out"), now: 600,
            expected: .sessionEnded(reason: .loggedOut)),
        Case(
            name: "session revoked: deauthorized", token: token, session: revoked("deauthorized"), now: 600,
            expected: .sessionEnded(reason: .deauthorized)),
        Case(
            name: "session revoked for a legacy reason", token: token, session: revoked("logged out"), now: 600,
            expected: .sessionEnded(reason: nil)),
        Case(
            name: "rotated, within grace, successor unused: replay", token: rotated, successor: successor,
            session: extended, now: 1010, expected: .replaySuccessor(sessionID: "s1")),
        Case(
            name: "rotated, at the end of the grace, successor unused: replay", token: rotated, successor: successor,
            session: extended, now: 1060, expected: .replaySuccessor(sessionID: "s1")),
        Case(
            name: "rotated, within grace, successor used: reuse", token: rotated, successor: usedSuccessor,
            session: extended, now: 1010, expected: .reuseDetected(sessionID: "s1")),
        Case(
            name: "rotated, after grace, successor unused: reuse", token: rotated, successor: successor,
            session: extended, now: 1061, expected: .reuseDetected(sessionID: "s1")),
        Case(
            name: "rotated, within grace, successor row gone: reuse", token: rotated, successor: nil,
            session: extended, now: 1010, expected: .reuseDetected(sessionID: "s1")),
        Case(
            name: "rotated, within grace, another row as successor: reuse", token: rotated, successor: token,
            session: extended, now: 1010, expected: .reuseDetected(sessionID: "s1")),
        Case(
            name: "rotated before successors were sealed: reuse", token: rotatedWithoutSeal, successor: successor,
            session: extended, now: 1010, expected: .reuseDetected(sessionID: "s1")),
        Case(
            name: "rotated long ago, the session expired since: reuse", token: rotated, successor: successor,
            session: session, now: 10_000, expected: .reuseDetected(sessionID: "s1")),
        Case(
            name: "rotated, within grace, but the session expired meanwhile: expired", token: rotated,
            successor: successor, session: expiringAt(1005), now: 1010, expected: .expired(.idle)),
        Case(name: "expired token", token: token, session: session, now: 10_000, expected: .expired(.idle)),
        Case(
            name: "past the maximum lifetime, idle lifetime left: expired (maximum)", token: successor,
            session: extended, now: Self.maximum, expected: .expired(.maximum)),
        Case(
            name: "just before the maximum lifetime: rotate", token: successor, session: extended,
            now: Self.maximum - 1,
            expected: .rotate(sessionID: "s1")),
        Case(
            name: "rotated and revoked: revoked wins", token: rotated, successor: successor,
            session: revoked("refresh_token_reused"), now: 1010, expected: .sessionEnded(reason: .refreshTokenReused)),
    ]

    @Test(arguments: cases)
    func decides(_ example: Case) {
        #expect(
            RefreshRotation.decide(
                token: example.token, successor: example.successor, session: example.session, now: example.now,
                graceSeconds: 60, maximumSeconds: Self.maximum) == example.expected)
    }

    @Test func everyStoredReasonHasItsSessionCode() {
        let expected: [SessionEndReason: MendError.Code] = [
            .loggedOut: .Session.loggedOut, .refreshTokenReused: .Session.refreshTokenReused,
            .deauthorized: .Session.providerAccessRevoked, .permissionsRevoked: .Session.providerAccessRevoked,
            .providerTokenInvalid: .Session.providerAccessRevoked, .userDeleted: .Session.userDeleted,
            .codeReplayed: .Session.revoked, .revoked: .Session.revoked, .bindingRequired: .Session.sessionEnded,
        ]
        for reason in SessionEndReason.allCases {
            #expect(reason.code == expected[reason], "\(reason)")
            #expect(MendError.Code.Session.endsSession(reason.code))
            #expect(SessionEndReason.code(stored: reason.rawValue) == reason.code)
        }
        #expect(SessionEndReason.code(stored: nil) == .Session.sessionEnded)
        #expect(SessionEndReason.code(stored: "refresh token reuse detected") == .Session.sessionEnded)
    }

    @Test func theSealedSuccessorOpensOnlyWithTheOldToken() throws {
        let sealed = try SuccessorSeal.seal("mrt_next", under: "mrt_old")
        #expect(sealed.hasPrefix("v1:"))
        #expect(!sealed.contains("mrt_next"))
        #expect(SuccessorSeal.open(sealed, with: "mrt_old") == "mrt_next")
        #expect(SuccessorSeal.open(sealed, with: "mrt_other") == nil)
        #expect(SuccessorSeal.open(sealed, with: OpaqueToken.hash("mrt_old")) == nil)
        #expect(try SuccessorSeal.seal("mrt_next", under: "mrt_old") != sealed)  // a fresh nonce each time
    }
}
