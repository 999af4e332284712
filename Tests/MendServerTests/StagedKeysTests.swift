import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendTesting
import Testing

@testable import MendServer

/// Signing keys with states — next (published and accepted, never signs), current (signs), retired (accepted) — and a
/// rotation through them that two instances on different steps of a rolling deploy follow without refusing each
/// other's tokens or DPoP nonces.
@Suite("Staged signing keys")
struct StagedKeysTests {
    static let first = SigningKeyConfiguration.generate(keyID: "k1")
    static let second = SigningKeyConfiguration.generate(keyID: "k2", algorithm: .es256)

    static func list(_ keys: (SigningKeyConfiguration, String?)...) -> String {
        keys.map { key, state in key.environmentValue + (state.map { ":" + $0 } ?? "") }.joined(separator: ",")
    }

    @Test("MEND_SIGNING_KEYS reads a state after each key; without one, the first key is current, the rest retired")
    func parsesStates() throws {
        let plain = try SigningKeyConfiguration.parse(list: Self.list((Self.first, nil), (Self.second, nil)))
        #expect(plain.map(\.state) == [.current, .retired])
        let staged = try SigningKeyConfiguration.parse(list: Self.list((Self.first, nil), (Self.second, "next")))
        #expect(staged.map(\.state) == [.current, .next])
        let rotated = try SigningKeyConfiguration.parse(
            list: Self.list((Self.first, "retired"), (Self.second, "current")))
        #expect(rotated.map(\.state) == [.retired, .current])
        // An unmarked key beside an explicit current one is retired, wherever it stands.
        let marked = try SigningKeyConfiguration.parse(list: Self.list((Self.first, nil), (Self.second, "current")))
        #expect(marked.map(\.state) == [.retired, .current])
        #expect(
            try SigningKeyConfiguration.parse(list: Self.list((Self.first, "Next"), (Self.second, nil))).map(\.state)
                == [.next, .current])
        #expect(try SigningKeyConfiguration.parse(list: Self.list((Self.first, nil))).first?.state == .current)
        #expect(Self.second.environmentValue.split(separator: ":").count == 3, "no state written for a current key")
    }

    @Test(
        "A list with no current key, two current keys, or an unknown state is refused, naming the variable",
        arguments: [
            ("k1:EdDSA:\(SigningKeyConfiguration.generate(keyID: "k1").privateKey.value):next", "no key is current"),
            (
                "k1:EdDSA:\(SigningKeyConfiguration.generate(keyID: "k1").privateKey.value):current,"
                    + "k2:EdDSA:\(SigningKeyConfiguration.generate(keyID: "k2").privateKey.value):current",
                "one key is current"
            ),
            ("k1:EdDSA:\(SigningKeyConfiguration.generate(keyID: "k1").privateKey.value):later", "'later'"),
        ])
    func refusesWrongStates(_ list: String, _ says: String) {
        #expect {
            _ = try SigningKeyConfiguration.parse(list: list)
        } throws: { error in
            "\(error)".contains("MEND_SIGNING_KEYS") && "\(error)".contains(says) && !"\(error)".contains(list)
        }
    }

    static func claims() -> AccessTokenClaims {
        AccessTokenClaims(
            issuer: "iss", audience: "aud", subject: "u", sessionID: "ses_1", scope: "email", issuedAt: 0,
            expiresAt: 4_000_000_000, tokenID: UUID().uuidString)
    }

    @Test("A next key is published and accepted but never signs; the current one signs wherever it stands")
    func theCurrentKeySigns() throws {
        var next = Self.second
        next.state = .next
        let signer = try SessionSigner(configuration: [next, Self.first], issuer: "iss", audience: "aud")
        #expect(signer.signingKeyID == "k1")
        let kids = signer.jwks["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue }
        #expect(kids == ["k1", "k2"], "the signing key first, then the others")
        // A token the next key signs (on an instance that has made it current) verifies here.
        var current = Self.second
        current.state = .current
        var retired = Self.first
        retired.state = .retired
        let later = try SessionSigner(configuration: [current, retired], issuer: "iss", audience: "aud")
        #expect(later.signingKeyID == "k2")
        let claims = Self.claims()
        #expect(try signer.verify(try later.sign(claims), now: Date()).get() == claims)
        #expect(try later.verify(try signer.sign(claims), now: Date()).get() == claims)
    }

    /// The configurations of a rotation from k1 to k2, one step after the other.
    static var rotation: [[SigningKeyConfiguration]] {
        func with(_ key: SigningKeyConfiguration, _ state: SigningKeyConfiguration.State) -> SigningKeyConfiguration {
            var key = key
            key.state = state
            return key
        }
        return [
            [with(first, .current)],
            [with(first, .current), with(second, .next)],
            [with(first, .retired), with(second, .current)],
            [with(second, .current)],
        ]
    }

    /// An instance's signer and DPoP nonces, as ``LoginBackend`` makes them from `keys`.
    struct Instance {
        let signer: SessionSigner
        let nonces: DPoPNonces

        init(_ keys: [SigningKeyConfiguration]) throws {
            signer = try SessionSigner(configuration: keys, issuer: "iss", audience: "aud")
            nonces = DPoPNonces(secrets: DPoPCheck.nonceSecrets(of: keys))
        }
    }

    @Test(
        "A rolling deploy through next, current, retired: at each step either instance accepts the other's tokens, nonces"
    )
    func rotationWithoutRefusal() throws {
        let now: Int64 = 1_800_000_030
        let steps = Self.rotation
        // Instance a takes each step first; b follows; each pair that runs side by side is checked both ways.
        for (index, step) in steps.enumerated().dropFirst() {
            for (a, b) in [(step, steps[index - 1]), (step, step)] {
                let (one, other) = (try Instance(a), try Instance(b))
                for (signer, checker) in [(one, other), (other, one)] {
                    let claims = Self.claims()
                    #expect(
                        try checker.signer.verify(try signer.signer.sign(claims), now: Date()).get() == claims,
                        "step \(index): a token of \(signer.signer.signingKeyID) refused")
                    #expect(
                        checker.nonces.isValid(signer.nonces.current(now: now), now: now),
                        "step \(index): a nonce of \(signer.signer.signingKeyID) refused")
                }
            }
        }
    }

    @Test("Before the states: a new key put first is refused by an instance still on the old list")
    func theOldRotationRefuses() throws {
        let old = try Instance([Self.first])
        let new = try Instance([Self.second, Self.first])
        let token = try new.signer.sign(Self.claims())
        #expect(throws: Never.self) { try old.signer.verify(try old.signer.sign(Self.claims()), now: Date()).get() }
        #expect((try? old.signer.verify(token, now: Date()).get()) == nil, "the old instance does not know k2")
    }

    @Test("The nonce secret of the current key alone is what an instance before the states issued and accepted")
    func noncesMatchTheFormerSecret() {
        let now: Int64 = 1_800_000_030
        let former = DPoPNonces(secret: Data(Self.first.privateKey.value.utf8))
        var next = Self.second
        next.state = .next
        let staged = DPoPNonces(secrets: DPoPCheck.nonceSecrets(of: [Self.first, next]))
        #expect(staged.current(now: now) == former.current(now: now), "the current key's nonce, as before")
        #expect(staged.isValid(former.current(now: now), now: now))
        #expect(former.isValid(staged.current(now: now), now: now))
    }

    @Test("mend-server keys shows each key's state and what it does, never a private key")
    func keysCommand() async throws {
        var retired = Self.first
        retired.state = .retired
        let environment = [
            "MEND_APP_ID": "1", "MEND_APP_SECRET": "x", "MEND_REDIRECT_URIS": "https://a.example/cb",
            "MEND_SIGNING_KEYS": Self.list((Self.first, "retired"), (Self.second, nil)),
        ]
        let shown = try await ExecutableTests.run(["keys"], environment: environment)
        #expect(shown.status == 0, "\(shown.output)")
        let lines = shown.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(shown.output)")
        #expect(lines.first?.hasPrefix("k1  EdDSA  retired") == true, "\(shown.output)")
        #expect(lines.last?.hasPrefix("k2  ES256  current  signs") == true, "\(shown.output)")
        for key in [Self.first, Self.second] { #expect(!shown.output.contains(key.privateKey.value)) }
        var wrong = environment
        wrong["MEND_SIGNING_KEYS"] = Self.list((Self.first, "next"))
        let refused = try await ExecutableTests.run(["keys"], environment: wrong)
        #expect(refused.status == 78 && refused.output.contains("no key is current"), "\(refused.output)")
        #expect(!refused.output.contains(Self.first.privateKey.value))
    }
}

