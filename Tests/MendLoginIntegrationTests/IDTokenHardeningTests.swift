import Crypto
import Foundation
import MendCore
import MendEmulator
import MendFacebook
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendHandMadeTokens
import MendTesting
import Testing

@testable import MendLogin

/// An ES256 key that signs test id_tokens, and its JWK.
private struct TestKey: Sendable {
    let keyID: String
    let privateKey = P256.Signing.PrivateKey()

    init(_ keyID: String) { self.keyID = keyID }

    /// The public key as a JWK; `use`, `alg` and `key_ops` only when given.
    func jwk(use: String? = nil, alg: String? = nil, keyOps: [String]? = nil) -> JSONValue {
        let raw = privateKey.publicKey.rawRepresentation
        var members: [String: JSONValue] = [
            "kty": .string("EC"), "crv": .string("P-256"), "kid": .string(keyID),
            "x": .string(Base64URL.encode(raw.prefix(32))), "y": .string(Base64URL.encode(raw.suffix(32))),
        ]
        if let use { members["use"] = .string(use) }
        if let alg { members["alg"] = .string(alg) }
        if let keyOps { members["key_ops"] = .array(keyOps.map(JSONValue.string)) }
        return .object(members)
    }

    /// A signed ES256 token with `claims`, its header naming `kid` (this key's id unless given).
    func token(_ claims: [String: JSONValue], kid: String? = nil) throws -> String {
        let header = JSONValue.object(["alg": .string("ES256"), "typ": .string("JWT"), "kid": .string(kid ?? keyID)])
        return try HandMadeJWS.es256(
            header: header.jsonText(), claims: JSONValue.object(claims).jsonText(), key: privateKey)
    }

    /// A token of raw header and claims text, signed: for what a JSON value cannot write (a member twice).
    func token(header: String, claims: String) throws -> String {
        try HandMadeJWS.es256(header: header, claims: claims, key: privateKey)
    }
}

private let testIssuer = "https://issuer.example"
private let testClient = "client-1"

/// The standard claims of a valid id_token at `now`, with `changes` applied (`.null` removes a claim).
private func claims(at now: Date, _ changes: [String: JSONValue] = [:]) -> [String: JSONValue] {
    let time = Int(now.timeIntervalSince1970)
    var claims: [String: JSONValue] = [
        "iss": .string(testIssuer), "aud": .string(testClient), "sub": .string("user-1"), "iat": .int(time),
        "exp": .int(time + 3600), "nonce": .string("n0nce"),
    ]
    for (name, value) in changes { claims[name] = value == .null ? nil : value }
    return claims
}

/// A transport serving a JWK Set that a test can change, counting the fetches.
private final class JWKSServer: Sendable {
    /// The published keys.
    private final class Keys: @unchecked Sendable {
        // Safe: `keys` is only touched under `lock`.
        private let lock = NSLock()
        private var keys: [JSONValue]
        init(_ keys: [JSONValue]) { self.keys = keys }
        var value: [JSONValue] {
            get { lock.withLock { keys } }
            set { lock.withLock { keys = newValue } }
        }
    }

    private let keys: Keys
    let transport: InMemoryTransport

    init(_ keys: [JSONValue], gate: Gate? = nil) {
        let published = Keys(keys)
        self.keys = published
        self.transport = InMemoryTransport { _, _ in
            if let gate { await gate.wait() }
            return .json(200, JSONValue.object(["keys": .array(published.value)]).jsonText())
        }
    }

    func publish(_ keys: [JSONValue]) { self.keys.value = keys }
    var fetches: Int { transport.requestCount }
}

