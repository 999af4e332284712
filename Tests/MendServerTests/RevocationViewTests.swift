import Crypto
import Foundation
import HTTPTypes
import Logging
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendSignedRequest
import MendTesting
import SQLKit
import Testing

@testable import MendServer

/// Bearer checks without a database read: the in-memory revocation view, the verifier without an actor, and what
/// keeps the view current (in process on SQLite; LISTEN/NOTIFY with heartbeats on PostgreSQL).
struct RevocationViewTests {
    static let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: The view

    @Test func aViewPastItsDeadlineAnswersUnknownSoTheCallerReadsTheDatabase() {
        let view = RevocationView(retention: 60, freshness: .stale)
        let ending = RevocationView.Ending(reason: "logged_out", detail: nil, endedAt: 100)
        view.record(sessionID: "ses_a", ending)
        #expect(view.status(of: "ses_a") == .unknown)  // never trusted before the feed caught up
        let start = ContinuousClock.now
        view.markCurrent(until: start + .milliseconds(750))
        #expect(view.status(of: "ses_a", at: start) == .ended(ending))
        #expect(view.status(of: "ses_b", at: start) == .active)
        #expect(view.status(of: "ses_b", at: start + .milliseconds(750)) == .unknown)
        view.markCurrent(until: start + .milliseconds(100))  // an older heartbeat never moves the deadline back
        #expect(view.status(of: "ses_b", at: start + .milliseconds(500)) == .active)
        view.markStale()
        #expect(view.status(of: "ses_b", at: start) == .unknown)
    }

    @Test func aSessionKeepsItsFirstEndingAndOldEndingsAreDropped() {
        let view = RevocationView(retention: 60, freshness: .always)
        view.record(sessionID: "ses_a", .init(reason: "refresh_token_reused", detail: nil, endedAt: 100))
        view.record(sessionID: "ses_a", .init(reason: "logged_out", detail: nil, endedAt: 101))
        #expect(view.status(of: "ses_a") == .ended(.init(reason: "refresh_token_reused", detail: nil, endedAt: 100)))
        view.record([("ses_b", .init(reason: "logged_out", detail: nil, endedAt: 150))], now: 161)
        #expect(view.count == 1)  // ses_a ended 61 s ago: no access token of it can still be valid
        #expect(view.status(of: "ses_a") == .active)
        view.markStale()
        #expect(view.status(of: "ses_b") == .ended(.init(reason: "logged_out", detail: nil, endedAt: 150)))
    }

    // MARK: The verifier

