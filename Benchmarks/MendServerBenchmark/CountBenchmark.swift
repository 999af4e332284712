// `MEND_BENCH_COUNT=<route> N`: N sequential requests to one route, for `valgrind --tool=callgrind` — instructions per
// request, all threads (the server's and the load generator's) summed, repeatable on a shared machine where requests
// per second are not. `scripts/count-server-instructions` runs every route twice (N1 and N2 requests) and prints the
// difference per request and each route's excess over the bare route. Routes:
//
//   hello      a bare Hummingbird route                   live       mend-server's `GET /health/live` (its stack)
//   session    `GET /v1/session`, every token new (ES256)  warm       the same token every time (the cache's hit)
//   peer       the stateless jwt-kit ES256 route, every token new
//   sized      the same, its tokens of mend-server's members and lengths (what the token's size costs the peer)
//
// Everything the run sets up (the servers, a login, 3,000 sessions and 3,000 peer tokens of each kind) is the same whatever N is,
// so the difference of two runs is the requests' alone. The tasks run on one thread of their own (`OneThreadExecutor`):
// under valgrind, libdispatch never starts the worker threads of Swift's global executor.
import AsyncHTTPClient
import Foundation
import JWTKit
import MendCore
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
                let sessionTokens = try await server.backend.openSessions(count: countSetupTokens, asUserOf: access)
                let peerKeys = JWTKeyCollection()
                await peerKeys.add(ecdsa: ES256PrivateKey())
                let peerTokens = try await signedPeerTokens(keys: peerKeys, count: countSetupTokens)
                let sizedTokens = try await sizedPeerTokens(like: access, keys: peerKeys, count: countSetupTokens)
                try await withJWTKitPeer(keys: peerKeys) { peerPort in
                    let (url, tokens): (String, [String]) =
                        switch route {
                        case "hello": ("http://127.0.0.1:\(helloPort)/hello", [])
                        case "live": (server.url("/health/live").absoluteString, [])
                        case "session": (server.url("/v1/session").absoluteString, sessionTokens)
                        case "warm": (server.url("/v1/session").absoluteString, [access])
                        case "peer": ("http://127.0.0.1:\(peerPort)/check", peerTokens)
                        case "sized": ("http://127.0.0.1:\(peerPort)/check", sizedTokens)
                        default: throw BenchmarkFailure(description: "no route \(route)")
                        }
                    for index in 0..<requests {
                        var request = HTTPClientRequest(url: url)
                        if !tokens.isEmpty {
                            request.headers.add(name: "Authorization", value: "Bearer \(tokens[index % tokens.count])")
                        }
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