/// Opens once `expected` arrivals were counted; `wait()` returns when it is open.
private actor Gate {
    let expected: Int
    private var arrivals = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(opensAfter expected: Int) { self.expected = expected }

    func arrive() {
        arrivals += 1
        if arrivals >= expected {
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    func wait() async {
        if arrivals >= expected { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}

private func validator(
    _ server: JWKSServer, clock: OffsetClock = OffsetClock(), keyRefetchInterval: TimeInterval = 60
) -> IDTokenValidator {
    IDTokenValidator(
        issuer: testIssuer, clientID: testClient, jwksURI: URL(string: "https://issuer.example/jwks")!,
        transport: server.transport, keyRefetchInterval: keyRefetchInterval, clock: clock.pipeline())
}

private func expectInvalid(
    _ validator: IDTokenValidator, _ token: String, accessToken: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        _ = try await validator.validate(token, nonce: "n0nce", accessToken: accessToken)
        Issue.record("the id_token was accepted", sourceLocation: sourceLocation)
    } catch let error as MendError {
        #expect(error.code == .Login.invalidIDToken, "\(error)", sourceLocation: sourceLocation)
        #expect(error.isSecuritySensitive, sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("id_token validation refuses what OpenID Connect Core §3.1.3.7 refuses")
struct IDTokenClaimHardeningTests {
    @Test("Several audiences need an azp; a present azp must be the client id")
    func authorizedParty() async throws {
        let key = TestKey("k1")
        let server = JWKSServer([key.jwk()])
        let validator = validator(server)
        let now = Date()
        let several = JSONValue.array([.string(testClient), .string("another-client")])
        await expectInvalid(validator, try key.token(claims(at: now, ["aud": several])))
        await expectInvalid(validator, try key.token(claims(at: now, ["azp": .string("another-client")])))
        await expectInvalid(
            validator, try key.token(claims(at: now, ["aud": several, "azp": .string("another-client")])))
        // Several audiences, each one this validator trusts: the azp decides.
        let trusting = IDTokenValidator(
            issuer: testIssuer, clientIDs: [testClient, "another-client"],
            jwksURI: URL(string: "https://issuer.example/jwks")!, transport: server.transport)
        _ = try await trusting.validate(
            try key.token(claims(at: now, ["aud": several, "azp": .string(testClient)])), nonce: "n0nce")
        _ = try await validator.validate(try key.token(claims(at: now, ["azp": .string(testClient)])), nonce: "n0nce")
        _ = try await validator.validate(try key.token(claims(at: now)), nonce: "n0nce")
    }

    @Test("A present at_hash must be the access token's (Core §3.1.3.8); without one, or without a token, it passes")
    func accessTokenHash() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        let now = Date()
        let hash = Base64URL.encode(SHA256.hash(data: Data("EAAtoken".utf8)).prefix(16))
        let bound = try key.token(claims(at: now, ["at_hash": .string(hash)]))
        _ = try await validator.validate(bound, nonce: "n0nce", accessToken: "EAAtoken")
        await expectInvalid(validator, bound, accessToken: "EAAother")
        await expectInvalid(validator, try key.token(claims(at: now, ["at_hash": .int(7)])), accessToken: "EAAtoken")
        // at_hash is optional in the code flow, and an id_token sign-in has no access token to compare with.
        _ = try await validator.validate(try key.token(claims(at: now)), nonce: "n0nce", accessToken: "EAAtoken")
        _ = try await validator.validate(bound, nonce: "n0nce")
    }

    @Test("nbf in the future (beyond the leeway) is refused; within the leeway it passes")
    func notBefore() async throws {
        let key = TestKey("k1")
        let server = JWKSServer([key.jwk()])
        let validator = validator(server)
        let now = Date()
        let time = Int(now.timeIntervalSince1970)
        await expectInvalid(validator, try key.token(claims(at: now, ["nbf": .int(time + 3600)])))
        await expectInvalid(validator, try key.token(claims(at: now, ["nbf": .string("soon")])))
        _ = try await validator.validate(try key.token(claims(at: now, ["nbf": .int(time + 30)])), nonce: "n0nce")
        _ = try await validator.validate(try key.token(claims(at: now, ["nbf": .int(time - 10)])), nonce: "n0nce")
    }
}

@Suite("id_token validation keeps the letter of RFC 7515, RFC 7519 and OpenID Connect Core where verifiers drifted")
struct IDTokenStandardsTests {
    private static let header = #"{"alg":"ES256","kid":"k1","typ":"JWT"}"#

    /// The claims of a valid token at `now` as JSON text, `extra` appended before the closing brace.
    private static func claimsText(at now: Date, sub: String = "user-1", extra: String = "") -> String {
        let time = Int(now.timeIntervalSince1970)
        return
            #"{"iss":"\#(testIssuer)","aud":"\#(testClient)","sub":"\#(sub)","iat":\#(time),"exp":\#(time + 3600),"nonce":"n0nce"\#(extra)}"#
    }

    @Test("The raw token builder makes tokens the validator accepts (the refusals below are the change alone)")
    func baseline() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        _ = try await validator.validate(
            try key.token(header: Self.header, claims: Self.claimsText(at: Date())), nonce: "n0nce")
    }

    @Test("crit naming an extension nobody understands is refused (RFC 7515 §4.1.11)")
    func critical() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        let header = #"{"alg":"ES256","kid":"k1","typ":"JWT","crit":["urn:example:unknown"],"urn:example:unknown":1}"#
        await expectInvalid(validator, try key.token(header: header, claims: Self.claimsText(at: Date())))
    }

    @Test("A member name used twice is refused, in the claims and in the header (RFC 7515 §5.2, RFC 7519 §4)")
    func duplicateMembers() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        let now = Date()
        for name in ["sub", "nonce", "iss", "aud", "exp"] {
            let shadow = name == "exp" ? #","exp":1"# : #","\#(name)":"shadow""#
            await expectInvalid(
                validator, try key.token(header: Self.header, claims: Self.claimsText(at: now, extra: shadow)))
        }
        let twoKeys = #"{"alg":"ES256","kid":"k1","typ":"JWT","kid":"k1"}"#
        await expectInvalid(validator, try key.token(header: twoKeys, claims: Self.claimsText(at: now)))
    }

    @Test("A signature with = padding is a second spelling of the token, refused (RFC 7515 §2)")
    func paddedSignature() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        let token = try key.token(header: Self.header, claims: Self.claimsText(at: Date()))
        // A 64-byte signature is 86 characters: two `=` complete its last quantum.
        await expectInvalid(validator, token + "==")
    }

    @Test("exp and iat as strings are not NumericDates (RFC 7519 §2), refused")
    func stringTimes() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        let now = Date()
        let time = Int(now.timeIntervalSince1970)
        await expectInvalid(validator, try key.token(claims(at: now, ["exp": .string(String(time + 3600))])))
        await expectInvalid(validator, try key.token(claims(at: now, ["iat": .string(String(time))])))
    }

    @Test("An empty sub names nobody, refused")
    func emptySubject() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        await expectInvalid(validator, try key.token(claims(at: Date(), ["sub": .string("")])))
    }

    @Test("An aud naming an audience the client does not trust beside its own is refused (Core §3.1.3.7, step 3)")
    func untrustedAudience() async throws {
        let key = TestKey("k1")
        let validator = validator(JWKSServer([key.jwk()]))
        let both = JSONValue.array([.string(testClient), .string("someone-else")])
        await expectInvalid(validator, try key.token(claims(at: Date(), ["aud": both, "azp": .string(testClient)])))
    }
}

