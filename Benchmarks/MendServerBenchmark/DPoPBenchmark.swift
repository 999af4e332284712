import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import JWTKit
import Logging
import MendCore
import MendDPoPCheck
import MendEmulator
import MendJOSE
import MendLogin
import MendServer
import MendServing
import MendTesting
import NIOHTTP1

// Issue 42: mend-server's session check of DPoP-bound sessions against the peer a user would write instead — a
// Hummingbird route that verifies one ES256 JWT per request with jwt-kit and nothing else (no proof, no replay check,
// no revocation) — each as a ratio of a bare Hummingbird route measured in the same round.

/// The claims the peer's route verifies: a subject and an expiry (checked).
struct PeerClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// Claims with a mend-server access token's members (`iss`, `aud`, `sub`, `sid`, `scope`, `iat`, `exp`, `jti`), for the
/// peer: the same route, a token of the same size. The route decodes `PeerClaims` from them (the rest is parsed and
/// ignored, as a stateless route would).
struct SizedPeerClaims: JWTPayload {
    var iss: String
    var aud: String
    var sub: SubjectClaim
    var sid: String
    var scope: String
    var iat: Int
    var exp: ExpirationClaim
    var jti: String
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// `count` tokens signed by `keys` with the peer's own claims (a subject, an expiry an hour away).
func signedPeerTokens(keys: JWTKeyCollection, count: Int) async throws -> [String] {
    var tokens: [String] = []
    for index in 0..<count {
        tokens.append(
            try await keys.sign(PeerClaims(sub: .init(value: "user-\(index)"), exp: .init(value: Date() + 3600))))
    }
    return tokens
}

/// `count` tokens signed by `keys` with the members and lengths of mend-server's access token `access` (each its own
/// `sid` and `jti`): what the jwt-kit route pays for a token of mend-server's size.
func sizedPeerTokens(like access: String, keys: JWTKeyCollection, count: Int) async throws -> [String] {
    let payload =
        try JSONSerialization.jsonObject(
            with: Data(Base64URL.decodeBytes(access.split(separator: ".")[1].utf8) ?? [])) as? [String: Any]
    guard let payload, let iss = payload["iss"] as? String, let aud = payload["aud"] as? String,
        let sub = payload["sub"] as? String, let sid = payload["sid"] as? String,
        let scope = payload["scope"] as? String, let jti = payload["jti"] as? String
    else { throw BenchmarkFailure(description: "the access token's claims") }
    var tokens: [String] = []
    for index in 0..<count {
        func unique(_ like: String) -> String {
            let tag = String(index)
            return String(like.dropLast(min(tag.count, like.count))) + tag
        }
        tokens.append(
            try await keys.sign(
                SizedPeerClaims(
                    iss: iss, aud: aud, sub: .init(value: sub), sid: unique(sid), scope: scope,
                    iat: Int(Date().timeIntervalSince1970), exp: .init(value: Date() + 3600), jti: unique(jti))))
    }
    return tokens
}

/// The peer: one route that verifies `Authorization: Bearer <ES256 JWT>` with a jwt-kit key collection.
func withJWTKitPeer<T>(keys: JWTKeyCollection, _ body: (Int) async throws -> T) async throws -> T {
    guard #available(macOS 14, iOS 17, tvOS 17, *) else { throw ServerRequiresNewerSystem(serverName: "the peer") }
    let router = Router()
    router.get("/check") { request, _ -> String in
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized)
        }
        do {
            _ = try await keys.verify(String(authorization.dropFirst(7)), as: PeerClaims.self)
        } catch {
            throw HTTPError(.unauthorized)
        }
        return "ok"
    }
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        logger: Logger(label: "peer", factory: { _ in SwiftLogNoOpLogHandler() }))
    return try await ServerRunLoop.withRunning(app) { server in try await body(server.port) }
}

/// Each request takes the next header set of `sets` (warm-up and measured requests alike): a proof is never sent twice.
func measureOnce(url: String, sets: [HTTPHeaders], total: Int) async throws -> Figures {
    let next = Locked(0)
    return try await measure(client: client, url: url, total: total) { _ in
        sets[
            next.withLock { index in
                defer { index += 1 }
                return index
            }]
    }
}

