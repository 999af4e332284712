import Crypto
import Foundation
import MendCore
import Testing

@testable import MendJOSE

/// MendJOSE's rules, one by one, on tokens built here with keys made here.
@Suite("Compact JWS: the shape, the header, the signature")
struct CompactJWSTests {
    private static let key = P256.Signing.PrivateKey()
    private static var publicKey: JWSPublicKey { JWSPublicKey(.p256(key.publicKey)) }

    /// A token of raw header and claims text, signed by ``key``; `signature` replaces the signature's bytes.
    private static func token(
        header: String = #"{"alg":"ES256","typ":"JWT"}"#, claims: String = #"{"sub":"a"}"#,
        signature: ((Data) -> Data)? = nil
    ) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        var raw = try key.signature(for: Data(input.utf8)).rawRepresentation
        if let signature { raw = signature(raw) }
        return input + "." + Base64URL.encode(raw)
    }

    private static func refusal(_ token: String, allowed: JWSAlgorithms = .dpop) -> JOSEError? {
        do {
            _ = try CompactJWS(token).verified(with: publicKey, allowed: allowed)
            return nil
        } catch {
            return error
        }
    }

    @Test("A well-formed ES256 token verifies, and its claims read")
    func wellFormed() throws {
        let verified = try CompactJWS(try Self.token()).verified(with: Self.publicKey, allowed: .dpop)
        #expect(try verified.claims().requiredString("sub") == "a")
        #expect(verified.header.type == "JWT")
    }

    @Test("Not three canonical parts: refused as malformed")
    func shape() throws {
        let good = try Self.token()
        let parts = good.split(separator: ".").map(String.init)
        for bad in [
            "", ".", "..", "...", parts[0] + "." + parts[1], good + ".", good + ".x", "." + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + ".", good + "=", good + "==", parts[0] + "=." + parts[1] + "." + parts[2],
            // `+` and `/` are base64's, not base64url's.
            parts[0] + "." + parts[1] + ".+" + parts[2].dropFirst(),
            parts[0] + "." + parts[1] + "./" + parts[2].dropFirst(),
            String(repeating: "a", count: 20_000),
            // JWE: five parts.
            good + "." + parts[1] + "." + parts[2],
        ] {
            #expect(Self.refusal(bad)?.kind == .malformed, "\(bad.prefix(60))")
        }
    }

    @Test("A base64url part with non-zero trailing bits is a second spelling of the same bytes: refused")
    func secondSpelling() throws {
        let good = try Self.token()
        // A 64-byte signature is 86 characters, 516 bits: the last character carries 2 bits of the signature and 4 zero
        // bits. Setting its lowest bit spells the same 64 bytes another way.
        var characters = Array(good)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let value = try #require(alphabet.firstIndex(of: characters[characters.count - 1]))
        #expect(value % 16 == 0)
        characters[characters.count - 1] = alphabet[value + 1]
        #expect(Self.refusal(String(characters))?.kind == .malformed)
    }

    @Test("Headers: alg none, HMAC, an algorithm not allowed, crit, b64, a member twice, kid not a string")
    func headers() throws {
        let cases: [(String, JOSEError.Kind)] = [
            (#"{"alg":"none"}"#, .header), (#"{"alg":"HS256"}"#, .header), (#"{"alg":"es256"}"#, .header),
            (#"{"alg":"ES256","crit":["exp"],"exp":1}"#, .header), (#"{"alg":"ES256","crit":[]}"#, .header),
            (#"{"alg":"ES256","b64":false,"crit":["b64"]}"#, .header), (#"{"alg":"ES256","b64":true}"#, .header),
            (#"{"alg":"ES256","alg":"ES256"}"#, .malformed), (#"{"alg":"ES256","kid":1}"#, .header),
            (#"{"typ":"JWT"}"#, .header), (#"["ES256"]"#, .malformed), (#"{"alg":"ES256"} x"#, .malformed),
        ]
        for (header, kind) in cases {
            #expect(Self.refusal(try Self.token(header: header))?.kind == kind, "\(header)")
        }
        // Allowed by the token, not by the use: the verifier's allow-list decides.
        #expect(Self.refusal(try Self.token(), allowed: JWSAlgorithms([.edDSA]))?.kind == .header)
        // The header's algorithm is not the key's: an RS256 header against a P-256 key.
        #expect(Self.refusal(try Self.token(header: #"{"alg":"RS256"}"#), allowed: .idToken)?.kind == .key)
    }

    @Test("ES256 signatures only as 64-byte r ‖ s with 0 < r, s < n: DER, zero and out-of-range scalars refused")
    func ecdsaSignatureForm() throws {
        let order = Data(ECDSAScalars.order)
        let zero = Data(count: 32)
        var orderPlusOne = ECDSAScalars.order
        orderPlusOne[31] += 1
        let mutations: [(String, (Data) -> Data)] = [
            ("DER", { try! P256.Signing.ECDSASignature(rawRepresentation: $0).derRepresentation }),
            ("r zero", { zero + $0.suffix(32) }), ("s zero", { $0.prefix(32) + zero }),
            ("both zero", { _ in zero + zero }),
            ("r = n", { order + $0.suffix(32) }), ("s = n", { $0.prefix(32) + order }),
            ("s = n + 1", { $0.prefix(32) + Data(orderPlusOne) }), ("short", { $0.prefix(63) }),
            ("long", { $0 + Data([0]) }),
        ]
        for (name, mutate) in mutations {
            #expect(Self.refusal(try Self.token(signature: mutate))?.kind == .signature, "\(name)")
        }
        // s and n − s both verify with ECDSA; JWS has no rule against the high one, and neither has Mend.
        #expect(ECDSAScalars.inRange(Array(order.prefix(31)) + [0x50] + Array(order.prefix(32))) == false)
    }

    @Test("A key of another type never verifies a token of another algorithm")
    func keyConfusion() throws {
        let edKey = Curve25519.Signing.PrivateKey()
        let input = Base64URL.encode(Array(#"{"alg":"EdDSA"}"#.utf8)) + "." + Base64URL.encode(Array("{}".utf8))
        let token = input + "." + Base64URL.encode(try edKey.signature(for: Data(input.utf8)))
        let jws = try CompactJWS(token)
        #expect(throws: JOSEError.self) { try jws.verified(with: Self.publicKey, allowed: .session) }
        _ = try jws.verified(with: JWSPublicKey(.ed25519(edKey.publicKey)), allowed: .session)
    }

    @Test("What MendJOSE signs it verifies, with the header it says it writes")
    func signAndVerify() throws {
        for algorithm in [JWSAlgorithm.es256, .edDSA, .rs256] {
            let key = try SoftwareSigningKey.generate(algorithm)
            let token = try JWSSigner.sign(claims: ["sub": .string("u")], with: key, keyID: "k", type: "JWT")
            #expect(token.hasPrefix(JWSSigner.headerSegment(algorithm: algorithm, keyID: "k", type: "JWT") + "."))
            let verified = try CompactJWS(token).verified(with: key.publicKey, allowed: JWSAlgorithms([algorithm]))
            #expect(verified.header.keyID == "k")
            #expect(try verified.claims()["sub"] == .string("u"))
        }
    }
}

@Suite("JWK: one reader, one writer, the RFC 7638 thumbprint")
struct JWKTests {
    @Test("A public JWK written is read back to the same key, for each type")
    func roundTrip() throws {
        for algorithm in [JWSAlgorithm.es256, .edDSA, .rs256] {
            let key = try SoftwareSigningKey.generate(algorithm).publicKey
            guard case .object(let members) = JWK.publicJSON(of: key, keyID: "k") else {
                Issue.record("not an object")
                continue
            }
            let read = try JWK.publicKey(members)
            #expect(read.keyID == "k")
            #expect(read.algorithm == algorithm)
            #expect(JWK.thumbprint(of: read) == JWK.thumbprint(of: key))
        }
    }

    @Test("Private members, other types and curves, use, key_ops and alg that do not fit: refused")
    func refusals() throws {
        let key = try SoftwareSigningKey.generate(.es256).publicKey
        guard case .object(let members) = JWK.publicJSON(of: key, keyID: "k") else { return }
        func with(_ changes: [String: JSONValue?]) -> [String: JSONValue] {
            var changed = members
            for (name, value) in changes { changed[name] = value }
            return changed
        }
        let x = members["x"]?.stringValue ?? ""
        for bad in [
            with(["d": .string(x)]), with(["crv": .string("P-384")]), with(["kty": .string("RSA")]),
            with(["use": .string("enc")]), with(["key_ops": .array([.string("sign")])]),
            with(["alg": .string("RS256")]),
            with(["x": .string(x + "=")]), with(["x": .string(String(x.dropLast()))]), with(["y": nil]),
            with(["kid": .int(1)]), with(["k": .string("c2VjcmV0")]),
            // The point (x, x) is not on the curve.
            with(["y": .string(x)]),
        ] {
            #expect(throws: JOSEError.self) { try JWK.publicKey(bad) }
        }
    }

    @Test("A JWK Set keeps the usable keys with a kid and drops a kid used twice")
    func keySet() throws {
        let a = JWK.publicJSON(of: try SoftwareSigningKey.generate(.es256).publicKey, keyID: "a")
        let b = JWK.publicJSON(of: try SoftwareSigningKey.generate(.edDSA).publicKey, keyID: "b")
        let b2 = JWK.publicJSON(of: try SoftwareSigningKey.generate(.edDSA).publicKey, keyID: "b")
        let noKid = JWK.publicJSON(of: try SoftwareSigningKey.generate(.es256).publicKey)
        let set = try JWKSet(document: Array(JWKSet.document([a, b, b2, noKid, .string("x")]).jsonText().utf8))
        #expect(Set(set.keys.keys) == ["a"])
        #expect(throws: JOSEError.self) { try JWKSet(document: Array(#"{"keys":[],"keys":[]}"#.utf8)) }
    }
}

@Suite("JWT claims and times: numbers only, one rule with its skew")
struct JWTClaimsTests {
    private static func claims(_ text: String) throws -> JWTClaims {
        JWTClaims(try #require(JSONValue.parseObject(Array(text.utf8))))
    }

    @Test("exp, nbf and iat with the skew; strings refused")
    func times() throws {
        let rule = JWTTimeRule(skew: 60, maximumAge: 600)
        let now = 1_700_000_000.0
        func check(_ text: String) throws(JOSEError) {
            guard let members = JSONValue.parseObject(Array(text.utf8)) else { throw JOSEError(.malformed, "test") }
            try rule.check(try JWTClaims(members).times(), now: now)
        }
        try check(#"{"exp":1700000100,"iat":1700000000}"#)
        try check(#"{"exp":1700000100,"iat":1700000030,"nbf":1700000050}"#)  // within the skew
        try check(#"{"exp":1699999950,"iat":1699999900}"#)  // expired 50 s ago: within the skew
        let refused: [(String, JOSEError.Kind)] = [
            (#"{"exp":1699999900,"iat":1699999000}"#, .expired),
            (#"{"exp":1700001000,"iat":1700000000,"nbf":1700000600}"#, .notYetValid),
            (#"{"exp":1700100000,"iat":1700086400}"#, .notYetValid),
            (#"{"exp":1700001000,"iat":1699990000}"#, .tooOld),
            (#"{"exp":"1700000100","iat":1700000000}"#, .claim), (#"{"exp":1700000100,"iat":"1700000000"}"#, .claim),
            (#"{"exp":1700000100,"iat":1700000000,"nbf":null}"#, .claim), (#"{"iat":1700000000}"#, .claim),
            (#"{"exp":1700000100}"#, .claim),
        ]
        for (text, kind) in refused {
            #expect(throws: JOSEError.self, "\(text)") { try check(text) }
            do throws(JOSEError) { try check(text) } catch { #expect(error.kind == kind, "\(text)") }
        }
        let strict = JWTTimeRule(skew: 60, expiryLeeway: 0)
        #expect(throws: JOSEError.self) {
            try strict.check(try Self.claims(#"{"exp":1699999950,"iat":1699999900}"#).times(), now: now)
        }
    }

    @Test("sub and aud: non-empty strings; aud a string or an array of strings")
    func subjectAndAudience() throws {
        #expect(throws: JOSEError.self) { try Self.claims(#"{"sub":""}"#).requiredString("sub") }
        #expect(throws: JOSEError.self) { try Self.claims(#"{"sub":1}"#).requiredString("sub") }
        #expect(try Self.claims(#"{"aud":"a"}"#).audience() == ["a"])
        #expect(try Self.claims(#"{"aud":["a","b"]}"#).audience() == ["a", "b"])
        for bad in [#"{"aud":[]}"#, #"{"aud":["a",1]}"#, #"{"aud":1}"#, "{}"] {
            #expect(throws: JOSEError.self, "\(bad)") { try Self.claims(bad).audience() }
        }
    }
}
