import Crypto
import Foundation
import HTTPTypes
import JWTKit
import MendClientTesting
import MendCore
import MendEmulator
import MendHTTP
import MendJOSE
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// A token Mend signed, with what a verifier elsewhere needs: the issuer's key set, and the claims to hold it to.
struct MendSignedToken: Sendable {
    var what: String
    var token: String
    /// The JWK Set that verifies it (every key with a `kid`).
    var jwks: JSONValue
    var algorithm: String
    var issuer: String?
    var audience: String?
}

/// Both directions with outside implementations of JOSE: every kind of token Mend signs — mend-server's session
/// tokens (ES256 and EdDSA keys), the emulator's id_tokens, a DPoP proof of MendJOSE, the Apple client secret
/// mend-server makes — verifies in joserfc and in jwt-kit; tokens they sign verify in Mend, directly and through
/// mend-server's surfaces.
@Suite("JOSE interop: joserfc and jwt-kit verify Mend's tokens, Mend verifies theirs")
struct JOSEInteropTests {
    /// One of each kind of token Mend signs, with the public keys a peer is handed.
    static func mendSignedTokens() async throws -> [MendSignedToken] {
        var tokens: [MendSignedToken] = []
        for algorithm in SigningKeyConfiguration.Algorithm.allCases {
            let key = SigningKeyConfiguration.generate(keyID: "interop-\(algorithm.rawValue)", algorithm: algorithm)
            try await TestStack.run(configure: { $0.sessions.signingKeys = [key] }) { stack in
                let access = try #require(try await stack.login()["access_token"]?.stringValue)
                let configuration = stack.server.backend.configuration
                tokens.append(
                    MendSignedToken(
                        what: "session token (\(algorithm.rawValue))", token: access,
                        jwks: try await stack.client.get("/.well-known/jwks.json").json(),
                        algorithm: algorithm.rawValue, issuer: configuration.sessions.issuer,
                        audience: configuration.accessTokenAudience))
                if algorithm == .es256 { tokens += try await Self.emulatorAndClientTokens(stack) }
            }
        }
        return tokens
    }

    /// The emulator's id_tokens (Google, Apple), a DPoP proof of MendJOSE, and mend-server's Apple client secret.
    private static func emulatorAndClientTokens(_ stack: TestStack) async throws -> [MendSignedToken] {
        var tokens: [MendSignedToken] = []
        let issuers = stack.server.backend.configuration.providers.idTokenIssuers
        for (name, client) in [("google", "mend-ios.apps.googleusercontent.com"), ("apple", "com.example.mend")] {
            let issuer = try #require(issuers.first { $0.name == name })
            let keys = await stack.emulator.emulator.handle(
                EmulatorRequest(
                    method: .get, target: issuer.jwksURI.path, baseURL: stack.emulator.baseURL.absoluteString))
            let issued = try await IDTokenLoginTests.nativeToken(stack, name, clientID: client)
            tokens.append(
                MendSignedToken(
                    what: "the emulator's \(name) id_token", token: issued.token, jwks: try #require(keys.json),
                    algorithm: "RS256", issuer: issuer.issuer, audience: client))
        }
        // A DPoP proof: its key is the one in its header.
        let proofKey = try SoftwareSigningKey.generate(.es256)
        let proof = try DPoPProof(
            signer: proofKey, method: "GET", url: stack.server.baseURL.appendingPathComponent("v1/me"),
            accessToken: "an-access-token", nonce: nil, issuedAt: stack.clock.now)
        tokens.append(
            MendSignedToken(
                what: "a DPoP proof", token: proof.jwt,
                jwks: JWKSet.document([JWK.publicJSON(of: proofKey.publicKey, keyID: "proof")]), algorithm: "ES256"))
        // mend-server's Apple client secret, verified with the team key's public half.
        let apple = try #require(issuers.first { $0.name == "apple" })
        let credentials = try #require(apple.appleCredentials)
        let secret = try credentials.clientSecret(
            clientID: "com.example.mend", audience: apple.issuer, now: stack.clock.now)
        let teamKey = try P256.Signing.PrivateKey(pemRepresentation: credentials.privateKeyPEM.value)
        tokens.append(
            MendSignedToken(
                what: "mend-server's Apple client secret", token: secret,
                jwks: JWKSet.document([
                    JWK.publicJSON(of: JWSPublicKey(.p256(teamKey.publicKey)), keyID: credentials.keyID)
                ]),
                algorithm: "ES256", issuer: credentials.teamID, audience: apple.issuer))
        return tokens
    }