/// The DPoP session check (10,000 bound sessions presented in turn, a new proof per request), Mend's bearer check of
/// the same kind of load, and the jwt-kit peer (10,000 tokens in turn), each against hello in the same round.
func benchmarkDPoP(helloPort: Int) async throws -> [String] {
    try await withFreshEmulator { emulator in
        var configuration = ServerConfiguration.forEmulator(emulator)
        configuration.storage.databaseURL = "sqlite::memory:"
        configuration.sessions.rateLimits = .unlimited
        configuration.sessions.signingKeys = [.generate(keyID: "bench-dpop", algorithm: .es256)]
        // The cache holds the working set — the 10,000 bound and the 10,000 bearer sessions — as docs/server.md says
        // to size it (a quarter above the sessions in use): the check verifies each token's signature once, and each
        // proof's on every request.
        configuration.sessions.verifiedTokenCacheSize = 25_000
        return try await withMendServer(configuration: configuration) { server in
            let login = try await postJSON(
                server.url("/v1/login/code").absoluteString, try await emulator.loginCodeBody().jsonText())
            guard let access = login["access_token"] as? String else { throw BenchmarkFailure(description: "login") }
            let key = try DPoPSoftwareKeys().makeKey()
            let signer = try DPoPKeyring.signer(for: key)
            let minted = try SessionTokens(like: access, configuration: configuration.sessions.signingKeys[0])
            let bound = try minted.make(count: distinctSessions, boundTo: key.thumbprint)
            let bearer = try minted.make(count: distinctSessions)
            let sessionURL = server.url("/v1/session")
            let peerKeys = JWTKeyCollection()
            await peerKeys.add(ecdsa: ES256PrivateKey())
            let peerTokens = try await signedPeerTokens(keys: peerKeys, count: distinctSessions)
            let total = requestsPerRound
            // `measureOnce` takes the sets in turn: a round of `count` requests uses its warm-up's (connections × 20)
            // and then its own.
            func needed(_ count: Int) -> Int { count + connections * 20 }
            func proved(_ offset: Int, count: Int = total) throws -> [HTTPHeaders] {
                try (0..<needed(count)).map { index in
                    let token = bound[(offset + index) % bound.count]
                    var headers = HTTPHeaders()
                    headers.add(name: "Authorization", value: "DPoP \(token)")
                    headers.add(
                        name: "DPoP",
                        value: try DPoPProof(
                            signer: signer, method: "GET", url: sessionURL, accessToken: token, nonce: nil,
                            issuedAt: Date()
                        ).jwt)
                    return headers
                }
            }
            func bearers(_ tokens: [String], offset: Int, count: Int = total) -> [HTTPHeaders] {
                (0..<needed(count)).map { index in
                    var headers = HTTPHeaders()
                    headers.add(name: "Authorization", value: "Bearer \(tokens[(offset + index) % tokens.count])")
                    return headers
                }
            }
            print(
                "\nDPoP: SQLite, ES256 session keys, cache 25,000; \(distinctSessions) sessions of each kind in turn, a new "
                    + "proof per request"
            )
            // Warm: every token once, as in (a) above.
            _ = try await measureOnce(
                url: sessionURL.absoluteString, sets: try proved(0, count: distinctSessions), total: distinctSessions)
            var dpopRatios: [Double] = []
            var peerRatios: [Double] = []
            var bearerRatios: [Double] = []
            try await withJWTKitPeer(keys: peerKeys) { peerPort in
                _ = try await measureOnce(
                    url: "http://127.0.0.1:\(peerPort)/check",
                    sets: bearers(peerTokens, offset: 0, count: distinctSessions), total: distinctSessions)
                _ = try await measureOnce(
                    url: sessionURL.absoluteString, sets: bearers(bearer, offset: 0, count: distinctSessions),
                    total: distinctSessions)
                for round in 1...rounds {
                    let offset = round * total
                    let proofs = try proved(offset)
                    let peerSets = bearers(peerTokens, offset: offset)
                    let bearerSets = bearers(bearer, offset: offset)
                    let hello = try await measure(
                        client: client, url: "http://127.0.0.1:\(helloPort)/hello", total: total)
                    let dpop = try await measureOnce(url: sessionURL.absoluteString, sets: proofs, total: total)
                    let peer = try await measureOnce(
                        url: "http://127.0.0.1:\(peerPort)/check", sets: peerSets, total: total)
                    let plain = try await measureOnce(url: sessionURL.absoluteString, sets: bearerSets, total: total)
                    dpopRatios.append(dpop.requestsPerSecond / hello.requestsPerSecond)
                    peerRatios.append(peer.requestsPerSecond / hello.requestsPerSecond)
                    bearerRatios.append(plain.requestsPerSecond / hello.requestsPerSecond)
                    print("round \(round)")
                    print("  hello                                   \(format(hello))")
                    print("  GET /v1/session, DPoP-bound             \(format(dpop))")
                    print("  GET /v1/session, bearer                 \(format(plain))")
                    print("  jwt-kit ES256 route (stateless peer)    \(format(peer))")
                    print(
                        String(
                            format: "  ratios: DPoP %.2f, bearer %.2f, jwt-kit peer %.2f", dpopRatios.last!,
                            bearerRatios.last!, peerRatios.last!))
                }
            }
            func median(_ values: [Double]) -> String { String(format: "%.2f", values.sorted()[values.count / 2]) }
            return [
                "  DPoP-bound session check (SQLite, ES256)  \(median(dpopRatios))",
                "  bearer session check, same run            \(median(bearerRatios))",
                "  jwt-kit ES256 stateless route (peer)      \(median(peerRatios))",
            ]
        }
    }
}

