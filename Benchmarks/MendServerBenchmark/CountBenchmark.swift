// `MEND_BENCH_COUNT=<route> N`: N sequential requests to one route, for `valgrind --tool=callgrind` — instructions per
// request, all threads (the server's and the load generator's) summed, repeatable on a shared machine where requests
// per second are not. `scripts/count-server-instructions` runs every route twice (N1 and N2 requests) and prints the
// difference per request and each route's excess over the bare route. Routes:
//
//   hello      a bare Hummingbird route                   live       mend-server's `GET /health/live` (its stack)
//   session    `GET /v1/session`, every token new (ES256)  warm       the same token every time (the cache's hit)
//   dpop       `GET /v1/session` of a DPoP-bound session, its token in the cache (as `warm`), each request with a new
//              proof of the key: the proof's check, the one signature RFC 9449 asks of every request
//   dpop-new   the same, every token new (two signatures a request: the token's and the proof's)
//   peer       the stateless jwt-kit ES256 route, every token new
//   sized      the same, its tokens of mend-server's members and lengths (what the token's size costs the peer)
//
// Everything the run sets up (the servers, a login, 3,000 sessions and 3,000 peer tokens of each kind; for `dpop-new`,
// 3,000 bound sessions, for `dpop` one, presented twice first so that the cache holds it; a proof for each request)
// is the same whatever N is, so the difference of two runs is the requests'
// alone. The tasks run on one thread of their own (`OneThreadExecutor`): under valgrind, libdispatch never starts the
// worker threads of Swift's global executor.
import AsyncHTTPClient
import Foundation
import JWTKit
import MendCore
import MendJOSE
import MendLogin
import MendServer
import MendServing
import MendTesting
import NIOCore
import NIOHTTP1

/// The tokens every count run makes, whatever its N (at most this many requests).
let countSetupTokens = 3_000

func benchmarkCount(route: String, requests: Int) async throws {
    guard requests <= countSetupTokens else { throw BenchmarkFailure(description: "at most \(countSetupTokens)") }
    try await withHelloServer { helloPort in
        try await withFreshEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.storage.databaseURL = "sqlite::memory:"
            configuration.sessions.rateLimits = .unlimited
            configuration.sessions.signingKeys = [.generate(keyID: "count-es256", algorithm: .es256)]
            try await withMendServer(configuration: configuration) { server in
                let login = try await postJSON(
                    server.url("/v1/login/code").absoluteString, try await emulator.loginCodeBody().jsonText())
                guard let access = login["access_token"] as? String else {
                    throw BenchmarkFailure(description: "login")
                }
                let minted = try SessionTokens(like: access, configuration: configuration.sessions.signingKeys[0])
                let sessionTokens = try minted.make(count: countSetupTokens)
                // Route `dpop` alone: sessions bound to one key, as DPoPBenchmark.swift's (as a login with a proof of
                // the key binds them).
                let proofKey = try DPoPSoftwareKeys().makeKey()
                let proofSigner = try DPoPKeyring.signer(for: proofKey)
                let boundTokens =
                    switch route {
                    case "dpop": try minted.make(count: 1, boundTo: proofKey.thumbprint)
                    case "dpop-new": try minted.make(count: countSetupTokens, boundTo: proofKey.thumbprint)
                    default: [String]()
                    }
                let peerKeys = JWTKeyCollection()
                await peerKeys.add(ecdsa: ES256PrivateKey())
                let peerTokens = try await signedPeerTokens(keys: peerKeys, count: countSetupTokens)
                let sizedTokens = try await sizedPeerTokens(like: access, keys: peerKeys, count: countSetupTokens)
                let sessionURL = server.url("/v1/session")
                try await withJWTKitPeer(keys: peerKeys) { peerPort in
                    let (url, tokens): (String, [String]) =
                        switch route {
                        case "hello": ("http://127.0.0.1:\(helloPort)/hello", [])
                        case "live": (server.url("/health/live").absoluteString, [])
                        case "session": (sessionURL.absoluteString, sessionTokens)
                        case "warm": (sessionURL.absoluteString, [access])
                        case "dpop", "dpop-new": (sessionURL.absoluteString, boundTokens)
                        case "peer": ("http://127.0.0.1:\(peerPort)/check", peerTokens)
                        case "sized": ("http://127.0.0.1:\(peerPort)/check", sizedTokens)
                        default: throw BenchmarkFailure(description: "no route \(route)")
                        }
                    // Route `dpop`: each token's proof (`DPoP` header), made last, as near the requests as the setup
                    // can: mend-server takes a proof within its window alone (DPoPCheck's verifier: `iat` at most
                    // 120 s old, 60 s of skew included) and once (its replay cache refuses a `jti` seen before). Under
                    // callgrind, the 3,000 proofs and 2,200 requests take about 40 s on a loaded machine of two
                    // cores; a proof past the window is answered 401, and the run fails. The server asks for no nonce
                    // (`dpopRequiresNonce` is false by default).
                    // The cached route's token is presented twice before the counted requests (the cache takes a
                    // token the second time it verifies it).
                    let warmUp = route == "dpop" ? 2 : 0
                    let proofs = try (0..<(boundTokens.isEmpty ? 0 : countSetupTokens + warmUp)).map { index in
                        try DPoPProof(
                            signer: proofSigner, method: "GET", url: sessionURL,
                            accessToken: boundTokens[index % boundTokens.count], nonce: nil, issuedAt: Date()
                        ).jwt
                    }
                    // A token with a proof is presented as DPoP (RFC 9449 §7.1), any other as a bearer token.
                    let scheme = proofs.isEmpty ? "Bearer" : "DPoP"
                    for index in 0..<(requests + warmUp) {
                        var request = HTTPClientRequest(url: url)
                        if !tokens.isEmpty {
                            request.headers.add(
                                name: "Authorization", value: "\(scheme) \(tokens[index % tokens.count])")
                        }
                        if !proofs.isEmpty { request.headers.add(name: "DPoP", value: proofs[index]) }
                        let response = try await client.execute(request, timeout: .seconds(60))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        guard response.status == .ok else {
                            throw BenchmarkFailure(description: "\(url) answered \(response.status)")
                        }
                    }
                }
            }
        }
    }
}