    @Test("Every kind of token Mend signs verifies in jwt-kit, its issuer and audience as Mend wrote them")
    func mendTokensInJWTKit() async throws {
        let tokens = try await Self.mendSignedTokens()
        #expect(tokens.count == 6)
        for token in tokens {
            if let issuer = token.issuer, let audience = token.audience {
                let accepted = await JWTKitPeer.accepts(
                    token.token, jwks: token.jwks, issuer: issuer, audience: audience)
                #expect(accepted, "jwt-kit refused \(token.what)")
            } else {
                // A DPoP proof has no iss, sub or aud: only its signature and its own claims.
                struct Proof: JWTPayload {
                    var jti: String
                    var htm: String
                    var htu: String
                    var iat: IssuedAtClaim
                    func verify(using algorithm: some JWTAlgorithm) throws {}
                }
                let keys = try await JWTKeyCollection().add(jwksJSON: token.jwks.jsonText())
                let proof = try await keys.verify(token.token, as: Proof.self)
                #expect(proof.htm == "GET", "\(token.what)")
            }
        }
    }

    @Test(
        "Every kind of token Mend signs verifies in joserfc, with its claims checked",
        .enabled(if: Joserfc.isAvailable, Joserfc.skipReason))
    func mendTokensInJoserfc() async throws {
        let tokens = try await Self.mendSignedTokens()
        let items = tokens.map { token in
            var claims: [String: JSONValue] = [:]
            if let issuer = token.issuer { claims["iss"] = .string(issuer) }
            if let audience = token.audience { claims["aud"] = .string(audience) }
            if token.issuer != nil { claims["sub"] = .bool(true) }
            return Joserfc.verify(token.token, keys: token.jwks, algorithms: [token.algorithm], claims: claims)
        }
        let answers = try await Joserfc.run(items, now: Int(Date().timeIntervalSince1970))
        for (token, answer) in zip(tokens, answers) {
            #expect(answer["ok"] == .bool(true), "joserfc refused \(token.what): \(answer["error"] ?? .null)")
            #expect(answer["header"]?["alg"]?.stringValue == token.algorithm, "\(token.what)")
        }
    }

    /// The claims of an id_token of the provider of one's own, at `now`.
    static func ownClaims(now: Int, nonce: String, subject: String = "peer-user") -> [String: JSONValue] {
        [
            "iss": .string(OwnProvider.issuer), "aud": .string(OwnProvider.client), "sub": .string(subject),
            "iat": .int(now), "exp": .int(now + 600), "nonce": .string(nonce),
        ]
    }