@Suite("id_token keys: use and alg, and a bounded key-set re-fetch")
struct IDTokenKeyHardeningTests {
    @Test("A key whose use is not sig, or whose alg is not the token's, never verifies")
    func keyUseAndAlgorithm() async throws {
        let now = Date()
        // The same key material as the signer's each time: only the JWK's restrictions differ.
        let key = TestKey("k1")
        for jwk in [
            key.jwk(use: "enc"), key.jwk(alg: "RS256"), key.jwk(use: "sig", alg: "ES384"),
            key.jwk(keyOps: ["encrypt"]),
        ] {
            let validator = validator(JWKSServer([jwk]))
            await expectInvalid(validator, try key.token(claims(at: now)))
        }
        for jwk in [
            key.jwk(), key.jwk(use: "sig"), key.jwk(alg: "ES256"), key.jwk(use: "sig", alg: "ES256"),
            key.jwk(keyOps: ["verify"]),
        ] {
            let validator = validator(JWKSServer([jwk]))
            _ = try await validator.validate(try key.token(claims(at: now)), nonce: "n0nce")
        }
    }

    @Test("Unknown kids re-fetch the key set at most once per interval; a rotated key is found after it")
    func refetchCooldown() async throws {
        let clock = OffsetClock()
        let first = TestKey("k1")
        let server = JWKSServer([first.jwk()])
        let validator = validator(server, clock: clock, keyRefetchInterval: 60)
        await expectInvalid(validator, try first.token(claims(at: clock.now), kid: "unknown-1"))
        #expect(server.fetches == 1)
        for index in 2...5 {
            await expectInvalid(validator, try first.token(claims(at: clock.now), kid: "unknown-\(index)"))
        }
        #expect(server.fetches == 1, "unknown kids within the interval must not fetch the key set again")
        _ = try await validator.validate(try first.token(claims(at: clock.now)), nonce: "n0nce")
        #expect(server.fetches == 1)

        let rotated = TestKey("k2")
        server.publish([rotated.jwk(), first.jwk()])
        await expectInvalid(validator, try rotated.token(claims(at: clock.now)))
        #expect(server.fetches == 1, "still within the interval")
        clock.advance(by: 61)
        _ = try await validator.validate(try rotated.token(claims(at: clock.now)), nonce: "n0nce")
        #expect(server.fetches == 2)

        // An explicit refresh is not held back by the interval.
        try await validator.refreshKeys()
        #expect(server.fetches == 3)
    }

