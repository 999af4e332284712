import Crypto
import Foundation
import MendClientTesting
import MendCore
import Testing

@testable import MendJOSE
@testable import MendLogin

/// DPoP proofs (RFC 9449 §4) and the keys that sign them, checked against values two outside libraries computed.
@Suite("DPoP proofs")
struct DPoPProofTests {
    /// The P-256 key whose private scalar is 32 bytes of 0x0c.
    static let fixedKey = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x0C, count: 32))

    static func parts(_ jwt: String) throws -> (header: [String: Any], claims: [String: Any], signature: Data) {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        func object(_ piece: Substring) throws -> [String: Any] {
            let data = try #require(Base64URL.decode(piece))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        return (try object(pieces[0]), try object(pieces[1]), try #require(Base64URL.decode(pieces[2])))
    }

    @Test("The public key and its RFC 7638 thumbprint are what pydpop and joserfc compute for the same key")
    func thumbprintMatchesOutsideLibraries() {
        // pydpop.public_jwk / pydpop.jwk_thumbprint and joserfc's ECKey.thumbprint() for the scalar 0x0c…0c.
        let signer = SoftwareSigningKey.es256(Self.fixedKey)
        let jwk = JWK.requiredMembers(of: signer.publicKey)
        #expect(jwk["x"] == .string("Qq2XHQN9GrK-384_F_l9utEgXqfMdaBP9YLdylagvzg"))
        #expect(jwk["y"] == .string("H9ul5SQtUc52DyfAPhI3nYNy2cHJz5uqsdVYsRfHuQE"))
        #expect(JWK.thumbprint(of: signer.publicKey) == "MoyxGI8SeN7EXjC6tUL_eTj7B2p8PDZYQx7XEV9I1mA")
    }

    @Test(
        "A proof carries typ, ES256, the public jwk, htm, htu, iat, jti, ath and the nonce, and its signature verifies")
    func proofHasEveryClaim() throws {
        let signer = SoftwareSigningKey.es256(Self.fixedKey)
        let url = try #require(URL(string: "https://API.example.com/v1/session/refresh?x=1#top"))
        let proof = try DPoPProof(
            signer: signer, method: "post", url: url, accessToken: "eyJ.access.token", nonce: "n-\"quoted\"/1",
            issuedAt: Date(timeIntervalSince1970: 1_800_000_000.9), jti: "jti-1")
        let (header, claims, signature) = try Self.parts(proof.jwt)
        #expect(header["typ"] as? String == "dpop+jwt")
        #expect(header["alg"] as? String == "ES256")
        let jwk = try #require(header["jwk"] as? [String: String])
        let required = JWK.requiredMembers(of: signer.publicKey)
        #expect(jwk == ["kty": "EC", "crv": "P-256", "x": required["x"]?.stringValue, "y": required["y"]?.stringValue])
        #expect(claims["htm"] as? String == "POST")
        #expect(claims["htu"] as? String == "https://api.example.com/v1/session/refresh")
        #expect(claims["iat"] as? Int == 1_800_000_000)
        #expect(claims["jti"] as? String == "jti-1")
        #expect(claims["nonce"] as? String == "n-\"quoted\"/1")
        // ath = base64url(SHA-256("eyJ.access.token")), as RFC 9449 §4.2 defines it.
        #expect(claims["ath"] as? String == Base64URL.encode(Data(SHA256.hash(data: Data("eyJ.access.token".utf8)))))
        let signingInput = Data(proof.jwt.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(Self.fixedKey.publicKey.isValidSignature(ecdsa, for: signingInput))
    }

    @Test("Without an access token or a nonce, the proof has no ath and no nonce; every proof has its own jti")
    func optionalClaimsAndFreshIDs() throws {
        let signer = SoftwareSigningKey.es256(Self.fixedKey)
        let url = try #require(URL(string: "http://127.0.0.1:8080/v1/login/code"))
        let first = try DPoPProof(
            signer: signer, method: "POST", url: url, accessToken: nil, nonce: nil, issuedAt: Date())
        let second = try DPoPProof(
            signer: signer, method: "POST", url: url, accessToken: nil, nonce: nil, issuedAt: Date())
        let claims = try Self.parts(first.jwt).claims
        #expect(claims["ath"] == nil && claims["nonce"] == nil)
        #expect(claims["jti"] as? String != (try Self.parts(second.jwt).claims["jti"] as? String))
        #expect((claims["jti"] as? String)?.count == 22)
    }

    @Test(
        "htu: no query, fragment or user info; scheme and host lowercased; the default port dropped; an empty path is /",
        arguments: [
            ("https://API.Example.com:443/v1/Me?fields=id#frag", "https://api.example.com/v1/Me"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
            ("http://localhost:80/a/b/", "http://localhost/a/b/"),
            ("https://user:pass@host.example:8443/token", "https://host.example:8443/token"),
            ("http://[::1]:9000/v1/session?", "http://[::1]:9000/v1/session"),
        ])
    func htuIsNormalised(_ url: String, _ htu: String) throws {
        #expect(DPoPProof.htu(try #require(URL(string: url))) == htu)
    }

    @Test(
        "htu: the path normalized per RFC 3986 §6.2.2 (unreserved escapes decoded, other escapes upper-cased, dot segments removed)",
        arguments: [
            ("http://127.0.0.1:8080/v1/%73ession", "http://127.0.0.1:8080/v1/session"),
            ("http://127.0.0.1:8080/v1/./session", "http://127.0.0.1:8080/v1/session"),
            ("http://127.0.0.1:8080/v1/x/../session", "http://127.0.0.1:8080/v1/session"),
            ("http://127.0.0.1:8080/v1/%7euser/%2fa%3f", "http://127.0.0.1:8080/v1/~user/%2Fa%3F"),
            ("http://127.0.0.1:8080/a/b/..", "http://127.0.0.1:8080/a/"),
            ("http://127.0.0.1:8080/../../v1", "http://127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/v1.2/a.b/...", "http://127.0.0.1:8080/v1.2/a.b/..."),
        ])
    func htuPathIsNormalised(_ url: String, _ htu: String) throws {
        #expect(DPoPProof.htu(try #require(URL(string: url))) == htu)
    }

    @Test(
        "A URL taken as it is for htu, without parsing, is one URLComponents' normalization leaves as it is",
        arguments: [
            "https://api.example.com/v1/session", "http://127.0.0.1:8080/v1/session?x=1#f", "https://a.b/",
            "https://api.example.com:443/v1", "http://127.0.0.1:80/v1", "https://API.example.com/v1",
            "HTTPS://api.example.com/v1", "https://api.example.com", "https://api.example.com/v1/%73ession",
            "https://api.example.com/v1/./session", "https://api.example.com/v1/..", "https://api.example.com/a/...",
            "https://user@api.example.com/v1", "https://[::1]:8080/v1", "https://api.example.com:/v1",
            "https://api.example.com:0443/v1", "https://api.example.com:8443/v1/A-Z_~.x", "https://:80/v1",
            "https://api.example.com/v1/a b", "https://api.example.com/v1;p=1", "https://api.example.com?q=/x",
        ])
    func plainHTUAgrees(_ text: String) throws {
        guard let url = URL(string: text) else { return }
        if let plain = DPoPProof.plainHTU(text) {
            #expect(plain == DPoPProof.normalizedHTU(url), "\(text)")
        }
        #expect(DPoPProof.htu(url) == DPoPProof.normalizedHTU(url), "\(text)")
        #expect(DPoPProof.htu(text: text) == DPoPProof.normalizedHTU(url), "\(text)")
    }

    @Test("A software key survives the session record: the stored key signs, its thumbprint names it")
    func softwareKeyRoundTrip() throws {
        let keys = DPoPSoftwareKeys()
        let key = try keys.makeKey()
        let decoded = try JSONDecoder().decode(DPoPKey.self, from: try JSONEncoder().encode(key))
        #expect(decoded == key)
        let signer = try keys.signer(for: decoded)
        #expect(JWK.thumbprint(of: signer.publicKey) == key.thumbprint)
        #expect(try keys.makeKey().thumbprint != key.thumbprint)
    }

    @Test(
        "A key that cannot be used says why, without a secret: another device's kind, bytes that are no key, a mismatch"
    )
    func unusableKeys() throws {
        let keys = DPoPSoftwareKeys()
        let key = try keys.makeKey()
        let cases = [
            DPoPKey(kind: .secureEnclave, material: key.material, thumbprint: key.thumbprint),
            DPoPKey(kind: .software, material: Data(repeating: 0, count: 32), thumbprint: key.thumbprint),
            DPoPKey(kind: .software, material: Data([1, 2, 3]), thumbprint: key.thumbprint),
            DPoPKey(kind: .software, material: try keys.makeKey().material, thumbprint: key.thumbprint),
        ]
        for unusable in cases {
            #expect(throws: DPoPKeyUnavailable.self) { try keys.signer(for: unusable) }
        }
    }

    @Test("The key's private part is in no rendering, and the one vocabulary redacts it from a stored record")
    func privatePartIsNeverShown() throws {
        let key = try DPoPSoftwareKeys().makeKey()
        let material = Base64URL.encode(key.material)
        let standard = key.material.base64EncodedString()
        for rendering in [key.description, key.debugDescription, "\(key)", String(reflecting: key)] {
            #expect(!rendering.contains(material) && !rendering.contains(standard))
            #expect(rendering.contains(key.thumbprint))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let json = String(decoding: try encoder.encode(key), as: UTF8.self)
        #expect(json.contains(standard), "the control: the record holds the key")
        let redacted = Redactor.standard.redact(text: json)
        #expect(!redacted.contains(standard), "\(redacted)")
        // As Foundation writes it by default, `/` escaped: nothing of the key is left either.
        let escaped = Redactor.standard.redact(text: String(decoding: try JSONEncoder().encode(key), as: UTF8.self))
        #expect(!escaped.contains(String(standard.prefix(12))), "\(escaped)")
    }

    // MARK: Against implementations nobody here wrote

    /// A Python with pydpop and joserfc (`MEND_TEST_PYTHON`: scripts/test installs them into its virtual environment).
    static let python = ProcessInfo.processInfo.environment["MEND_TEST_PYTHON"]

    /// Verifies `proof` with pydpop for a `POST` to `htu` presenting `token` with `nonce`; returns the thumbprints
    /// pydpop and joserfc compute for the proof's key, or pydpop's refusal.
    static func pydpop(_ proof: String, htu: String, token: String, nonce: String) async throws -> String {
        let script = """
            import json, sys, pydpop
            from joserfc.jwk import ECKey
            proof, htu, token, nonce = sys.argv[1:5]
            try:
                result = pydpop.verify_proof(proof=proof, htm="POST", htu=htu, access_token=token, expected_nonce=nonce)
            except pydpop.DPoPError as error:
                print("refused: %s" % error)
                sys.exit(0)
            print(result["jwk_thumbprint"], ECKey.import_key(result["jwk"]).thumbprint())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(python))
        process.arguments = ["-c", script, proof, htu, token, nonce]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = await BlockingWork.run { output.fileHandleForReading.readDataToEndOfFile() }
        await process.exited()
        #expect(process.terminationStatus == 0)
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "pydpop verifies the proofs Mend makes (joserfc agrees on the thumbprint); it refuses one for another URL",
        .enabled(if: python != nil, "MEND_TEST_PYTHON names no Python with pydpop and joserfc"))
    func pydpopVerifiesMendProofs() async throws {
        let keys = DPoPSoftwareKeys()
        let key = try keys.makeKey()
        let url = try #require(URL(string: "https://API.example.com:443/v1/me?fields=id#f"))
        let proof = try DPoPProof(
            signer: try keys.signer(for: key), method: "POST", url: url, accessToken: "eyJ.mend.token",
            nonce: "server-nonce", issuedAt: Date())
        let verified = try await Self.pydpop(
            proof.jwt, htu: "https://api.example.com/v1/me", token: "eyJ.mend.token", nonce: "server-nonce")
        #expect(verified == "\(key.thumbprint) \(key.thumbprint)")
        let refused = try await Self.pydpop(
            proof.jwt, htu: "https://api.example.com/v1/other", token: "eyJ.mend.token", nonce: "server-nonce")
        #expect(refused == "refused: htu mismatch", "the control: pydpop refuses what it should")
    }

    // MARK: In the session record

    @Test("A session stored before DPoP (no key) reads as a bearer session; a bound one keeps its key through a store")
    func sessionRecord() async throws {
        // What the landed version wrote: no proofKey member.
        let legacy = try JSONEncoder.session.encode(sampleSession())
        #expect(!String(decoding: legacy, as: UTF8.self).contains("proofKey"))
        #expect(try JSONDecoder.session.decode(Session.self, from: legacy).proofKey == nil)

        var bound = sampleSession()
        bound.proofKey = try DPoPSoftwareKeys().makeKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(url: directory.appendingPathComponent("session.json"))
        try await store.write(bound)
        let read = try #require(try await store.read())
        #expect(read.proofKey == bound.proofKey)
        #expect(read.description.contains("DPoP jkt \(try #require(bound.proofKey).thumbprint)"))
        #expect(!read.description.contains(try #require(bound.proofKey).material.base64EncodedString()))
    }

    @Test("A session whose key cannot be used gets session/19, which ends the session and asks for a new login")
    func unusableKeyIsSession19() throws {
        let key = try DPoPSoftwareKeys().makeKey()
        let restored = DPoPKey(kind: .secureEnclave, material: key.material, thumbprint: key.thumbprint)
        do {
            _ = try DPoPSessionProver(key: restored)
            Issue.record("an unusable key made a prover")
        } catch {
            #expect(error.code == .Session.proofKeyUnavailable)
            #expect(error.category == .recoverable && error.recovery.action == .reauthenticate)
            #expect(MendError.Code.Session.endsSession(error.code))
            #expect(!error.developerMessage.contains(key.material.base64EncodedString()))
        }
        #expect(throws: Never.self) { _ = try DPoPSessionProver(key: key) }
    }
}