    @Test(
        "Tokens joserfc signs (ES256, EdDSA, RS256) verify in MendJOSE; its id_tokens sign in at mend-server and pass IDTokenValidator",
        .enabled(if: Joserfc.isAvailable, Joserfc.skipReason))
    func joserfcTokensInMend() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let nonces = (0..<3).map { _ in IDTokenLoginTests.freshNonce() }
        let answers = try await Joserfc.run(
            [
                Joserfc.sign("ES256", kid: "py-es", claims: Self.ownClaims(now: now, nonce: nonces[0])),
                Joserfc.sign("EdDSA", kid: "py-ed", claims: Self.ownClaims(now: now, nonce: nonces[1])),
                Joserfc.sign("RS256", kid: "py-rs", claims: Self.ownClaims(now: now, nonce: nonces[2])),
            ], now: now)
        var jwks: [JSONValue] = []
        for (answer, algorithm) in zip(answers, [JWSAlgorithm.es256, .edDSA, .rs256]) {
            let token = try #require(answer["token"]?.stringValue)
            let jwk = try #require(answer["jwk"]?.objectValue)
            let verified = try CompactJWS(token).verified(
                with: try JWK.publicKey(jwk), allowed: JWSAlgorithms([algorithm]))
            #expect(try verified.claims().requiredString("sub") == "peer-user", "\(algorithm)")
            if algorithm != .edDSA { jwks.append(.object(jwk)) }
        }
        // ES256 and RS256 id_tokens: MendLogin's validator, and mend-server's sign-in with a provider of one's own.
        let document = JWKSet.document(jwks)
        let validator = OwnProvider.validator(serving: document)
        for (index, answer) in answers.enumerated() where index != 1 {
            let token = try #require(answer["token"]?.stringValue)
            let claims = try await validator.validate(token, nonce: nonces[index])
            #expect(claims.subject == "peer-user")
        }
        try await OwnProvider.run(jwks: document) { stack, _ in
            for (index, answer) in answers.enumerated() where index != 1 {
                let issued = IDTokenLoginTests.Issued(
                    token: try #require(answer["token"]?.stringValue), nonce: nonces[index])
                let session = try await IDTokenLoginTests.signIn(stack, provider: OwnProvider.name, issued)
                #expect(session["access_token"]?.stringValue != nil)
            }
        }
    }

    /// The claims of a session token of `session`, as mend-server writes them, at the stack's time.
    static func sessionClaims(_ stack: TestStack, _ session: JSONValue) throws -> [String: JSONValue] {
        let configuration = stack.server.backend.configuration
        let time = Int(stack.clock.now.timeIntervalSince1970)
        return [
            "iss": .string(configuration.sessions.issuer), "aud": .string(configuration.accessTokenAudience),
            "sub": try #require(session["user"]?["id"]), "sid": try #require(session["session_id"]),
            "scope": .string("public_profile"), "iat": .int(time), "exp": .int(time + 600), "jti": .string("peer-jti"),
        ]
    }