    @Test("The re-fetch interval is configurable")
    func refetchIntervalConfigurable() async throws {
        let key = TestKey("k1")
        let server = JWKSServer([key.jwk()])
        let validator = validator(server, keyRefetchInterval: 0)
        for index in 1...3 {
            await expectInvalid(validator, try key.token(claims(at: Date()), kid: "unknown-\(index)"))
        }
        #expect(server.fetches == 3)
    }

    @Test("Validations that need the key set at the same time share one fetch")
    func singleFlight() async throws {
        let concurrent = 6
        let key = TestKey("k1")
        let gate = Gate(opensAfter: concurrent)
        let server = JWKSServer([key.jwk()], gate: gate)
        let validator = validator(server)
        // The fetch answers only once every validation is waiting for the key set: all of them overlap it.
        await validator.setKeySetWaitObserver { Task { await gate.arrive() } }
        let token = try key.token(claims(at: Date()))
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<concurrent {
                group.addTask { try await validator.validate(token, nonce: "n0nce").subject }
            }
            for try await subject in group { #expect(subject == "user-1") }
        }
        #expect(server.fetches == 1)
    }
}

@Suite("The id_token in a direct code exchange")
struct IDTokenExchangeTests {
    private func login(
        _ emulator: RunningEmulator, validating: Bool, scopes: [String],
        store: InMemoryTokenStore = InMemoryTokenStore()
    ) async throws -> LoginResult {
        let provider = LoginProvider.emulator(
            baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
            version: emulator.emulator.configuration.graphVersion)
        let transport = AsyncHTTPClientTransport()
        let validator = IDTokenValidator(
            issuer: try #require(provider.issuer), clientID: provider.clientID,
            jwksURI: try #require(provider.jwksURI), transport: transport)
        let login = LoginManager(
            provider: provider,
            exchanger: OIDCSessionAuthority(
                provider: provider, transport: transport, idTokenValidator: validating ? validator : nil),
            credentials: CredentialsManager(store: store))
        return try await login.logIn(scopes: scopes, presenter: presenter(.grantAll))
    }

    @Test("Without a validator, the provider's id_token is not kept as if it had been validated")
    func unvalidatedIDTokenDropped() async throws {
        try await withEmulator { emulator in
            let unvalidated = try await login(emulator, validating: false, scopes: ["openid", "public_profile"])
            #expect(try #require(unvalidated.session).idToken == nil)
            let validated = try await login(emulator, validating: true, scopes: ["openid", "public_profile"])
            #expect(try #require(validated.session).idToken != nil)
        }
    }

    @Test("With a validator, a token response without an id_token is login/309; nothing is stored")
    func missingIDTokenRefused() async throws {
        try await withEmulator { emulator in
            let store = InMemoryTokenStore()
            let error = try await #require(throws: MendError.self) {
                try await login(emulator, validating: true, scopes: ["public_profile"], store: store)
            }
            #expect(error.code == .Login.invalidIDToken)
            #expect(error.isSecuritySensitive)
            #expect(try await store.read() == nil)
        }
    }
}