/// The rotation through live instances on one PostgreSQL, nonces required: at every step of the rolling deploy an
/// instance on the new step and one on the step before (then both on the new step) each take the other's sessions —
/// DPoP-bound and bearer, their access tokens, refreshes and nonces — checked twice each (the verified-token cache).
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct StagedKeysInstancesTests {
    @Test("Two instances through every step of a rotation, nonces required: no token, nonce or proof refused")
    func rotationAcrossInstances() async throws {
        try await withEmulator { emulator in
            try await PostgresTestDatabase.with(adminURL: TestDatabase.postgresURL!) { url in
                var base = ServerConfiguration.forEmulator(emulator)
                base.storage.databaseURL = url
                base.sessions.rateLimits = .unlimited
                base.sessions.dpopRequiresNonce = true
                let steps = StagedKeysTests.rotation
                // The control: the new key put first in one step, as before the states. An instance still on the
                // old list refuses the sessions of one on the new list: this check sees a refusal.
                var old = base
                old.sessions.signingKeys = [StagedKeysTests.first]
                var new = base
                new.sessions.signingKeys = [StagedKeysTests.second, StagedKeysTests.first]
                try await withMendServer(configuration: new) { new in
                    try await withMendServer(configuration: old) { old in
                        await #expect(throws: MendError.self) {
                            try await Self.crossCheck(emulator, from: new, to: old, step: 0)
                        }
                    }
                }
                // The bearer tokens of the steps before, with the key that signed each: checked again at every
                // later step on both instances while both still list that key.
                let earlier = LockedValue<[(token: String, keyID: String)]>([])
                for (index, step) in steps.enumerated().dropFirst() {
                    for (ahead, behind) in [(step, steps[index - 1]), (step, step)] {
                        var one = base
                        one.sessions.signingKeys = ahead
                        var other = base
                        other.sessions.signingKeys = behind
                        try await withMendServer(configuration: one) { one in
                            try await withMendServer(configuration: other) { other in
                                let listed = Set(ahead.map(\.keyID)).intersection(behind.map(\.keyID))
                                for (token, keyID) in earlier.value where listed.contains(keyID) {
                                    for server in [one, other] {
                                        _ = try await ServerClient(server.baseURL).get("/v1/session", bearer: token)
                                    }
                                }
                                // Several clients at once, each way.
                                try await withThrowingTaskGroup(of: Void.self) { clients in
                                    for _ in 0..<4 {
                                        clients.addTask {
                                            let token = try await Self.crossCheck(
                                                emulator, from: one, to: other, step: index)
                                            earlier.mutate {
                                                $0.append((token, one.backend.sessions.signer.signingKeyID))
                                            }
                                        }
                                        clients.addTask {
                                            let token = try await Self.crossCheck(
                                                emulator, from: other, to: one, step: index)
                                            earlier.mutate {
                                                $0.append((token, other.backend.sessions.signer.signingKeyID))
                                            }
                                        }
                                    }
                                    try await clients.waitForAll()
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A DPoP-bound session opened at `from` (its nonce challenge answered) used and refreshed at `to` with the nonce
    /// `from` gave, its refreshed token used back at `from`; a bearer session of `from` checked at `to`, whose access
    /// token it returns.
    @discardableResult
    static func crossCheck(
        _ emulator: RunningEmulator, from: RunningMendServer, to: RunningMendServer, step: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let here = try ProvingClient(from.baseURL)
        let there = ProvingClient(
            server: ServerClient(to.baseURL), key: here.key, signer: here.signer, publicURL: to.baseURL)
        let body = try await emulator.loginCodeBody()
        let challenge = await here.server.failure {
            try await here.post("/v1/login/code", json: body, proof: try here.proof("POST", "/v1/login/code"))
        }
        let asked = try #require(challenge?.header("DPoP-Nonce"), "step \(step)", sourceLocation: sourceLocation)
        var headers = HTTPFields()
        headers[.dpop] = try here.proof("POST", "/v1/login/code", nonce: asked)
        let answer = try await here.server.post("/v1/login/code", json: body, headers: headers)
        let session = try answer.json()
        let nonce = try #require(answer.head.headerFields[.dpopNonce], sourceLocation: sourceLocation)
        let access = try #require(session["access_token"]?.stringValue, sourceLocation: sourceLocation)
        #expect(session["token_type"]?.stringValue == "DPoP", sourceLocation: sourceLocation)
        for _ in 0..<2 {
            let checked = try await there.get(
                "/v1/session", token: access,
                proof: try there.proof("GET", "/v1/session", accessToken: access, nonce: nonce))
            #expect(checked["session_id"] == session["session_id"], "step \(step)", sourceLocation: sourceLocation)
        }
        let refreshed = try await there.post(
            "/v1/session/refresh", json: .object(["refresh_token": session["refresh_token"] ?? .null]),
            proof: try there.proof("POST", "/v1/session/refresh", nonce: nonce))
        let renewed = try #require(refreshed["access_token"]?.stringValue, sourceLocation: sourceLocation)
        for _ in 0..<2 {
            _ = try await here.get(
                "/v1/session", token: renewed,
                proof: try here.proof("GET", "/v1/session", accessToken: renewed, nonce: nonce))
        }
        let bearer = try await here.server.post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
        let bearerToken = try #require(bearer["access_token"]?.stringValue, sourceLocation: sourceLocation)
        #expect(bearer["token_type"]?.stringValue == "Bearer", sourceLocation: sourceLocation)
        for _ in 0..<2 { _ = try await there.server.get("/v1/session", bearer: bearerToken) }
        return bearerToken
    }
}
