import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendTesting
import Testing

@testable import MendDPoPCheck
@testable import MendJOSE
@testable import MendLogin
@testable import MendServer

/// The server's check of a DPoP proof (RFC 9449 §4.3), against proofs Mend's client makes, proofs an outside library
/// (pydpop) made, and every way a proof can be wrong.
@Suite("DPoP proof verification")
struct DPoPVerifierTests {
    static let key = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x0C, count: 32))
    static let thumbprint = "MoyxGI8SeN7EXjC6tUL_eTj7B2p8PDZYQx7XEV9I1mA"
    static let url = URL(string: "http://127.0.0.1:8080/v1/session/refresh")!
    static let now: Int64 = 1_800_000_000
    static let token = "eyJ.access.token"

    /// A JWT of `header` and `claims` (JSON text) signed with `key`.
    static func jwt(header: String, claims: String, key: P256.Signing.PrivateKey = key) throws -> String {
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    static let jwk =
        #"{"kty":"EC","crv":"P-256","x":"Qq2XHQN9GrK-384_F_l9utEgXqfMdaBP9YLdylagvzg","y":"H9ul5SQtUc52DyfAPhI3nYNy2cHJz5uqsdVYsRfHuQE"}"#
    static let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(jwk)}"#

    static func claims(
        htm: String = "POST", htu: String = url.absoluteString, iat: Int64 = now, jti: String? = "j1",
        ath: String? = DPoPProof.ath(token), nonce: String? = nil
    ) -> String {
        var members = [#""htm":"\#(htm)""#, #""htu":"\#(htu)""#, #""iat":\#(iat)"#]
        if let jti { members.append(#""jti":"\#(jti)""#) }
        if let ath { members.append(#""ath":"\#(ath)""#) }
        if let nonce { members.append(#""nonce":"\#(nonce)""#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func verify(
        _ proof: String, accessToken: String? = token, nonce: ((String) -> Bool)? = nil
    ) throws(DPoPVerifier.Refusal) -> DPoPVerifier.Verified {
        try DPoPVerifier().verify(
            proof, method: "POST", url: url, accessToken: accessToken, now: now, nonceIsValid: nonce)
    }

    @Test("A proof Mend's client makes verifies, and names its key's thumbprint")
    func clientProofVerifies() throws {
        let proof = try DPoPProof(
            signer: SoftwareSigningKey.es256(Self.key), method: "POST",
            url: try #require(URL(string: "http://127.0.0.1:8080/v1/session/refresh?x=1")), accessToken: Self.token,
            nonce: nil, issuedAt: Date(timeIntervalSince1970: TimeInterval(Self.now)))
        let verified = try Self.verify(proof.jwt)
        #expect(verified.thumbprint == Self.thumbprint)
        #expect(verified.issuedAt == Self.now)
    }

    @Test("A proof pydpop made (another implementation, with a nonce) verifies")
    func pydpopProofVerifies() throws {
        // pydpop.generate_proof(private_key=<0x0c…0c>, htm="POST", htu=".../v1/session/refresh?q=1", iat=1800000000,
        // jti="pydpop-jti-1", access_token="eyJ.access.token", nonce="server-nonce-1")
        let proof =
            "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwiY3J2IjoiUC0yNTYiLCJ4IjoiUXEyWEhRTjlHckstMzg0X0ZfbDl1dEVnWHFmTWRhQlA5WUxkeWxhZ3Z6ZyIsInkiOiJIOXVsNVNRdFVjNTJEeWZBUGhJM25ZTnkyY0hKejV1cXNkVllzUmZIdVFFIn19."
            + "eyJqdGkiOiJweWRwb3AtanRpLTEiLCJodG0iOiJQT1NUIiwiaHR1IjoiaHR0cDovLzEyNy4wLjAuMTo4MDgwL3YxL3Nlc3Npb24vcmVmcmVzaCIsImlhdCI6MTgwMDAwMDAwMCwiYXRoIjoiRnVBZlFDWDdPcVlXaEVCcnZGdU1naVR0UmZxdGNaY1dDVFpHXzAybFgxdyIsIm5vbmNlIjoic2VydmVyLW5vbmNlLTEifQ."
            + "7HzJQzgasiByFACkGXXIZV2vaFHxNe_x-FmnQ9ug-AtxDIyPONWFGJ6mgeDO1S9Vy5nedzgDQPTKM8D71jbKaA"
        let verified = try Self.verify(proof, nonce: { $0 == "server-nonce-1" })
        #expect(verified == .init(thumbprint: Self.thumbprint, jti: "pydpop-jti-1", issuedAt: Self.now, hasNonce: true))
        #expect(throws: DPoPVerifier.Refusal.nonceRequired) { try Self.verify(proof, nonce: { _ in false }) }
    }

    @Test("The window: a proof skew seconds ahead or maximumAge behind passes; one second more is refused")
    func window() throws {
        let verifier = DPoPVerifier()
        for iat in [Self.now + verifier.skew, Self.now - verifier.maximumAge - verifier.skew] {
            _ = try Self.verify(try Self.jwt(header: Self.header, claims: Self.claims(iat: iat)))
        }
        for iat in [Self.now + verifier.skew + 1, Self.now - verifier.maximumAge - verifier.skew - 1] {
            #expect(throws: DPoPVerifier.Refusal.invalid("iat is outside the accepted window")) {
                try Self.verify(try Self.jwt(header: Self.header, claims: Self.claims(iat: iat)))
            }
        }
    }

    @Test(
        "Every wrong proof is refused, each for its own reason",
        arguments: [
            ("typ", #"{"typ":"JWT","alg":"ES256","jwk":\#(jwk)}"#, claims(), "typ is not dpop+jwt"),
            (
                "alg none", #"{"typ":"dpop+jwt","alg":"none","jwk":\#(jwk)}"#, claims(),
                "alg is not one this server accepts (ES256)"
            ),
            (
                "alg HS256", #"{"typ":"dpop+jwt","alg":"HS256","jwk":\#(jwk)}"#, claims(),
                "alg is not one this server accepts (ES256)"
            ),
            ("no jwk", #"{"typ":"dpop+jwt","alg":"ES256"}"#, claims(), "jwk is not an EC P-256 public key"),
            (
                "RSA jwk", #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"RSA","n":"AQAB","e":"AQAB"}}"#, claims(),
                "jwk is not an EC P-256 public key"
            ),
            (
                "private jwk",
                #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"Qq2XHQN9GrK-384_F_l9utEgXqfMdaBP9YLdylagvzg","y":"H9ul5SQtUc52DyfAPhI3nYNy2cHJz5uqsdVYsRfHuQE","d":"DAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAw"}}"#,
                claims(), "jwk holds a private key"
            ),
            ("method", header, claims(htm: "GET"), "htm is not the request's method"),
            (
                "other path", header, claims(htu: "http://127.0.0.1:8080/v1/session/logout"),
                "htu is not the request's URL"
            ),
            (
                "other port", header, claims(htu: "http://127.0.0.1:8081/v1/session/refresh"),
                "htu is not the request's URL"
            ),
            (
                "trailing slash", header, claims(htu: "http://127.0.0.1:8080/v1/session/refresh/"),
                "htu is not the request's URL"
            ),
            ("no jti", header, claims(jti: nil), "jti is missing or longer than 128 characters"),
            (
                "long jti", header, claims(jti: String(repeating: "j", count: 129)),
                "jti is missing or longer than 128 characters"
            ),
            ("no ath", header, claims(ath: nil), "ath is not the presented access token's hash"),
            (
                "other token's ath", header, claims(ath: DPoPProof.ath("another")),
                "ath is not the presented access token's hash"
            ),
        ])
    func refusals(_ name: String, _ header: String, _ claims: String, _ reason: String) throws {
        let proof = try Self.jwt(header: header, claims: claims)
        #expect(throws: DPoPVerifier.Refusal.invalid(reason), "\(name)") { try Self.verify(proof) }
        // A verifier whose cache has just accepted a good proof's header refuses it alike.
        let cached = DPoPVerifier(keys: DPoPKeyCache())
        _ = try cached.verify(
            try Self.jwt(header: Self.header, claims: Self.claims(jti: "warm")), method: "POST", url: Self.url,
            accessToken: Self.token, now: Self.now)
        #expect(throws: DPoPVerifier.Refusal.invalid(reason), "\(name), cached") {
            try cached.verify(proof, method: "POST", url: Self.url, accessToken: Self.token, now: Self.now)
        }
    }

    @Test("A verifier's key cache answers each key by its own coordinates, the last one read and any other alike")
    func keyCacheKeepsKeysApart() throws {
        let verifier = DPoPVerifier(keys: DPoPKeyCache())
        let other = P256.Signing.PrivateKey()
        let otherThumbprint = JWK.thumbprint(of: JWSPublicKey(.p256(other.publicKey)))
        func proof(_ key: P256.Signing.PrivateKey, jti: String) throws -> String {
            try DPoPProof(
                signer: SoftwareSigningKey.es256(key), method: "POST", url: Self.url, accessToken: Self.token,
                nonce: nil, issuedAt: Date(timeIntervalSince1970: TimeInterval(Self.now)), jti: jti
            ).jwt
        }
        for (index, (key, thumbprint)) in [
            (Self.key, Self.thumbprint), (Self.key, Self.thumbprint), (other, otherThumbprint),
            (Self.key, Self.thumbprint), (other, otherThumbprint),
        ].enumerated() {
            let verified = try verifier.verify(
                try proof(key, jti: "k\(index)"), method: "POST", url: Self.url, accessToken: Self.token,
                now: Self.now)
            #expect(verified.thumbprint == thumbprint, "proof \(index)")
        }
        // The cache's last key is this one's: a proof naming it but signed by the other key is refused.
        _ = try verifier.verify(
            try proof(Self.key, jti: "last"), method: "POST", url: Self.url, accessToken: Self.token, now: Self.now)
        let forged = try Self.jwt(header: Self.header, claims: Self.claims(jti: "forged"), key: other)
        #expect(throws: DPoPVerifier.Refusal.self) {
            try verifier.verify(forged, method: "POST", url: Self.url, accessToken: Self.token, now: Self.now)
        }
        // A known token hash stands for the token's: a wrong one is refused.
        #expect(throws: DPoPVerifier.Refusal.self) {
            try verifier.verify(
                try proof(Self.key, jti: "hash"), method: "POST", htu: DPoPProof.htu(Self.url),
                accessToken: Self.token, accessTokenHash: DPoPProof.ath("another token"), now: Self.now)
        }
    }

    @Test("A signature of another key, a truncated proof, garbage and an oversized proof are refused")
    func malformed() throws {
        let other = P256.Signing.PrivateKey()
        let signedByOther = try Self.jwt(header: Self.header, claims: Self.claims(), key: other)
        #expect(throws: DPoPVerifier.Refusal.invalid("the signature does not verify with its jwk")) {
            try Self.verify(signedByOther)
        }
        let good = try Self.jwt(header: Self.header, claims: Self.claims())
        for broken in [String(good.dropLast(10)), "a.b.c", "not a jwt", "", good + ".x"] {
            #expect(throws: DPoPVerifier.Refusal.self, "\(broken.prefix(20))") { try Self.verify(broken) }
        }
        #expect(throws: DPoPVerifier.Refusal.invalid("the proof is too long")) {
            try Self.verify(String(repeating: "a", count: DPoPVerifier.maximumLength + 1))
        }
    }

    @Test(
        "A proof whose htu spells the request's URL another equivalent way (RFC 3986 §6.2.2) is taken (RFC 9449 §4.3)",
        arguments: [
            "http://127.0.0.1:8080/v1/%73ession/refresh", "http://127.0.0.1:8080/v1/./session/refresh",
            "http://127.0.0.1:8080/v1/session/x/../refresh", "HTTP://127.0.0.1:8080/v1/session/%72efresh",
        ])
    func equivalentHTU(_ htu: String) throws {
        let proof = try Self.jwt(header: Self.header, claims: Self.claims(htu: htu))
        #expect(try Self.verify(proof).thumbprint == Self.thumbprint)
    }

    @Test("At a token endpoint (no access token presented), a proof needs no ath; the query is never compared")
    func tokenEndpoint() throws {
        let proof = try Self.jwt(
            header: Self.header, claims: Self.claims(htu: Self.url.absoluteString + "?a=1#f", ath: nil))
        #expect(try Self.verify(proof, accessToken: nil).thumbprint == Self.thumbprint)
    }

    /// A resource server in memory that checks every proof as mend-server will: the verifier, its nonces (required)
    /// and its replay cache.
    final class ProvingServer: Sendable {
        let nonces = DPoPNonces(secret: Data("test".utf8))
        let replays = DPoPReplayCache()
        let refusals = Locked<[String]>([])
        let now: Int64 = 1_800_000_000

        var transport: InMemoryTransport {
            InMemoryTransport { request, _ in
                let url = URL(string: "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")")!
                let token = String((request.headerFields[.authorization] ?? "").dropFirst("DPoP ".count))
                let nonce = [("DPoP-Nonce", self.nonces.current(now: self.now))]
                do {
                    let verified = try DPoPVerifier().verify(
                        request.headerFields[HTTPField.Name("DPoP")!] ?? "", method: request.method.rawValue,
                        url: url, accessToken: token, now: self.now,
                        nonceIsValid: { self.nonces.isValid($0, now: self.now) })
                    guard
                        self.replays.firstUse(
                            thumbprint: verified.thumbprint, jti: verified.jti, expiresAt: self.now + 600, now: self.now
                        )
                    else { throw DPoPVerifier.Refusal.invalid("replayed") }
                    return .json(200, "{}", headers: nonce)
                } catch {
                    self.refusals.withLock { $0.append("\(error)") }
                    let code =
                        (error as? DPoPVerifier.Refusal) == .nonceRequired ? "use_dpop_nonce" : "invalid_dpop_proof"
                    return .json(401, "{}", headers: nonce + [("WWW-Authenticate", #"DPoP error="\#(code)""#)])
                }
            }
        }
    }

    @Test("Mend's client through its pipeline, against the server's checks: one nonce retry, then every proof passes")
    func clientPipelineAgainstServerChecks() async throws {
        let server = ProvingServer()
        let transport = server.transport
        let key = try DPoPSoftwareKeys().makeKey()
        let credential = Credential(token: Self.token, prover: try DPoPSessionProver(key: key))
        let clock = PipelineClock(
            sleep: { _ in }, now: { Date(timeIntervalSince1970: TimeInterval(server.now)) }, random: { 0.5 })
        let client = APIClient(
            transport: transport, configuration: .init(clock: clock),
            steps: .standard(credentialProvider: StaticCredential(credential)))
        let url = try #require(URL(string: "https://api.example/v1/me?fields=id"))
        let first = try await client.send(APIRequest(method: .get, url: url))
        #expect(first.attempts == 2, "the first proof had no nonce: exactly one more request")
        for _ in 0..<3 {
            #expect(try await client.send(APIRequest(method: .post, url: url)).attempts == 1)
        }
        #expect(transport.requestCount == 5)
        #expect(server.refusals.current == ["a DPoP nonce is required"])
    }
}
