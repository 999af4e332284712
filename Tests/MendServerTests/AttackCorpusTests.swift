import Crypto
import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendEmulator
import MendHTTP
import MendHandMadeTokens
import MendJOSE
import MendLogin
@_spi(MendFuzzing) import MendSignedRequest
import MendTesting
import Testing

@testable import MendServer

/// The attack corpus (issue: "held from outside"): every defect and every classic JWS attack, built by hand, sent
/// through every surface of Mend that verifies a token where it applies, each refused the way that surface refuses;
/// and the same tokens put to joserfc and jwt-kit, whose leniencies are recorded, not failed.
enum AttackCorpus {
    static let attackerURL = "https://attacker.example"

    /// The base64 DER of the attacker's SubjectPublicKeyInfo: what an `x5c` that a lenient verifier trusts carries.
    static func spki(_ key: HandKey) -> String {
        switch key {
        case .es256(let key): key.publicKey.derRepresentation.base64EncodedString()
        case .edDSA(let key):
            Data(
                [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
                    + key.publicKey.rawRepresentation
            ).base64EncodedString()
        }
    }

    /// The draft signed by the trusted key, `nil` when the test does not hold it.
    static func trustedSigned(_ target: AttackTarget, _ change: (inout TokenDraft) -> Void) throws -> String? {
        guard let trusted = target.trusted else { return nil }
        var draft = target.draft()
        change(&draft)
        return try trusted.sign(draft)
    }

    /// The name of the claim whose second copy tells another story, per kind.
    static func shadowed(_ kind: AttackTarget.Kind) -> (String, String) {
        switch kind {
        case .dpop: ("htu", #""\#(attackerURL)/""#)
        case .idToken, .session, .clientSecret: ("sub", #""shadow""#)
        }
    }

    /// Base64url text of `text`, its JSON padded with spaces so that the encoding needs `=` padding, then padded.
    static func paddedPart(_ text: String) -> String {
        var json = text
        while Array(json.utf8).count % 3 == 0 { json += " " }
        let encoded = Base64URL.encode(Array(json.utf8))
        return encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
    }

    static let attacks: [Attack] = [
        // The defects the issue lists.
        Attack(name: "crit naming an unknown extension") { target, _ in
            try trustedSigned(target) { draft in
                draft.header += [("crit", #"["urn:example:unknown"]"#), ("urn:example:unknown", "1")]
            }
        },
        Attack(name: "a claim twice (the second tells another story)") { target, _ in
            try trustedSigned(target) { draft in draft.claims.append(shadowed(target.kind)) }
        },
        Attack(name: "a header member twice (alg)") { target, _ in
            try trustedSigned(target) { draft in draft.header.append(("alg", #""\#(target.trustedAlgorithm)""#)) }
        },
        Attack(name: "= padding on the signature") { target, _ in
            // A 64-byte signature is 86 characters, a 2048-bit RSA one 342: two `=` complete the last quantum.
            try await target.genuine() + "=="
        },
        Attack(name: "= padding on the header") { target, _ in
            guard let trusted = target.trusted else { return nil }
            let draft = target.draft()
            let input = paddedPart(draft.headerText) + "." + Base64URL.encode(Array(draft.claimsText.utf8))
            let signature: [UInt8] =
                switch trusted {
                case .es256(let key): Array(try key.signature(for: Data(input.utf8)).rawRepresentation)
                case .edDSA(let key): Array(try key.signature(for: Data(input.utf8)))
                }
            return input + "." + Base64URL.encode(signature)
        },
        Attack(name: "nbf ten minutes ahead") { target, _ in
            try trustedSigned(target) { draft in draft.setClaim("nbf", String(now() + 600)) }
        },
        Attack(name: "iat a day ahead") { target, _ in
            try trustedSigned(target) { draft in
                draft.setClaim("iat", String(now() + 86_400))
                if draft.has(claim: "exp") { draft.setClaim("exp", String(now() + 86_400 + 300)) }
            }
        },
        Attack(name: "exp as a string") { target, _ in
            try trustedSigned(target) { draft in draft.setClaim("exp", #""\#(now() + 300)""#) }
        },
        Attack(name: "iat as a string") { target, _ in
            try trustedSigned(target) { draft in draft.setClaim("iat", #""\#(now())""#) }
        },
        Attack(name: "an empty sub") { target, _ in
            guard target.kind != .dpop else { return nil }
            return try trustedSigned(target) { draft in draft.setClaim("sub", #""""#) }
        },
        Attack(name: "aud: an untrusted audience beside the right one") { target, _ in
            guard let audience = target.audience else { return nil }
            return try trustedSigned(target) { draft in
                draft.setClaim("aud", #"["\#(audience)","\#(attackerURL)"]"#)
                if target.kind == .idToken { draft.setClaim("azp", #""\#(audience)""#) }
            }
        },
        // The classic attacks.
        Attack(name: "alg: none, no signature") { target, _ in
            var draft = target.draft()
            draft.setHeader("alg", #""none""#)
            return HandMadeJWS.token(header: draft.headerText, claims: draft.claimsText, signature: [])
        },
        Attack(name: "HS256 keyed by the trusted public key") { target, _ in
            var draft = target.draft()
            draft.setHeader("alg", #""HS256""#)
            return HandMadeJWS.hs256(
                header: draft.headerText, claims: draft.claimsText, secret: Array(target.trustedJWK.utf8))
        },
        Attack(name: "RS256/ES256 confusion") { target, attacker in
            if let trusted = target.trusted {
                // The trusted key's own signature, under an algorithm that is not the key's.
                var draft = target.draft()
                draft.setHeader("alg", #""RS256""#)
                return try trusted.sign(draft)
            }
            // An RSA issuer: ES256 under its kid, signed by a key of the attacker's.
            var draft = target.draft()
            draft.setHeader("alg", #""ES256""#)
            return try attacker.sign(draft)
        },
        Attack(name: "an embedded key (jwk in the header)") { target, attacker in
            guard target.kind != .dpop else { return nil }  // a proof's jwk is its key: the binding decides
            var draft = target.draft()
            draft.setHeader("alg", #""\#(attacker.algorithm)""#)
            draft.setHeader("jwk", attacker.publicJWK)
            return try attacker.sign(draft)
        },
        Attack(name: "jku naming the attacker's key set") { target, attacker in
            var draft = target.draft()
            draft.setHeader("alg", #""\#(attacker.algorithm)""#)
            draft.setHeader("jku", #""\#(attackerURL)/jwks.json""#)
            return try attacker.sign(draft)
        },
        Attack(name: "x5u naming the attacker's certificate") { target, attacker in
            var draft = target.draft()
            draft.setHeader("alg", #""\#(attacker.algorithm)""#)
            draft.setHeader("x5u", #""\#(attackerURL)/cert.pem""#)
            return try attacker.sign(draft)
        },
        Attack(name: "x5c carrying the attacker's key") { target, attacker in
            var draft = target.draft()
            draft.setHeader("alg", #""\#(attacker.algorithm)""#)
            draft.setHeader("x5c", #"["\#(spki(attacker))"]"#)
            return try attacker.sign(draft)
        },
        Attack(name: "kid naming no key, the trusted key's signature") { target, _ in
            guard target.kind != .dpop else { return nil }
            return try trustedSigned(target) { draft in draft.setHeader("kid", #""not-a-key-of-this-issuer""#) }
        },
        Attack(name: "no kid, the trusted key's signature") { target, _ in
            guard target.kind != .dpop else { return nil }
            return try trustedSigned(target) { draft in draft.header.removeAll { $0.name == "kid" } }
        },
        Attack(name: "kid path traversal, HS256 keyed by nothing") { target, _ in
            var draft = target.draft()
            draft.setHeader("alg", #""HS256""#)
            draft.setHeader("kid", #""../../../../../../dev/null""#)
            return HandMadeJWS.hs256(header: draft.headerText, claims: draft.claimsText, secret: [])
        },
        Attack(name: "kid SQL injection, HS256 keyed by its result") { target, _ in
            var draft = target.draft()
            draft.setHeader("alg", #""HS256""#)
            draft.setHeader("kid", #""x' UNION SELECT 'key' --""#)
            return HandMadeJWS.hs256(header: draft.headerText, claims: draft.claimsText, secret: Array("key".utf8))
        },
        Attack(name: "a DER signature") { target, _ in
            guard case .es256(let key)? = target.trusted else { return nil }
            let draft = target.draft()
            let input = HandMadeJWS.signingInput(header: draft.headerText, claims: draft.claimsText)
            return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).derRepresentation)
        },
        Attack(name: "a zero signature") { target, _ in
            let draft = target.draft()
            let length = target.trustedAlgorithm == "RS256" ? 256 : 64
            return HandMadeJWS.token(
                header: draft.headerText, claims: draft.claimsText, signature: [UInt8](repeating: 0, count: length))
        },
        Attack(name: "a JWE (five parts)") { target, _ in
            var header = #"{"alg":"RSA-OAEP-256","enc":"A256GCM""#
            if let kid = target.draft().header.first(where: { $0.name == "kid" }) { header += #","kid":\#(kid.value)"# }
            header += "}"
            let random = { (count: Int) in Base64URL.encode((0..<count).map { _ in UInt8.random(in: 0...255) }) }
            return [Base64URL.encode(Array(header.utf8)), random(256), random(12), random(64), random(16)]
                .joined(separator: ".")
        },
        Attack(name: "a nested JWT (cty: JWT, a genuine token as the payload)") { target, attacker in
            var draft = target.draft()
            draft.setHeader("cty", #""JWT""#)
            let signer = target.trusted ?? attacker
            draft.setHeader("alg", #""\#(signer.algorithm)""#)
            let inner = try await target.genuine()
            let input = Base64URL.encode(Array(draft.headerText.utf8)) + "." + Base64URL.encode(Array(inner.utf8))
            let signature: [UInt8] =
                switch signer {
                case .es256(let key): Array(try key.signature(for: Data(input.utf8)).rawRepresentation)
                case .edDSA(let key): Array(try key.signature(for: Data(input.utf8)))
                }
            return input + "." + Base64URL.encode(signature)
        },
        Attack(name: "a token valid at another issuer") { target, _ in try await target.otherIssuer() },
    ]

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// Sends every attack through `send`, after checking that the surface accepts its genuine token; returns each
    /// attack's verdict (`nil`: not applicable), in the corpus's order.
    static func run(
        _ surface: String, _ target: AttackTarget, send: (String) async -> Verdict,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let baseline = await send(try await target.genuine())
        #expect(baseline == .accepted, "\(surface): its genuine token was \(baseline)", sourceLocation: sourceLocation)
        let attacker = HandKey.es256(P256.Signing.PrivateKey())
        var results: [(attack: String, token: String?, verdict: Verdict?)] = []
        for attack in attacks {
            guard let token = try await attack.build(target, attacker) else {
                results.append((attack.name, nil, nil))
                continue
            }
            let verdict = await send(token)
            #expect(verdict == .refused, "\(surface): \(attack.name) was \(verdict)", sourceLocation: sourceLocation)
            results.append((attack.name, token, verdict))
        }
        return results
    }
}

/// The attack corpus against every surface of Mend that verifies a token; the same tokens put to joserfc and jwt-kit.
@Suite("Attack corpus: every attack refused at every surface; the peers' leniencies recorded")
struct AttackCorpusTests {
    /// The key of the provider of one's own (`OwnProvider`), its kid, and its JWK Set.
    static let ownKey = HandKey.es256(P256.Signing.PrivateKey())
    static let ownKeyID = "own-1"
    static var ownJWKS: JSONValue { JWKSet.document([JWK.publicJSON(of: ownKey.publicKey, keyID: ownKeyID)]) }

    /// An id_token of the provider of one's own, for `nonce` (a new `jti` each time: the server spends each token).
    static func ownDraft(nonce: String) -> TokenDraft {
        let now = AttackCorpus.now()
        return TokenDraft(
            header: [("alg", #""ES256""#), ("kid", #""\#(ownKeyID)""#), ("typ", #""JWT""#)],
            claims: [
                ("iss", #""\#(OwnProvider.issuer)""#), ("aud", #""\#(OwnProvider.client)""#), ("sub", #""own-user""#),
                ("iat", String(now)), ("exp", String(now + 600)), ("nonce", #""\#(nonce)""#),
                ("jti", #""\#(UUID().uuidString)""#),
            ])
    }

    /// The provider of one's own as a target; `otherIssuer` a token valid at another issuer.
    static func ownTarget(nonce: String, otherIssuer: @escaping @Sendable () async throws -> String) -> AttackTarget {
        AttackTarget(
            kind: .idToken, draft: { ownDraft(nonce: nonce) }, trusted: ownKey, trustedAlgorithm: "ES256",
            trustedJWK: ownKey.publicJWK, genuine: { try ownKey.sign(ownDraft(nonce: nonce)) },
            otherIssuer: otherIssuer, audience: OwnProvider.client)
    }

    /// A token of another issuer with its own key and kid: valid there, for the same client.
    static func otherIssuersToken(nonce: String) throws -> String {
        var draft = ownDraft(nonce: nonce)
        draft.setHeader("kid", #""other-1""#)
        draft.setClaim("iss", #""https://id.other.example""#)
        return try HandKey.es256(P256.Signing.PrivateKey()).sign(draft)
    }

    /// The verdict of a call that refuses with a `MendError`, `refused` when `isRefusal` says it is the surface's.
    static func verdict(_ call: () async throws -> Void, isRefusal: (MendError) -> Bool) async -> Verdict {
        do {
            try await call()
            return .accepted
        } catch let error as MendError {
            return isRefusal(error) ? .refused : .other("\(error.code) \(error.httpStatus.map(String.init) ?? "-")")
        } catch {
            return .other("\(type(of: error))")
        }
    }

    @Test(
        "At mend-server (sessions, id_token sign-in with four issuers, DPoP) and the emulator (DPoP, Apple client secret)"
    )
    func serverAndEmulator() async throws {
        var emulatorConfiguration = EmulatorConfiguration()
        emulatorConfiguration.issuerDPoP = true
        let sessionKey = SigningKeyConfiguration.generate(keyID: "corpus-es", algorithm: .es256)
        // A second key, EdDSA: the server verifies its tokens as those of a key being rotated out.
        let edKey = SigningKeyConfiguration.generate(keyID: "corpus-ed", algorithm: .eddsa)
        var matrix: [String: [(attack: String, token: String?, verdict: Verdict?)]] = [:]
        try await OwnProvider.run(
            jwks: Self.ownJWKS, emulatorConfiguration: emulatorConfiguration,
            configure: { $0.sessions.signingKeys = [sessionKey, edKey] }
        ) { stack, _ in
            matrix["session (GET /v1/session), ES256 key"] = try await Self.sessions(stack, sessionKey)
            matrix["session (GET /v1/session), EdDSA key"] = try await Self.sessions(stack, edKey)
            matrix["id_token sign-in, provider of one's own"] = try await Self.ownSignIn(stack)
            matrix["id_token sign-in, the emulator's Google"] = try await Self.emulatedIssuerSignIn(
                stack, "google", otherProvider: "apple")
            matrix["id_token sign-in, the emulator's Apple"] = try await Self.emulatedIssuerSignIn(
                stack, "apple", otherProvider: "facebook")
            matrix["id_token sign-in, the emulator's Limited Login"] = try await Self.emulatedIssuerSignIn(
                stack, "facebook", otherProvider: "google")
            matrix["DPoP at mend-server (GET /v1/me)"] = try await Self.serverDPoP(stack, withNonce: false)
            matrix["DPoP at mend-server, with its nonce"] = try await Self.serverDPoP(stack, withNonce: true)
            matrix["DPoP at the emulator (Google's token endpoint)"] = try await Self.emulatorDPoP(
                stack, withNonce: false)
            matrix["DPoP at the emulator, with its nonce"] = try await Self.emulatorDPoP(stack, withNonce: true)
            matrix["Apple client secret at the emulator"] = try await Self.appleClientSecret(stack)
        }
        Self.show(matrix)
        // The cells that do not apply are these, and no others: an attack that stops applying somewhere is seen.
        #expect(Set(matrix.keys) == Set(Self.notApplicable.keys))
        for (surface, results) in matrix {
            let skipped = Set(results.filter { $0.verdict == nil }.map(\.attack))
            #expect(skipped == Self.notApplicable[surface], "\(surface)")
        }
    }

    /// The matrix's empty cells, by surface, and why. A DPoP proof names no subject or audience and no `kid`: its key
    /// is its `jwk` (an embedded key is the proof's own; the session's binding refuses another). The emulator's
    /// Google issuer signs with an RSA key the test does not hold: what needs its signature over changed content does
    /// not apply there. An Ed25519 signature has no DER form.
    static let notApplicable: [String: Set<String>] = {
        let dpop: Set<String> = [
            "an empty sub", "aud: an untrusted audience beside the right one", "an embedded key (jwk in the header)",
            "kid naming no key, the trusted key's signature", "no kid, the trusted key's signature",
        ]
        let keyOfTheIssuer: Set<String> = [
            "crit naming an unknown extension", "a claim twice (the second tells another story)",
            "a header member twice (alg)", "= padding on the header", "nbf ten minutes ahead", "iat a day ahead",
            "exp as a string", "iat as a string", "an empty sub", "aud: an untrusted audience beside the right one",
            "kid naming no key, the trusted key's signature", "no kid, the trusted key's signature", "a DER signature",
        ]
        return [
            "session (GET /v1/session), ES256 key": [], "session (GET /v1/session), EdDSA key": ["a DER signature"],
            "id_token sign-in, provider of one's own": [], "id_token sign-in, the emulator's Google": keyOfTheIssuer,
            "id_token sign-in, the emulator's Apple": keyOfTheIssuer,
            "id_token sign-in, the emulator's Limited Login": keyOfTheIssuer,
            "DPoP at mend-server (GET /v1/me)": dpop, "DPoP at mend-server, with its nonce": dpop,
            "DPoP at the emulator (Google's token endpoint)": dpop, "DPoP at the emulator, with its nonce": dpop,
            "Apple client secret at the emulator": [],
        ]
    }()

    /// Prints the matrix (attack names and verdicts, no tokens) when `MEND_ATTACK_MATRIX` is set.
    static func show(_ matrix: [String: [(attack: String, token: String?, verdict: Verdict?)]]) {
        guard ProcessInfo.processInfo.environment["MEND_ATTACK_MATRIX"] != nil else { return }
        for (surface, results) in matrix.sorted(by: { $0.key < $1.key }) {
            print("== \(surface)")
            for result in results { print("   \(result.attack): \(result.verdict?.description ?? "n/a")") }
        }
    }

    static func sessions(
        _ stack: TestStack, _ key: SigningKeyConfiguration
    ) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let raw = try #require(Base64URL.decode(key.privateKey.value))
        let trusted: HandKey =
            switch key.algorithm {
            case .es256: .es256(try P256.Signing.PrivateKey(rawRepresentation: raw))
            case .eddsa: .edDSA(try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
            }
        let session = try await stack.login()
        let issuer = stack.server.backend.configuration.sessions.issuer
        let audience = stack.server.backend.configuration.accessTokenAudience
        let user = try #require(session["user"]?["id"]?.stringValue)
        let sid = try #require(session["session_id"]?.stringValue)
        let draft: @Sendable () -> TokenDraft = {
            let now = AttackCorpus.now()
            return TokenDraft(
                header: [("alg", #""\#(trusted.algorithm)""#), ("kid", #""\#(key.keyID)""#), ("typ", #""JWT""#)],
                claims: [
                    ("iss", #""\#(issuer)""#), ("aud", #""\#(audience)""#), ("sub", #""\#(user)""#),
                    ("sid", #""\#(sid)""#), ("scope", #""public_profile""#), ("iat", String(now)),
                    ("exp", String(now + 600)), ("jti", #""j1""#),
                ])
        }
        let target = AttackTarget(
            kind: .session, draft: draft, trusted: trusted, trustedAlgorithm: trusted.algorithm,
            trustedJWK: trusted.publicJWK,
            genuine: { try trusted.sign(draft()) },
            // Another deployment's key under the same kid.
            otherIssuer: {
                switch trusted {
                case .es256: try HandKey.es256(P256.Signing.PrivateKey()).sign(draft())
                case .edDSA: try HandKey.edDSA(Curve25519.Signing.PrivateKey()).sign(draft())
                }
            },
            audience: audience)
        return try await AttackCorpus.run("session (\(key.algorithm.rawValue))", target) { token in
            await Self.verdict({ _ = try await stack.client.get("/v1/session", bearer: token) }) {
                $0.isSession(.Session.accessTokenInvalid)
            }
        }
    }

    static func ownSignIn(_ stack: TestStack) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let nonce = IDTokenLoginTests.freshNonce()
        let target = Self.ownTarget(nonce: nonce) { try await Self.emulatorToken(stack, "google", nonce: nonce) }
        return try await AttackCorpus.run("id_token sign-in, own provider", target) { token in
            await Self.verdict({
                _ = try await IDTokenLoginTests.signIn(
                    stack, provider: OwnProvider.name, IDTokenLoginTests.Issued(token: token, nonce: nonce))
            }) { Self.isIDTokenRefusal($0, token) }
        }
    }

    /// mend-server's refusal of an id_token: login/309 (401), or — for a token that is not three base64url parts —
    /// the request schema's 400 before any verifier reads it.
    static func isIDTokenRefusal(_ error: MendError, _ token: String) -> Bool {
        if error.code == .Login.invalidIDToken && error.httpStatus == 401 { return true }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let compact = parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(alphabet.contains) }
        return !compact && error.code == .REST.badRequest && error.httpStatus == 400
    }

    /// A genuine id_token of the emulator's issuer `provider` (`google`, `apple`, `facebook`: Limited Login) for the
    /// raw nonce `nonce`, carried as that provider carries it (Apple and Limited Login: its SHA-256, in hex).
    static func emulatorToken(_ stack: TestStack, _ provider: String, nonce: String) async throws -> String {
        let carried = provider == "google" ? nonce : IDTokenLoginTests.hash(nonce)
        if provider == "facebook" {
            return try await stack.emulator.emulator.limitedLoginToken(
                appID: nil, userID: nil, nonce: carried, baseURL: stack.emulator.baseURL.absoluteString)
        }
        let answer = await stack.emulator.emulator.handle(
            EmulatorRequest(
                method: .post, target: "/_emulator/issuers/\(provider)/native",
                headers: [.contentType: "application/json"], body: Data(#"{"nonce":"\#(carried)"}"#.utf8),
                baseURL: stack.emulator.baseURL.absoluteString))
        return try #require(answer.json?["id_token"]?.stringValue)
    }

    /// id_token sign-in at mend-server with the emulator's issuer `provider`; a token valid at another of its issuers
    /// (`otherProvider`) is the one valid elsewhere.
    static func emulatedIssuerSignIn(
        _ stack: TestStack, _ provider: String, otherProvider: String
    ) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let nonce = IDTokenLoginTests.freshNonce()
        let sample = try TokenDraft(token: try await Self.emulatorToken(stack, provider, nonce: nonce))
        let issuer = try #require(
            stack.server.backend.configuration.providers.idTokenIssuers.first { $0.name == provider })
        let keys = await stack.emulator.emulator.handle(
            EmulatorRequest(method: .get, target: issuer.jwksURI.path, baseURL: stack.emulator.baseURL.absoluteString))
        let jwk = try #require(keys.json?["keys"]?.arrayValue?.first)
        let audience = String(try #require(sample.claims.first { $0.name == "aud" }).value.dropFirst().dropLast())
        let target = AttackTarget(
            kind: .idToken, draft: { sample }, trusted: nil, trustedAlgorithm: "RS256", trustedJWK: jwk.jsonText(),
            genuine: { try await Self.emulatorToken(stack, provider, nonce: nonce) },
            otherIssuer: { try await Self.emulatorToken(stack, otherProvider, nonce: nonce) }, audience: audience)
        return try await AttackCorpus.run("id_token sign-in, emulator's \(provider)", target) { token in
            await Self.verdict({
                _ = try await IDTokenLoginTests.signIn(
                    stack, provider: provider, IDTokenLoginTests.Issued(token: token, nonce: nonce))
            }) { Self.isIDTokenRefusal($0, token) }
        }
    }

    /// A DPoP proof's draft: `key`'s jwk, a new jti, `htm` and `htu`, and `ath` of `accessToken`.
    static func proofDraft(
        _ key: HandKey, method: String, url: String, accessToken: String?, nonce: String? = nil
    ) -> TokenDraft {
        var claims: [(name: String, value: String)] = [
            ("jti", #""\#(UUID().uuidString)""#), ("htm", #""\#(method)""#), ("htu", #""\#(url)""#),
            ("iat", String(AttackCorpus.now())),
        ]
        if let accessToken { claims.append(("ath", #""\#(DPoPProof.ath(accessToken))""#)) }
        if let nonce { claims.append(("nonce", #""\#(nonce)""#)) }
        return TokenDraft(
            header: [("typ", #""dpop+jwt""#), ("alg", #""ES256""#), ("jwk", key.publicJWK)], claims: claims)
    }

    /// DPoP proofs at mend-server for a bound session. Without a nonce, a proof outside the time window may be
    /// answered with a nonce challenge (RFC 9449 §11.1: `use_dpop_nonce`), a refusal too; `withNonce` puts the
    /// server's nonce in every proof, so that each attack meets the proof check itself.
    static func serverDPoP(
        _ stack: TestStack, withNonce: Bool
    ) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let client = try ProvingClient(stack.server.baseURL)
        let access = try #require(try await client.login(stack.emulator)["access_token"]?.stringValue)
        let trusted = HandKey.es256(try P256.Signing.PrivateKey(rawRepresentation: client.key.material))
        let url = client.publicURL.absoluteString + "/v1/me"
        var nonce: String? = nil
        if withNonce {
            // A proof an hour old: the challenge carries the nonce.
            var old = Self.proofDraft(trusted, method: "GET", url: url, accessToken: access)
            old.setClaim("iat", String(AttackCorpus.now() - 3600))
            let proof = try trusted.sign(old)
            let challenge = await stack.client.failure { try await client.get("/v1/me", token: access, proof: proof) }
            nonce = try #require(challenge?.header("DPoP-Nonce"))
        }
        let draft: @Sendable () -> TokenDraft = { [nonce] in
            Self.proofDraft(trusted, method: "GET", url: url, accessToken: access, nonce: nonce)
        }
        let emulatorToken = stack.emulator.url("/google/token").absoluteString
        let target = AttackTarget(
            kind: .dpop, draft: draft, trusted: trusted, trustedAlgorithm: "ES256", trustedJWK: trusted.publicJWK,
            genuine: { try trusted.sign(draft()) },
            // The same key's proof for another server: the emulator's token endpoint.
            otherIssuer: { [nonce] in
                try trusted.sign(
                    Self.proofDraft(trusted, method: "POST", url: emulatorToken, accessToken: nil, nonce: nonce))
            }, audience: nil)
        return try await AttackCorpus.run("DPoP at mend-server", target) { token in
            await Self.verdict({ _ = try await client.get("/v1/me", token: access, proof: token) }) {
                $0.isDPoPRefusal() || (!withNonce && $0.isDPoPRefusal("use_dpop_nonce"))
            }
        }
    }

    /// DPoP proofs at the emulator's Google token endpoint (any key: no session is bound there); as at mend-server,
    /// with and without the issuer's nonce.
    static func emulatorDPoP(
        _ stack: TestStack, withNonce: Bool
    ) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let trusted = HandKey.es256(P256.Signing.PrivateKey())
        let url = stack.emulator.url("/google/token").absoluteString
        func send(_ proof: String) async -> EmulatorResponse {
            // The proof is checked before the grant: a proof that passes meets an unknown refresh token.
            await stack.emulator.emulator.handle(
                EmulatorRequest(
                    method: .post, target: "/google/token",
                    headers: [.contentType: "application/x-www-form-urlencoded", .dpop: proof],
                    body: Data(
                        FormEncoding.encode([
                            ("grant_type", "refresh_token"), ("refresh_token", "not-a-refresh-token"),
                            ("client_id", "mend-ios.apps.googleusercontent.com"),
                        ]).utf8),
                    baseURL: stack.emulator.baseURL.absoluteString))
        }
        var nonce: String? = nil
        if withNonce {
            var old = Self.proofDraft(trusted, method: "POST", url: url, accessToken: nil)
            old.setClaim("iat", String(AttackCorpus.now() - 3600))
            nonce = try #require(await send(try trusted.sign(old)).headers[.dpopNonce])
        }
        let draft: @Sendable () -> TokenDraft = { [nonce] in
            Self.proofDraft(trusted, method: "POST", url: url, accessToken: nil, nonce: nonce)
        }
        let serverURL = stack.server.baseURL.absoluteString + "/v1/me"
        let target = AttackTarget(
            kind: .dpop, draft: draft, trusted: trusted, trustedAlgorithm: "ES256", trustedJWK: trusted.publicJWK,
            genuine: { try trusted.sign(draft()) },
            // The same key's proof for mend-server's GET /v1/me.
            otherIssuer: { [nonce] in
                try trusted.sign(
                    Self.proofDraft(trusted, method: "GET", url: serverURL, accessToken: "access", nonce: nonce))
            }, audience: nil)
        return try await AttackCorpus.run("DPoP at the emulator", target) { proof in
            let answer = await send(proof)
            switch answer.json?["error"]?.stringValue {
            case "invalid_dpop_proof" where answer.status == .badRequest: return .refused
            case "use_dpop_nonce" where answer.status == .badRequest && !withNonce: return .refused
            case "invalid_grant": return .accepted
            default: return .other("\(answer.status.code) \(answer.json?["error"]?.stringValue ?? "-")")
            }
        }
    }

    static func appleClientSecret(
        _ stack: TestStack
    ) async throws -> [(attack: String, token: String?, verdict: Verdict?)] {
        let emulator = stack.emulator
        let client = try #require(
            emulator.emulator.configuration.issuerClients.first { $0.kind == .apple && $0.id == "com.example.mend" })
        let teamID = try #require(client.appleTeamID)
        let keyID = try #require(client.appleKeyID)
        let trusted = HandKey.es256(
            try P256.Signing.PrivateKey(pemRepresentation: await emulator.emulator.appleTeamKeyPEM()))
        let audience = emulator.baseURL.absoluteString + "/apple"
        let draft: @Sendable () -> TokenDraft = {
            let now = AttackCorpus.now()
            return TokenDraft(
                header: [("alg", #""ES256""#), ("kid", #""\#(keyID)""#)],
                claims: [
                    ("iss", #""\#(teamID)""#), ("iat", String(now)), ("exp", String(now + 3600)),
                    ("aud", #""\#(audience)""#), ("sub", #""\#(client.id)""#),
                ])
        }
        let target = AttackTarget(
            kind: .clientSecret, draft: draft, trusted: trusted, trustedAlgorithm: "ES256",
            trustedJWK: trusted.publicJWK, genuine: { try trusted.sign(draft()) },
            // Another team's secret, signed by its own key.
            otherIssuer: {
                var other = draft()
                other.setClaim("iss", #""OTHERTEAM1""#)
                return try HandKey.es256(P256.Signing.PrivateKey()).sign(other)
            }, audience: audience)
        return try await AttackCorpus.run("Apple client secret at the emulator", target) { secret in
            let native = await emulator.emulator.handle(
                EmulatorRequest(
                    method: .post, target: "/_emulator/issuers/apple/native",
                    headers: [.contentType: "application/json"], body: Data(#"{"nonce":"n"}"#.utf8),
                    baseURL: emulator.baseURL.absoluteString))
            let code = native.json?["authorization_code"]?.stringValue ?? ""
            let answer = await emulator.emulator.handle(
                EmulatorRequest(
                    method: .post, target: "/apple/auth/token",
                    headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: Data(
                        FormEncoding.encode([
                            ("grant_type", "authorization_code"), ("code", code), ("client_id", client.id),
                            ("client_secret", secret),
                        ]).utf8),
                    baseURL: emulator.baseURL.absoluteString))
            if answer.status == .ok { return .accepted }
            return answer.json?["error"] == .string("invalid_client") ? .refused : .other("\(answer.status.code)")
        }
    }

    /// Which attacks each peer accepts, as a careful user verifies with it (`Joserfc`, `JWTKitPeer`): recorded, not
    /// failed. A change in either direction fails the test, so that a peer's change of mind is seen.
    ///
    /// jwt-kit: `crit` is not read; `=` padding is decoded; a member twice is read (Foundation's decoder); the header's
    /// `alg` is not held to the key's (the key's algorithm verifies); an unknown `kid`, or none, falls back to the
    /// collection's default key; `iat`, `sub` and `aud` beyond "includes" are the caller's. joserfc: a member twice
    /// is read (Python's `json`); without a `kid` the one key of a set is used; `aud` is checked for inclusion only.
    static let peerLeniency: [String: (joserfc: Bool, jwtKit: Bool)] = [
        "crit naming an unknown extension": (joserfc: false, jwtKit: true),
        "a claim twice (the second tells another story)": (joserfc: true, jwtKit: true),
        "a header member twice (alg)": (joserfc: true, jwtKit: true),
        "= padding on the signature": (joserfc: false, jwtKit: true),
        "= padding on the header": (joserfc: false, jwtKit: true),
        "iat a day ahead": (joserfc: false, jwtKit: true),
        "an empty sub": (joserfc: false, jwtKit: true),
        "aud: an untrusted audience beside the right one": (joserfc: true, jwtKit: true),
        "RS256/ES256 confusion": (joserfc: false, jwtKit: true),
        "kid naming no key, the trusted key's signature": (joserfc: false, jwtKit: true),
        "no kid, the trusted key's signature": (joserfc: true, jwtKit: true),
    ]

    @Test("In MendLogin's IDTokenValidator; joserfc's and jwt-kit's answers to the same tokens recorded")
    func validatorAndPeers() async throws {
        let nonce = "n0nce"
        let target = Self.ownTarget(nonce: nonce) { try Self.otherIssuersToken(nonce: nonce) }
        let validator = OwnProvider.validator(serving: Self.ownJWKS)
        let results = try await AttackCorpus.run("IDTokenValidator", target) { token in
            await Self.verdict({ _ = try await validator.validate(token, nonce: nonce) }) {
                $0.code == .Login.invalidIDToken && $0.isSecuritySensitive
            }
        }
        let tried = results.compactMap { result in result.token.map { (result.attack, $0) } }
        // The genuine token first: each peer must accept it, or its refusals below mean nothing.
        let genuine = try await target.genuine()
        var jwtKit: [String: Bool] = [:]
        for (attack, token) in [("genuine", genuine)] + tried {
            jwtKit[attack] = await JWTKitPeer.accepts(
                token, jwks: Self.ownJWKS, issuer: OwnProvider.issuer, audience: OwnProvider.client)
        }
        #expect(jwtKit["genuine"] == true)
        var joserfc: [String: Bool] = [:]
        if Joserfc.isAvailable {
            let items = ([("genuine", genuine)] + tried).map { _, token in
                Joserfc.verify(
                    token, keys: Self.ownJWKS, algorithms: ["RS256", "ES256"],
                    claims: [
                        "iss": .string(OwnProvider.issuer), "aud": .string(OwnProvider.client), "sub": .bool(true),
                    ])
            }
            let answers = try await Joserfc.run(items, now: AttackCorpus.now())
            for ((attack, _), answer) in zip([("genuine", genuine)] + tried, answers) {
                joserfc[attack] = answer["ok"] == .bool(true)
            }
            #expect(joserfc["genuine"] == true)
        }
        if ProcessInfo.processInfo.environment["MEND_ATTACK_MATRIX"] != nil {
            for (attack, _) in tried {
                print(
                    "peer \(attack): joserfc \(joserfc[attack].map { $0 ? "ACCEPTS" : "refuses" } ?? "-"), jwt-kit \(jwtKit[attack] == true ? "ACCEPTS" : "refuses")"
                )
            }
        }
        for (attack, _) in tried {
            let expected = Self.peerLeniency[attack] ?? (joserfc: false, jwtKit: false)
            #expect(jwtKit[attack] == expected.jwtKit, "jwt-kit's answer to \(attack) changed")
            if let answer = joserfc[attack] {
                #expect(answer == expected.joserfc, "joserfc's answer to \(attack) changed")
            }
        }
    }
}