    /// The emulator's Apple team key, its key id, and the claims of a client secret of its native client.
    static func appleSecretClaims(
        _ stack: TestStack
    ) async throws -> (key: P256.Signing.PrivateKey, keyID: String, claims: [String: JSONValue]) {
        let emulator = stack.emulator
        let client = try #require(
            emulator.emulator.configuration.issuerClients.first { $0.kind == .apple && $0.id == "com.example.mend" })
        let key = try P256.Signing.PrivateKey(pemRepresentation: await emulator.emulator.appleTeamKeyPEM())
        let time = Int(await emulator.emulator.now().timeIntervalSince1970)
        let claims: [String: JSONValue] = [
            "iss": .string(try #require(client.appleTeamID)), "iat": .int(time), "exp": .int(time + 600),
            "aud": .string(emulator.baseURL.absoluteString + "/apple"), "sub": .string(client.id),
        ]
        return (key, try #require(client.appleKeyID), claims)
    }

    /// The emulator's answer to a code exchange of its Apple native client with `secret` as the client secret.
    static func appleTokenStatus(_ stack: TestStack, secret: String) async throws -> HTTPResponse.Status {
        let emulator = stack.emulator
        let native = await emulator.emulator.handle(
            EmulatorRequest(
                method: .post, target: "/_emulator/issuers/apple/native", headers: [.contentType: "application/json"],
                body: Data(#"{"nonce":"n"}"#.utf8), baseURL: emulator.baseURL.absoluteString))
        let code = try #require(native.json?["authorization_code"]?.stringValue)
        return await emulator.emulator.handle(
            EmulatorRequest(
                method: .post, target: "/apple/auth/token",
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: Data(
                    FormEncoding.encode([
                        ("grant_type", "authorization_code"), ("code", code), ("client_id", "com.example.mend"),
                        ("client_secret", secret),
                    ]).utf8),
                baseURL: emulator.baseURL.absoluteString)
        ).status
    }

    @Test(
        "joserfc signs with Mend's keys: its session tokens (ES256, EdDSA) open sessions at mend-server, its Apple client secret is taken by the emulator",
        .enabled(if: Joserfc.isAvailable, Joserfc.skipReason))
    func joserfcWithMendKeys() async throws {
        let es = SigningKeyConfiguration.generate(keyID: "py-session-es", algorithm: .es256)
        let ed = SigningKeyConfiguration.generate(keyID: "py-session-ed", algorithm: .eddsa)
        try await TestStack.run(configure: { $0.sessions.signingKeys = [es, ed] }) { stack in
            let session = try await stack.login()
            let claims = try Self.sessionClaims(stack, session)
            let esKey = try P256.Signing.PrivateKey(
                rawRepresentation: try #require(Base64URL.decode(es.privateKey.value)))
            let edKey = try Curve25519.Signing.PrivateKey(
                rawRepresentation: try #require(Base64URL.decode(ed.privateKey.value)))
            let apple = try await Self.appleSecretClaims(stack)
            let answers = try await Joserfc.run(
                [
                    Joserfc.sign("ES256", kid: es.keyID, claims: claims, privateJWK: Joserfc.privateJWK(esKey)),
                    Joserfc.sign("EdDSA", kid: ed.keyID, claims: claims, privateJWK: Joserfc.privateJWK(edKey)),
                    Joserfc.sign(
                        "ES256", kid: apple.keyID, claims: apple.claims, privateJWK: Joserfc.privateJWK(apple.key)),
                ], now: Int(stack.clock.now.timeIntervalSince1970))
            for answer in answers.prefix(2) {
                let token = try #require(answer["token"]?.stringValue)
                let checked = try await stack.client.get("/v1/session", bearer: token).json()
                #expect(checked["session_id"] == session["session_id"])
            }
            let secret = try #require(answers[2]["token"]?.stringValue)
            #expect(try await Self.appleTokenStatus(stack, secret: secret) == .ok)
        }
    }

    @Test(
        "Tokens jwt-kit signs verify in Mend: ES256 and EdDSA in MendJOSE, an id_token, session tokens at mend-server, an Apple client secret at the emulator"
    )
    func jwtKitTokensInMend() async throws {
        let now = Int(Date().timeIntervalSince1970)
        struct IDClaims: JWTPayload {
            var iss: String
            var aud: String
            var sub: String
            var iat: Int
            var exp: Int
            var nonce: String
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        let nonce = IDTokenLoginTests.freshNonce()
        let claims = IDClaims(
            iss: OwnProvider.issuer, aud: OwnProvider.client, sub: "peer-user", iat: now, exp: now + 600, nonce: nonce)
        let es = P256.Signing.PrivateKey()
        let ed = Curve25519.Signing.PrivateKey()
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: es), kid: "kit-es")
        await keys.add(eddsa: EdDSA.PrivateKey(backing: ed), kid: "kit-ed")
        let esToken = try await keys.sign(claims, kid: "kit-es")
        let edToken = try await keys.sign(claims, kid: "kit-ed")
        _ = try CompactJWS(esToken).verified(with: JWSPublicKey(.p256(es.publicKey)), allowed: .idToken)
        _ = try CompactJWS(edToken).verified(with: JWSPublicKey(.ed25519(ed.publicKey)), allowed: .session)
        let document = JWKSet.document([JWK.publicJSON(of: JWSPublicKey(.p256(es.publicKey)), keyID: "kit-es")])
        #expect(
            try await OwnProvider.validator(serving: document).validate(esToken, nonce: nonce).subject == "peer-user")

        // Session tokens jwt-kit signs with mend-server's own key (its header, its member order) open the session.
        for algorithm in SigningKeyConfiguration.Algorithm.allCases {
            let key = SigningKeyConfiguration.generate(keyID: "kit-\(algorithm.rawValue)", algorithm: algorithm)
            try await TestStack.run(configure: { $0.sessions.signingKeys = [key] }) { stack in
                let session = try await stack.login()
                struct SessionClaims: JWTPayload {
                    var iss: String
                    var aud: String
                    var sub: String
                    var sid: String
                    var scope: String
                    var iat: Int
                    var exp: Int
                    var jti: String
                    func verify(using algorithm: some JWTAlgorithm) throws {}
                }
                let configuration = stack.server.backend.configuration
                let time = Int(stack.clock.now.timeIntervalSince1970)
                let payload = SessionClaims(
                    iss: configuration.sessions.issuer, aud: configuration.accessTokenAudience,
                    sub: try #require(session["user"]?["id"]?.stringValue),
                    sid: try #require(session["session_id"]?.stringValue), scope: "public_profile", iat: time,
                    exp: time + 600, jti: "kit-jti")
                let raw = try #require(Base64URL.decode(key.privateKey.value))
                let signer = JWTKeyCollection()
                switch algorithm {
                case .es256:
                    await signer.add(
                        ecdsa: try ES256PrivateKey(backing: P256.Signing.PrivateKey(rawRepresentation: raw)),
                        kid: JWKIdentifier(string: key.keyID))
                case .eddsa:
                    await signer.add(
                        eddsa: EdDSA.PrivateKey(backing: try Curve25519.Signing.PrivateKey(rawRepresentation: raw)),
                        kid: JWKIdentifier(string: key.keyID))
                }
                let token = try await signer.sign(payload, kid: JWKIdentifier(string: key.keyID))
                let checked = try await stack.client.get("/v1/session", bearer: token).json()
                #expect(checked["session_id"] == session["session_id"], "\(algorithm)")
                guard algorithm == .es256 else { return }
                // An Apple client secret jwt-kit signs with the team key: the emulator takes it.
                let apple = try await Self.appleSecretClaims(stack)
                struct SecretClaims: JWTPayload {
                    var iss: String
                    var iat: Int
                    var exp: Int
                    var aud: String
                    var sub: String
                    func verify(using algorithm: some JWTAlgorithm) throws {}
                }
                let claims = SecretClaims(
                    iss: try #require(apple.claims["iss"]?.stringValue),
                    iat: try #require(apple.claims["iat"]?.intValue),
                    exp: try #require(apple.claims["exp"]?.intValue),
                    aud: try #require(apple.claims["aud"]?.stringValue),
                    sub: try #require(apple.claims["sub"]?.stringValue))
                let team = JWTKeyCollection()
                await team.add(ecdsa: try ES256PrivateKey(backing: apple.key), kid: JWKIdentifier(string: apple.keyID))
                let secret = try await team.sign(claims, kid: JWKIdentifier(string: apple.keyID))
                #expect(try await Self.appleTokenStatus(stack, secret: secret) == .ok)

            }
        }
    }
}

/// A provider of one's own at mend-server: an OpenID Connect issuer the app configures itself (`IDTokenIssuer`), its
/// key set served by a loopback server the test controls.
enum OwnProvider {
    static let name = "acme"
    static let issuer = "https://id.acme.example"
    static let client = "acme-app"

    /// MendLogin's validator for this provider, its key set `jwks` served in memory.
    static func validator(serving jwks: JSONValue) -> IDTokenValidator {
        let transport = InMemoryTransport { _, _ in .json(200, jwks.jsonText()) }
        return IDTokenValidator(
            issuer: issuer, clientID: client, jwksURI: URL(string: issuer + "/jwks")!, transport: transport)
    }

    /// A test stack whose server also accepts this provider's id_tokens, its key set `jwks` served on loopback.
    static func run(
        jwks: JSONValue, emulatorConfiguration: EmulatorConfiguration = EmulatorConfiguration(),
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestStack, LoopbackHTTPServer) async throws -> Void
    ) async throws {
        try await LoopbackHTTPServer.withServer({ _ in .json(200, jwks.jsonText()) }) { keys in
            try await TestStack.run(
                emulatorConfiguration: emulatorConfiguration,
                configure: { configuration in
                    configuration.providers.idTokenIssuers.append(
                        IDTokenIssuer(
                            name: name, issuer: issuer, clientIDs: [client], jwksURI: keys.url("/jwks"),
                            nonceHashing: .plain))
                    configure(&configuration)
                }
            ) { stack in try await body(stack, keys) }
        }
    }
}