/// In process, one task, no network: one DPoP proof's check (``DPoPVerifier``, what a bound session's check adds to
/// the bearer check) against one jwt-kit ES256 verification (the peer's whole work), and the parts of the proof's
/// check. `MEND_BENCH_DPOP_VERIFY=<count>` runs it alone (under `valgrind --tool=callgrind` for instruction counts).
func benchmarkProofCosts(count: Int) async throws {
    let key = try DPoPSoftwareKeys().makeKey()
    let signer = try DPoPKeyring.signer(for: key)
    let url = URL(string: "http://127.0.0.1:8080/v1/session")!
    let token = String(repeating: "eyJhbGciOiJFUzI1NiJ9", count: 16)
    let now = Date()
    let proofs = try (0..<count).map { _ in
        try DPoPProof(signer: signer, method: "GET", url: url, accessToken: token, nonce: nil, issuedAt: now).jwt
    }
    let verifier = DPoPVerifier(maximumAge: 60, skew: 60, keys: DPoPKeyCache())
    let seconds = Int64(now.timeIntervalSince1970)
    func perOperation(_ start: ContinuousClock.Instant) -> String {
        String(format: "%8.1f µs", micros(ContinuousClock.now - start) / Double(count))
    }
    print("\nOne check, in process, one task (\(count) each):")
    var start = ContinuousClock.now
    for proof in proofs {
        _ = try verifier.verify(
            proof, method: "GET", url: url, accessToken: token, now: seconds, nonceIsValid: { _ in false },
            requiresNonce: false)
    }
    print("  DPoP proof (DPoPVerifier.verify)                  \(perOperation(start))")
    let parts = proofs.map { $0.split(separator: ".").map(String.init) }
    let publicKey = try P256.Signing.PrivateKey(rawRepresentation: key.material).publicKey
    let raw = publicKey.rawRepresentation
    start = ContinuousClock.now
    for part in parts {
        let header = JSONValue.parseObject(Base64URL.decodeBytes(part[0].utf8)!)
        _ = JSONValue.parseObject(Base64URL.decodeBytes(part[1].utf8)!)
        _ = header?["jwk"]
    }
    print("    of which: base64url and JSON of both parts      \(perOperation(start))")
    start = ContinuousClock.now
    for part in parts {
        _ = try JSONValue.parse(Base64URL.decode(part[0])!).get()
        _ = try JSONValue.parse(Base64URL.decode(part[1])!).get()
    }
    print("    (the same with JSONDecoder, before)             \(perOperation(start))")
    start = ContinuousClock.now
    for _ in 0..<count { _ = DPoPProof.ath(token) }
    print("    of which: ath                                   \(perOperation(start))")
    let jwk = JWSPublicKey(.p256(publicKey))
    start = ContinuousClock.now
    for _ in 0..<count { _ = JWK.thumbprint(of: jwk) }
    print("    of which: the jwk's thumbprint                  \(perOperation(start))")
    start = ContinuousClock.now
    for part in parts {
        let key = try P256.Signing.PublicKey(rawRepresentation: raw)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(part[2])!)
        _ = key.isValidSignature(signature, for: Data((part[0] + "." + part[1]).utf8))
    }
    print("    of which: the key from jwk, ECDSA verification  \(perOperation(start))")
    start = ContinuousClock.now
    for _ in 0..<count { _ = DPoPProof.htu(url) }
    print("    of which: htu normalisation (once)              \(perOperation(start))")
    let peerKeys = JWTKeyCollection()
    await peerKeys.add(ecdsa: ES256PrivateKey())
    var peerTokens: [String] = []
    for index in 0..<count {
        peerTokens.append(
            try await peerKeys.sign(PeerClaims(sub: .init(value: "user-\(index)"), exp: .init(value: now + 3600))))
    }
    start = ContinuousClock.now
    for peerToken in peerTokens { _ = try await peerKeys.verify(peerToken, as: PeerClaims.self) }
    print("  jwt-kit ES256 verification (the peer's route)     \(perOperation(start))")
}
