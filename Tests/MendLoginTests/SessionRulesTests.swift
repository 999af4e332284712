import Foundation
import MendCore
import MendHTTP
import Testing

@testable import MendLogin

/// The session's rules, one row each, against ``SessionStateMachine`` alone: no store, no issuer, no emulator, no
/// server. What signs a user out, what is refreshed, what asks for a new login, and what is kept.
@Suite("Session rules")
struct SessionRulesTests {
    typealias Machine = SessionStateMachine<Int>

    /// Who can refresh, check and revoke the session.
    enum Issuer: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// mend-server (`BackendSessionClient`): `session/10`–`19` end a session.
        case backend
        /// An OpenID Connect provider (`OIDCSessionAuthority`): those, and `login/304` (another user).
        case oidc
        /// Nobody: a session that nothing can refresh or check.
        case none

        var testDescription: String { rawValue }

        var rules: Machine.Rules {
            switch self {
            case .backend: Machine.Rules(endsSession: { MendError.Code.Session.endsSession($0.code) })
            case .oidc:
                Machine.Rules(endsSession: {
                    MendError.Code.Session.endsSession($0.code) || $0.code == .Login.userMismatch
                })
            case .none: Machine.Rules(endsSession: nil)
            }
        }
    }

    /// The session the failure concerns.
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// A backend session (a refresh token).
        case backend
        /// A provider's session with a refresh token (an OpenID Connect public client).
        case refreshableProvider
        /// A provider's token alone (Facebook's code flow, Limited Login).
        case providerToken

        var testDescription: String { rawValue }

        func session(expiresIn: TimeInterval, now: Date = SessionRulesTests.now) -> Session {
            Session(
                issuer: self == .backend ? .backend : .provider,
                accessToken: AccessToken(
                    tokenString: "EAAruleTokenAAAAAAAAAAAAAAAAAA", userID: "u1", permissions: [],
                    expirationDate: now.addingTimeInterval(expiresIn), refreshDate: now.addingTimeInterval(-600)),
                refreshToken: self == .providerToken ? nil : "refresh-1", user: .init(id: "u1", name: "Ada"))
        }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let catalog = ErrorCatalog.login.adding(.rest)

    static func error(_ code: MendError.Code) -> MendError {
        MendError(code: code, developerMessage: "test", catalog: catalog)
    }

    /// One rule: a failure with `code`, met on `occasion`, by a session of `kind` whose token is `expired` or not,
    /// with `issuer`, gets `verdict`.
    struct Row: CustomTestStringConvertible, Sendable {
        var code: MendError.Code
        var occasion: Machine.Occasion
        var issuer: Issuer
        var kind: Kind
        var expired = false
        var verdict: Machine.Verdict
        var why: String

        var testDescription: String {
            "\(code) \(occasion) \(issuer) \(kind)\(expired ? " expired" : "") → \(verdict): \(why)"
        }
    }

    static let rows: [Row] = [
        // An expired or invalid access token is refreshed, never a reason to sign out.
        Row(
            code: .Session.accessTokenExpired, occasion: .rejected, issuer: .backend, kind: .backend, verdict: .refresh,
            why: "an expired backend token is refreshed"),
        Row(
            code: .Session.accessTokenInvalid, occasion: .rejected, issuer: .backend, kind: .backend, verdict: .refresh,
            why: "an invalid backend token is refreshed"),
        Row(
            code: .Session.accessTokenExpired, occasion: .invalidated, issuer: .backend, kind: .backend, verdict: .keep,
            why: "a request that does not renew keeps the session"),
        Row(
            code: .Session.accessTokenExpired, occasion: .invalidated, issuer: .none, kind: .providerToken,
            verdict: .keep, why: "an expired token is not the end of a provider's session either"),
        Row(
            code: .Session.accessTokenExpired, occasion: .checkAnswer, issuer: .backend, kind: .backend,
            verdict: .refresh, why: "a check that finds the token expired refreshes: the issuer's clock runs ahead"),
        Row(
            code: .Session.accessTokenInvalid, occasion: .checkAnswer, issuer: .oidc, kind: .refreshableProvider,
            verdict: .refresh, why: "an invalid token found by a check is refreshed"),
        Row(
            code: .HTTP.unauthorized, occasion: .rejected, issuer: .backend, kind: .backend, verdict: .refresh,
            why: "an unknown 401 refreshes a session that can be refreshed"),
        Row(
            code: .REST.accessDenied, occasion: .rejected, issuer: .oidc, kind: .refreshableProvider,
            verdict: .refresh, why: "an API's 401 refreshes a provider session with a refresh token"),
        Row(
            code: .REST.accessDenied, occasion: .rejected, issuer: .none, kind: .refreshableProvider,
            verdict: .refresh, why: "with no issuer the refresh itself says nothing can refresh it (session/18)"),

        // The issuer's word ends the session — on every occasion it can speak.
        Row(
            code: .Session.loggedOut, occasion: .rejected, issuer: .backend, kind: .backend, verdict: .signOut,
            why: "logged out elsewhere"),
        Row(
            code: .Session.refreshTokenReused, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .signOut, why: "reuse detected: revoked as stolen"),
        Row(
            code: .Session.providerAccessRevoked, occasion: .checkAnswer, issuer: .backend, kind: .backend,
            verdict: .signOut, why: "the provider withdrew the app's access"),
        Row(
            code: .Session.userDeleted, occasion: .invalidated, issuer: .backend, kind: .backend, verdict: .signOut,
            why: "the account was deleted"),
        Row(
            code: .Session.sessionExpired, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .signOut, why: "the session reached its maximum lifetime"),
        Row(
            code: .Session.refreshTokenUnknown, occasion: .refreshAnswer, issuer: .oidc, kind: .refreshableProvider,
            verdict: .signOut, why: "an unknown refresh token"),
        Row(
            code: .Session.revoked, occasion: .rejected, issuer: .backend, kind: .backend, verdict: .signOut,
            why: "an operator ended the session"),
        Row(
            code: .Session.sessionEnded, occasion: .checkAnswer, issuer: .oidc, kind: .refreshableProvider,
            verdict: .signOut, why: "the session ended"),
        Row(
            code: .Login.userMismatch, occasion: .refreshAnswer, issuer: .oidc, kind: .refreshableProvider,
            verdict: .signOut, why: "an OpenID Connect refresh that names another user ends the session"),
        Row(
            code: .Login.userMismatch, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .logInAgain, why: "mend-server never says so: not its word, but only a login helps"),

        // Nothing can refresh it (session/18): the session lasts as long as its token.
        Row(
            code: .Session.notRefreshable, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .logInAgain, why: "the token still works: keep the session, log in for a fresh one"),
        Row(
            code: .Session.notRefreshable, occasion: .refreshAnswer, issuer: .backend, kind: .backend, expired: true,
            verdict: .signOut, why: "the token expired too: the session is over"),
        Row(
            code: .Session.notRefreshable, occasion: .refreshAnswer, issuer: .none, kind: .refreshableProvider,
            verdict: .logInAgain, why: "no issuer: the manager's own session/18 asks for a login"),

        // A session nothing can refresh.
        Row(
            code: .REST.accessDenied, occasion: .rejected, issuer: .none, kind: .providerToken, verdict: .signOut,
            why: "no issuer and no refresh token: the rejection is the last word"),
        Row(
            code: .HTTP.unauthorized, occasion: .rejected, issuer: .none, kind: .providerToken, verdict: .signOut,
            why: "whatever the rejection's code"),
        Row(
            code: .REST.accessDenied, occasion: .rejected, issuer: .oidc, kind: .providerToken,
            verdict: .logInAgain, why: "an issuer that did not say it ended: kept, and a login asked for"),
        Row(
            code: .HTTP.forbidden, occasion: .rejected, issuer: .oidc, kind: .providerToken, verdict: .keep,
            why: "a 403 is not a reason to log in"),

        // A provider's session with no issuer, when the request does not renew: the catalog's word.
        Row(
            code: .Login.passwordChanged, occasion: .invalidated, issuer: .none, kind: .providerToken,
            verdict: .signOut, why: "the password changed: only a new login helps"),
        Row(
            code: .Login.userCheckpointed, occasion: .invalidated, issuer: .none, kind: .providerToken,
            verdict: .signOut, why: "checkpointed: the person must visit the provider"),
        Row(
            code: .Session.loggedOut, occasion: .invalidated, issuer: .none, kind: .providerToken, verdict: .signOut,
            why: "a session-ended code"),
        Row(
            code: .REST.usageLimitExceeded, occasion: .invalidated, issuer: .none, kind: .providerToken,
            verdict: .keep, why: "a usage limit is not the session's end"),
        Row(
            code: .Login.passwordChanged, occasion: .invalidated, issuer: .none, kind: .backend, verdict: .keep,
            why: "only a provider's session is judged by the catalog alone"),
        Row(
            code: .Login.passwordChanged, occasion: .invalidated, issuer: .backend, kind: .backend, verdict: .keep,
            why: "an issuer's session is judged by its issuer alone"),

        // Transient failures are thrown, the session kept.
        Row(
            code: .Transport.cannotConnect, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .keep, why: "the backend is unreachable"),
        Row(
            code: .Transport.timedOut, occasion: .checkAnswer, issuer: .backend, kind: .backend, verdict: .keep,
            why: "a check that timed out"),
        Row(
            code: .HTTP.serviceUnavailable, occasion: .refreshAnswer, issuer: .oidc, kind: .refreshableProvider,
            verdict: .keep, why: "a 503 from the token endpoint"),
        Row(
            code: .Login.tokenStoreUnavailable, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .keep, why: "an unreadable store never means logged out"),
        Row(
            code: .HTTP.internalServerError, occasion: .checkAnswer, issuer: .oidc, kind: .refreshableProvider,
            verdict: .keep, why: "a 500 from the issuer"),

        // What asks a SessionCredentials for a new login after a refresh failed.
        Row(
            code: .Login.missingAccessToken, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .logInAgain, why: "nobody is logged in (another process logged out)"),
        Row(
            code: .HTTP.unauthorized, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .logInAgain, why: "a bare 401 of the refresh endpoint: the session is kept, a login asked for"),
        Row(
            code: .HTTP.forbidden, occasion: .refreshAnswer, issuer: .backend, kind: .backend, verdict: .keep,
            why: "a 403 of the refresh endpoint asks for no login"),
        Row(
            code: .REST.accessDenied, occasion: .refreshAnswer, issuer: .backend, kind: .backend,
            verdict: .logInAgain, why: "an API's authentication error after a refresh: log in"),
    ]

    /// What the machine decides when `error` is met on `occasion` by `session`, told as the machine's events: the
    /// rule itself is the machine's own. A kept rejection is thrown whether or not only a login helps (the login is
    /// asked for once the refresh fails): both read as `.keep`.
    static func verdict(
        _ rules: Machine.Rules, _ error: MendError, _ occasion: Machine.Occasion, _ session: Session
    ) -> Machine.Verdict {
        var machine = Machine(rules: rules)
        _ = machine.storeRead(session)
        switch occasion {
        case .rejected:
            switch machine.rejected(token: session.accessToken.tokenString, error: error, now: now) {
            case .signOut: return .signOut
            case .refresh: return .refresh
            case .rethrow, .replaced: return .keep
            }
        case .invalidated:
            return machine.invalidated(token: session.accessToken.tokenString, error: error, now: now) == nil
                ? .keep : .signOut
        case .refreshAnswer:
            if machine.refreshFailedEndsSession(error, base: session, now: now) { return .signOut }
            return machine.refreshFailedNeedsLogin(error, now: now) ? .logInAgain : .keep
        case .checkAnswer:
            switch machine.checkFailed(error, now: now) {
            case .refresh: return .refresh
            case .signOut: return .signOut
            case .rethrow: return .keep
            }
        }
    }

    @Test("Each rule", arguments: rows)
    func rule(_ row: Row) {
        let session = row.kind.session(expiresIn: row.expired ? -10 : 900)
        let expected = row.occasion == .rejected && row.verdict == .logInAgain ? .keep : row.verdict
        #expect(Self.verdict(row.issuer.rules, Self.error(row.code), row.occasion, session) == expected)
    }

    /// Every code of every catalog the login uses, on every occasion, issuer and kind of session.
    static var everyCase: [(MendError, Machine.Occasion, Issuer, Kind)] {
        let codes = Set(
            catalog.entries.compactMap { entry in entry.codes.map { MendError.Code(entry.domain, $0.lowerBound) } })
        return codes.flatMap { code in
            Machine.Occasion.allCases.flatMap { occasion in
                Issuer.allCases.flatMap { issuer in
                    Kind.allCases.map { (error(code), occasion, issuer, $0) }
                }
            }
        }
    }

    /// Whether the authorization step hands `error` to the provider as a rejection of its token on `occasion` (the
    /// rejection occasions see nothing else).
    static func reaches(_ error: MendError, on occasion: Machine.Occasion) -> Bool {
        occasion == .refreshAnswer || occasion == .checkAnswer || AuthorizationStep.isAuthenticationRejection(error)
    }

    @Test("No expired or invalid access token signs a user out while something can refresh the session")
    func expiredNeverSignsOut() {
        for (error, occasion, issuer, kind) in Self.everyCase
        where error.matches(.Session.accessTokenExpired) || error.matches(.Session.accessTokenInvalid) {
            // The one exception, a rule of its own: no issuer and no refresh token — nothing can refresh it.
            if issuer == .none, kind == .providerToken, occasion == .rejected { continue }
            for expiresIn in [-10.0, 900] {
                let verdict = Self.verdict(issuer.rules, error, occasion, kind.session(expiresIn: expiresIn))
                #expect(verdict != .signOut, "\(error.code) \(occasion) \(issuer) \(kind)")
            }
        }
    }

    @Test("No transient failure ever signs a user out or asks for a login")
    func transientNeverSignsOut() {
        for (error, occasion, issuer, kind) in Self.everyCase
        where error.category == .transient && Self.reaches(error, on: occasion) {
            let verdict = Self.verdict(issuer.rules, error, occasion, kind.session(expiresIn: 900))
            #expect(verdict == .keep || verdict == .refresh, "\(error.code) \(occasion) \(issuer) \(kind)")
        }
    }

    @Test("With an issuer, only its word signs a user out: session/10–19 (and login/304 for OpenID Connect)")
    func onlyTheIssuerEnds() {
        for (error, occasion, issuer, kind) in Self.everyCase where issuer != .none {
            let verdict = Self.verdict(issuer.rules, error, occasion, kind.session(expiresIn: -10))
            let issuerEnds = issuer.rules.endsSession?(error) ?? false
            #expect((verdict == .signOut) == issuerEnds, "\(error.code) \(occasion) \(issuer) \(kind)")
        }
    }

    @Test("Every failure gets a verdict that a caller can act on: a refresh only for a session with a refresh token")
    func refreshOnlyWhenRefreshable() {
        for (error, occasion, issuer, kind) in Self.everyCase {
            let verdict = Self.verdict(issuer.rules, error, occasion, kind.session(expiresIn: 900))
            if verdict == .refresh, occasion == .rejected {
                #expect(kind != .providerToken, "\(error.code) \(issuer) \(kind)")
            }
        }
    }
}
