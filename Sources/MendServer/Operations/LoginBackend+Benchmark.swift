import Foundation
import MendHTTP
import MendLogin

/// What `MendServerBenchmark` (in this package) needs beyond the HTTP API: sessions in bulk, and the session check
/// with the revocation view bypassed (the database read every check made before the view existed), to measure what
/// each costs. Not public API.
extension LoginBackend {
    /// Opens `count` sessions for the user of `accessToken` (a valid session's token) and returns their access
    /// tokens: distinct sessions without as many provider logins.
    package func openSessions(
        count: Int, asUserOf accessToken: String, proofKey: String? = nil
    ) async throws -> [String] {
        guard case .success(let claims) = sessions.signer.verify(accessToken, now: configuration.clock.now()),
            let user = try await store.identities.user(id: claims.subject)
        else { throw ServerFailure.session(.Session.accessTokenInvalid, "not a valid access token") }
        var tokens: [String] = []
        tokens.reserveCapacity(count)
        // With `proofKey`: sessions bound to that key (DPoP), as a login with a proof of it opens.
        let client = proofKey.map { SessionClient(address: "benchmark", header: nil, proofKey: $0) }
        for _ in 0..<count {
            tokens.append(try await sessions.openSession(for: user, client: client).accessToken.token)
        }
        return tokens
    }

    /// While `true`, every bearer check reads the session from the database, as before the revocation view.
    package func setSessionChecksReadTheDatabase(_ on: Bool) {
        sessions.revocations.setBypassed(on)
    }

    /// How many verified tokens the session checks' cache holds, and the most it holds.
    package var sessionCacheCount: Int { sessions.signer.cache?.count ?? 0 }
    package var sessionCacheCapacity: Int { sessions.signer.cache?.capacity ?? 0 }

    /// Whether `token` is a valid access token (signature, issuer, audience, expiry): the verification alone.
    package func verifiesAccessToken(_ token: String) -> Bool {
        if case .success = sessions.signer.verify(token, now: configuration.clock.now()) { return true }
        return false
    }
}

extension LoginBackend {
    /// The in-process cost of what a check of a token never seen before does beyond the route: verifying each of
    /// `tokens` (signature, claims), and a full verified-token cache of `capacity` missing and taking each (evicting
    /// one per token), as the check does — per token, in nanoseconds.
    package func firstSightCosts(of tokens: [String], capacity: Int) -> (verify: Double, cache: Double) {
        let clock = ContinuousClock()
        let now = configuration.clock.now()
        var claims: [AccessTokenClaims] = []
        claims.reserveCapacity(tokens.count)
        let verifying = clock.measure {
            for token in tokens {
                if case .success(let verified) = sessions.signer.verify(token, now: now) { claims.append(verified) }
            }
        }
        guard claims.count == tokens.count, let first = claims.first else { return (.nan, .nan) }
        let cache = VerifiedTokenCache(capacity: capacity)
        for index in 0..<capacity { cache.insert("filler-\(index)", claims: first) }
        let caching = clock.measure {
            for (token, verified) in zip(tokens, claims) where cache.claims(for: token) == nil {
                cache.insert(token, claims: verified)
            }
        }
        func perToken(_ duration: Duration) -> Double {
            (Double(duration.components.seconds) * 1e18 + Double(duration.components.attoseconds)) / 1e9
                / Double(tokens.count)
        }
        return (perToken(verifying), perToken(caching))
    }
}