    @Test func theVerifierRefusesAlgorithmConfusionCritAndExtraParts() async throws {
        let key = SigningKeyConfiguration.generate(keyID: "k1")
        let other = SigningKeyConfiguration.generate(keyID: "k2", algorithm: .es256)
        let signer = try SessionSigner(configuration: [key, other], issuer: "iss", audience: "aud")
        let claims = AccessTokenClaims(
            issuer: "iss", audience: "aud", subject: "u", sessionID: "ses_1", scope: "email", issuedAt: 0,
            expiresAt: 4_000_000_000, tokenID: "j")
        let token = try signer.sign(claims)
        let now = Date()
        #expect(try signer.verifyIgnoringExpiry(token, now: now).get() == claims)

        let payload = Base64URL.encode(Array(JSONValue.object(claims.members).jsonText().utf8))
        let privateKey = try Curve25519.Signing.PrivateKey(
            rawRepresentation: try #require(Base64URL.decode(key.privateKey.value)))
        /// A token with this header, signed by k1's private key (a valid Ed25519 signature).
        func signed(_ header: String) throws -> String {
            let input = Base64URL.encode(Data(header.utf8)) + "." + payload
            return input + "." + Base64URL.encode(try privateKey.signature(for: Data(input.utf8)))
        }
        #expect(try signer.verifyIgnoringExpiry(signed(#"{"alg":"EdDSA","kid":"k1"}"#), now: now).get() == claims)
        // Members in any order (jwt-kit, which signed tokens before MendJOSE, wrote them in its dictionary's order).
        #expect(
            try signer.verifyIgnoringExpiry(signed(#"{"typ":"JWT","kid":"k1","alg":"EdDSA"}"#), now: now).get()
                == claims)
        let refused: [(String, SessionSigner.Rejection)] = [
            // Any crit at all: Mend understands no extension (RFC 7515 §4.1.11; null is not a list of names).
            (try signed(#"{"alg":"EdDSA","kid":"k1","crit":null}"#), .malformed),
            (try signed(#"{"alg":"ES256","kid":"k1"}"#), .badSignature),  // the key's own algorithm only
            (try signed(#"{"alg":"EdDSA","kid":"k2"}"#), .badSignature),  // k2 is an ES256 key
            (try signed(#"{"alg":"EdDSA"}"#), .badSignature),  // no kid
            (try signed(#"{"alg":"EdDSA","kid":"k9"}"#), .badSignature),  // unknown kid
            (try signed(#"{"alg":"EdDSA","kid":"k1","crit":["exp"]}"#), .malformed),
            (try signed(#"{"alg":"none","kid":"k1"}"#), .malformed),
            (try signed(#"{"alg":"EdDSA","kid":7}"#), .malformed),
            (try signed(#"{"alg":["EdDSA"],"kid":"k1"}"#), .malformed),
            (try signed(#"{"alg":"EdDSA","kid":"k1","crit":"exp"}"#), .malformed),
            (try signed(#"["alg","EdDSA"]"#), .malformed),
            (
                Base64URL.encode(Data(#"{"alg":"none","kid":"k1"}"#.utf8)) + "." + payload + ".",
                .malformed
            ),
            (token + ".x", .malformed),
            (String(token.dropLast(3)) + "AAA", .badSignature),
            ("..", .malformed),
            (String(repeating: "a", count: 9000), .malformed),
        ]
        for (bad, rejection) in refused {
            #expect(signer.verifyIgnoringExpiry(bad, now: now) == .failure(rejection), "\(bad.prefix(80))")
        }
        // A payload changed after signing.
        let parts = token.split(separator: ".")
        var tampered = claims
        tampered.subject = "someone-else"
        let forged =
            "\(parts[0]).\(Base64URL.encode(Array(JSONValue.object(tampered.members).jsonText().utf8))).\(parts[2])"
        #expect(signer.verifyIgnoringExpiry(forged, now: now) == .failure(.badSignature))
    }

    @Test("The claims are read with their types: cnf optional, nbf a number, unknown members ignored, each member once")
    func theClaimsParserReadsTypedClaims() async throws {
        let key = SigningKeyConfiguration.generate(keyID: "k1")
        let signer = try SessionSigner(configuration: [key], issuer: "iss", audience: "aud")
        let privateKey = try Curve25519.Signing.PrivateKey(
            rawRepresentation: try #require(Base64URL.decode(key.privateKey.value)))
        let header = Base64URL.encode(Data(#"{"alg":"EdDSA","kid":"k1"}"#.utf8))
        func signed(_ payload: String) throws -> String {
            let input = header + "." + Base64URL.encode(Data(payload.utf8))
            return input + "." + Base64URL.encode(try privateKey.signature(for: Data(input.utf8)))
        }
        let now = Date()
        let base = #""iss":"iss","aud":"aud","sub":"u","sid":"s","scope":"a b","iat":1,"exp":4000000000,"jti":"j""#
        let plain = AccessTokenClaims(
            issuer: "iss", audience: "aud", subject: "u", sessionID: "s", scope: "a b", issuedAt: 1,
            expiresAt: 4_000_000_000, tokenID: "j")
        var bound = plain
        bound.confirmation = .init(jkt: "t")
        var notBefore = plain
        notBefore.notBefore = 2
        let accepted: [(String, AccessTokenClaims)] = [
            ("{\(base)}", plain), ("{\(base),\"cnf\":{\"jkt\":\"t\"}}", bound), ("{\(base),\"cnf\":null}", plain),
            ("{\(base),\"x\":[1,{}]}", plain), ("{\(base),\"cnf\":{\"jkt\":\"t\",\"x5t#S256\":\"y\"}}", bound),
            (" {\(base)} ", plain), ("{\(base),\"nbf\":2}", notBefore),
        ]
        for (payload, claims) in accepted {
            #expect(signer.verifyIgnoringExpiry(try signed(payload), now: now) == .success(claims), "\(payload)")
        }
        let refused = [
            // A claim missing or of another type, cnf without jkt, not an object, a member twice, an empty sub.
            #"{"iss":"iss","aud":"aud","sub":"u","sid":"s","scope":"a","iat":1,"exp":4000000000}"#,
            #"{"iss":"iss","aud":"aud","sub":"u","sid":"s","scope":"a","iat":"1","exp":4000000000,"jti":"j"}"#,
            #"{"iss":"iss","aud":["aud"],"sub":"u","sid":"s","scope":"a","iat":1,"exp":4000000000,"jti":"j"}"#,
            #"{"iss":"iss","aud":"aud","sub":7,"sid":"s","scope":"a","iat":1,"exp":4000000000,"jti":"j"}"#,
            #"{"iss":"iss","aud":"aud","sub":"","sid":"s","scope":"a","iat":1,"exp":4000000000,"jti":"j"}"#,
            "{\(base),\"cnf\":{}}", "{\(base),\"cnf\":\"t\"}", "[{\(base)}]", "{\(base)", "",
            "{\(base),\"nbf\":\"2\"}", "{\(base),\"sub\":\"v\"}", "{\(base),\"cnf\":null,\"cnf\":{\"jkt\":\"t\"}}",
        ]
        for payload in refused {
            #expect(signer.verifyIgnoringExpiry(try signed(payload), now: now) == .failure(.malformed), "\(payload)")
        }
        #expect(try signer.verifyIgnoringExpiry(signed("{\(base)}"), now: now).get().scopes == ["a", "b"])
    }

    @Test("GET /v1/session's body, written by hand, is the encoder's text")
    func theIntrospectionBodyIsTheEncodersText() throws {
        for scope in ["", "email", "email public_profile a\"b/c\u{1}é", " two  spaces "] {
            let body = IntrospectionBody(
                valid: true, userID: "usr_1é", scope: scope, expiresAt: 4_000_000_000, sessionID: "ses_\n")
            #expect(
                String(decoding: body.jsonBytes, as: UTF8.self)
                    == String(decoding: try WireResponse.encoder.encode(body), as: UTF8.self))
        }
        let invalid = IntrospectionBody(valid: false, userID: "", scope: "a", expiresAt: -1, sessionID: "")
        #expect(
            String(decoding: invalid.jsonBytes, as: UTF8.self)
                == String(decoding: try WireResponse.encoder.encode(invalid), as: UTF8.self))
    }

    // MARK: SQLite: in process

    @Test func bearerChecksOnSQLiteAreAnsweredByTheViewAndARestartKeepsTheRevocations() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mend-view-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.storage.databaseURL = "sqlite://" + directory.appendingPathComponent("mend.sqlite").path
            configuration.sessions.rateLimits = .unlimited
            configuration.sessions.signingKeys = [.generate(keyID: "kept")]
            let access = try await withMendServer(configuration: configuration) { server in
                let client = ServerClient(server.baseURL)
                let session = try await client.post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
                let access = try #require(session["access_token"]?.stringValue)
                _ = try await client.get("/v1/session", bearer: access)
                #expect(sessionChecks(server, source: "view") == 1)
                _ = try await client.post("/v1/session/logout", json: .object([:]), bearer: access, expectsJSON: false)
                let ended = await client.failure { try await client.get("/v1/session", bearer: access) }
                #expect(ended?.isSession(.Session.loggedOut) == true)
                return access
            }
            // A new process starts with the log in its view: the still-unexpired token stays refused.
            try await withMendServer(configuration: configuration) { server in
                let client = ServerClient(server.baseURL)
                let ended = await client.failure { try await client.get("/v1/session", bearer: access) }
                #expect(ended?.isSession(.Session.loggedOut) == true)
                #expect(sessionChecks(server, source: "database") == 0)
                #expect(sessionChecks(server, source: "view") == 1)
            }
        }
    }
}

/// Two instances on one PostgreSQL: a revocation on one is refused on the other within the documented bound, and
/// never allowed while the other's LISTEN connection is down.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct RevocationFeedTests {
    /// Runs two live instances on one fresh PostgreSQL database, each with its backend, for `body`.
    func withTwoInstances(
        _ body: (RunningEmulator, RunningMendServer, RunningMendServer) async throws -> Void
    ) async throws {
        try await withTwoPostgresInstances { emulator, first, second, _ in try await body(emulator, first, second) }
    }

    /// Waits until the instance's view is current (its feed listened, read the log and got a heartbeat back).
    func waitUntilCurrent(_ server: RunningMendServer) async throws {
        for _ in 0..<500 {
            if case .until = server.backend.sessions.revocations.freshness,
                server.backend.sessions.revocations.status(of: "ses_probe") == .active
            {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the revocation view never became current")
    }

    @Test func aLogoutOnOneInstanceIsRefusedOnTheOtherWithinTheBound() async throws {
        try await withTwoInstances { emulator, first, second in
            try await waitUntilCurrent(second)
            var latencies: [Duration] = []
            for _ in 0..<5 {
                let session = try await ServerClient(first.baseURL).post(
                    "/v1/login/code", json: try await emulator.loginCodeBody()
                ).json()
                let access = try #require(session["access_token"]?.stringValue)
                _ = try await ServerClient(second.baseURL).get("/v1/session", bearer: access)
                _ = try await ServerClient(first.baseURL).post(
                    "/v1/session/logout", json: .object([:]), bearer: access, expectsJSON: false)
                let loggedOut = ContinuousClock.now
                let (refusal, latency) = try await ServerClient(second.baseURL).timeUntilRefused(
                    access, since: loggedOut)
                #expect(refusal.isSession(.Session.loggedOut))
                latencies.append(latency)
            }
            // Answered by the view, not the database: the notification got there first.
            #expect(sessionChecks(second, source: "view") > 0)
            print("revocation latency across two instances (logout answered → refused on the other): \(latencies)")
        }
    }

    @Test func anOperatorsSQLRevocationReachesEveryInstance() async throws {
        try await withTwoInstances { emulator, first, second in
            try await waitUntilCurrent(first)
            try await waitUntilCurrent(second)
            let session = try await ServerClient(first.baseURL).post(
                "/v1/login/code", json: try await emulator.loginCodeBody()
            ).json()
            let access = try #require(session["access_token"]?.stringValue)
            let sessionID = try #require(session["session_id"]?.stringValue)
            try await first.backend.database.sql.raw(
                """
                UPDATE mend_sessions SET revoked_at = \(bind: first.backend.now), revoked_reason = 'revoked'
                WHERE id = \(bind: sessionID)
                """
            ).run()
            let revoked = ContinuousClock.now
            for server in [first, second] {
                let (refusal, _) = try await ServerClient(server.baseURL).timeUntilRefused(access, since: revoked)
                #expect(refusal.isSession(.Session.revoked))
            }
        }
    }

    @Test func whileTheListenConnectionIsDownChecksReadTheDatabase() async throws {
        try await withTwoInstances { emulator, first, second in
            try await waitUntilCurrent(second)
            let session = try await ServerClient(first.baseURL).post(
                "/v1/login/code", json: try await emulator.loginCodeBody()
            ).json()
            let access = try #require(session["access_token"]?.stringValue)
            // End the second instance's LISTEN connection from the server side, then log out on the first: the
            // notification cannot reach the second, which must still refuse within the bound (from the database).
            let pid = try #require(second.backend.revocationFeed.listenerProcessID.withLock { $0 })
            try await first.backend.database.sql.raw("SELECT pg_terminate_backend(\(bind: pid)::int)").run()
            _ = try await ServerClient(first.baseURL).post(
                "/v1/session/logout", json: .object([:]), bearer: access, expectsJSON: false)
            let loggedOut = ContinuousClock.now
            let (refusal, _) = try await ServerClient(second.baseURL).timeUntilRefused(access, since: loggedOut)
            #expect(refusal.isSession(.Session.loggedOut))
            // A view that is not current answers nothing: the check reads the database (whatever the feed did
            // meanwhile, this check comes right after the view was marked stale).
            second.backend.sessions.revocations.markStale()
            await #expect(throws: ServerFailure.self) {
                _ = try await second.backend.sessions.authenticate(
                    PresentedRequest(headers: [.authorization: "Bearer \(access)"]))
            }
            #expect(sessionChecks(second, source: "database") > 0)
            // The feed reconnects and its catch-up read brings the revocation it missed into the view.
            try await waitUntilCurrent(second)
            let sessionID = try #require(session["session_id"]?.stringValue)
            guard case .ended(let ending) = second.backend.sessions.revocations.status(of: sessionID) else {
                Issue.record("the catch-up read did not bring the missed revocation")
                return
            }
            #expect(ending.reason == SessionEndReason.loggedOut.rawValue)
        }
    }
}

/// `mend_session_checks_total{source=…}` of a running server (0 when not rendered).
func sessionChecks(_ server: RunningMendServer, source: String) -> Int {
    let prefix = "mend_session_checks_total{source=\"\(source)\"} "
    let line = server.backend.metrics.render().split(separator: "\n").first { $0.hasPrefix(prefix) }
    return line.flatMap { Double($0.dropFirst(prefix.count)) }.map { Int($0) } ?? 0
}
