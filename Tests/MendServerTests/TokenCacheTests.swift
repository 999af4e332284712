import Foundation
import MendCore
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// The verified-token cache: bounded, never a refusal, and never slower to refuse an ended session or an expired
/// token than a check without it.
@Suite struct TokenCacheTests {
    static func claims(_ index: Int, expiresAt: Int64 = 2_000_000_000) -> AccessTokenClaims {
        AccessTokenClaims(
            issuer: "i", audience: "a", subject: "u\(index)", sessionID: "s\(index)", scope: "", issuedAt: 0,
            expiresAt: expiresAt, tokenID: "t\(index)")
    }

    @Test func holdsAtMostItsCapacityAndKeepsWhatIsUsed() {
        let cache = VerifiedTokenCache(capacity: 64)
        #expect(cache.capacity == 64)
        // A hot token, used between every insertion, survives a stream of a thousand cold ones.
        let hot = "hot-token-x"
        cache.insert(hot, claims: Self.claims(0))
        for index in 1...1000 {
            cache.insert(
                "cold-\(index)-\(Character(UnicodeScalar(UInt8(65 + index % 26))))", claims: Self.claims(index))
            #expect(cache.claims(for: hot)?.subject == "u0")
            #expect(cache.count <= 64)
        }
        #expect(cache.count <= 64 && cache.count > 32)
        cache.remove(hot)
        #expect(cache.claims(for: hot) == nil)
    }

    @Test("Capacity is the whole cache's: a shard that gets more than its share keeps it while others have room")
    func capacityIsSharedByTheShards() {
        // Tokens spread over the shards unevenly (10,000 real ones over 16 shards: 625 each on average, some 700): a
        // cache whose every shard held only its sixteenth missed on a full set of sessions it had room for
        // (MendServerBenchmark, cache warm with EdDSA keys: 17-25 % of checks verified again).
        let cache = VerifiedTokenCache(capacity: 64)
        let sameShard = (0..<8).map { "token-\($0)-abc" }  // the shard is chosen by the tail: all in one
        for (index, token) in sameShard.enumerated() { cache.insert(token, claims: Self.claims(index)) }
        for (index, token) in sameShard.enumerated() {
            #expect(cache.claims(for: token)?.subject == "u\(index)", "\(token) was evicted with room to spare")
        }
        #expect(cache.count == 8)
        // The whole stays bounded, however the tokens fall.
        for index in 0..<1000 { cache.insert("spread-\(index)-\(index % 97)", claims: Self.claims(index)) }
        #expect(cache.count <= 64 && cache.count > 56, "\(cache.count)")
        for index in 0..<1000 { cache.insert("narrow-\(index)-xyz", claims: Self.claims(index)) }
        #expect(cache.count <= 64, "\(cache.count)")
    }

    @Test("A token is cached when it verifies a second time: tokens seen once cost a bit, not an entry")
    func tokensSeenOnceAreNotAdmitted() {
        let cache = VerifiedTokenCache(capacity: 64)
        for index in 0..<48 {
            let token = "token-\(index)-\(Character(UnicodeScalar(UInt8(65 + index % 26))))"
            cache.admit(token, claims: Self.claims(index))
            #expect(cache.claims(for: token) == nil, "seen once: only marked")
            cache.admit(token, claims: Self.claims(index))
            #expect(cache.claims(for: token)?.subject == "u\(index)", "seen twice: cached")
        }
        // With room for all of them, tokens seen once are (nearly all) not cached: a doorkeeper bit set by another
        // token lets one through at most one time in eight. Caching each cost an entry, and an eviction once full.
        let roomy = VerifiedTokenCache(capacity: 10_000)
        var generator = SplitMix64(seed: 20_261_128)
        for index in 0..<5_000 {
            roomy.admit("once-\(String(generator.next(), radix: 36))", claims: Self.claims(index))
        }
        #expect(roomy.count < 5_000 / 8, "\(roomy.count) of 5,000 tokens seen once were cached")
    }

    @Test("A shard whose every token was used since the hand passed turns a newcomer away, once")
    func aShardOfTokensInUseKeepsThem() {
        let cache = VerifiedTokenCache(capacity: 16)  // a share of 1: a shard holds 2
        let (first, second, newcomer) = ("first-abc", "second-abc", "newcomer-abc")  // one shard: the same tail
        cache.insert(first, claims: Self.claims(1))
        cache.insert(second, claims: Self.claims(2))
        _ = cache.claims(for: first)
        _ = cache.claims(for: second)
        cache.insert(newcomer, claims: Self.claims(3))
        #expect(cache.claims(for: newcomer) == nil, "both were used: the newcomer is turned away")
        #expect(cache.claims(for: first) != nil && cache.claims(for: second) != nil)
        // Both used again (just above): the next newcomer is turned away too; unused since, one gives way.
        cache.insert(newcomer, claims: Self.claims(3))
        #expect(cache.claims(for: newcomer) == nil)
        cache.insert(newcomer, claims: Self.claims(3))
        #expect(cache.claims(for: newcomer)?.subject == "u3")
        #expect(cache.count == 2)
    }

    @Test("Keys are whole tokens, byte for byte: a shared tail is no hit, nor is a token that only reads the same")
    func keysAreWholeTokensByteForByte() {
        let cache = VerifiedTokenCache(capacity: 64)
        let tail = String(repeating: "T", count: 16)
        cache.insert("first.K.\(tail)", claims: Self.claims(1))
        cache.insert("second.K.\(tail)", claims: Self.claims(2))
        #expect(cache.claims(for: "first.K.\(tail)")?.subject == "u1")
        #expect(cache.claims(for: "second.K.\(tail)")?.subject == "u2")
        #expect(cache.claims(for: "third.K.\(tail)") == nil)
        // U+212A KELVIN SIGN is canonically equivalent to "K": Swift's `==` calls the two strings equal.
        let kelvin = "first.\u{212A}.\(tail)"
        #expect(kelvin == "first.K.\(tail)")
        #expect(cache.claims(for: kelvin) == nil)
        cache.remove(kelvin)
        #expect(cache.claims(for: "first.K.\(tail)")?.subject == "u1")
    }

    @Test func realTokensFillEveryShard() async throws {
        // Signed tokens end in a base64url character that carries only a few bits of the signature (64 bytes are 86
        // characters, the last holding 2 bits): a cache sharded by it used 2 of its 16 shards, an eighth of its
        // capacity (MendServerBenchmark: "the cache at 1250 of its 10000 tokens").
        for algorithm in SigningKeyConfiguration.Algorithm.allCases {
            let signer = try await SessionSigner(
                configuration: [.generate(keyID: "k", algorithm: algorithm)], issuer: "i", audience: "a",
                cacheCapacity: 64)
            let cache = try #require(signer.cache)
            for index in 0..<400 {
                let token = try await signer.sign(Self.claims(index))
                // Twice: a token is cached the second time it verifies.
                for _ in 0..<2 {
                    guard case .success = signer.verifyCached(token, now: Date(timeIntervalSince1970: 0)).result else {
                        Issue.record("a token of ours did not verify")
                        return
                    }
                }
            }
            #expect(cache.count == cache.capacity, "\(algorithm): \(cache.count) of \(cache.capacity)")
        }
    }

    @Test("Repeated checks hit the cache; a logout, an expiry and a tampered token are refused as without it")
    func refusesAsFastAsWithout() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            for _ in 0..<5 { _ = try await stack.client.get("/v1/session", bearer: access) }
            let metrics = stack.server.backend.metrics.render()
            // Verified twice (the first time only marked), then answered from the cache.
            #expect(metrics.contains(#"mend_access_token_cache_total{outcome="hit"} 3"#), "\(metrics)")
            #expect(metrics.contains(#"mend_access_token_cache_total{outcome="miss"} 2"#))

            // A tampered token (its last signature character changed) is refused every time, never cached.
            var tampered = access
            let last = tampered.removeLast()
            tampered.append(last == "A" ? "B" : "A")
            for _ in 0..<2 {
                let refused = await stack.client.failure { try await stack.client.get("/v1/session", bearer: tampered) }
                #expect(refused?.isSession(.Session.accessTokenInvalid) == true)
            }
            #expect(stack.server.backend.sessions.signer.cache?.claims(for: tampered) == nil)

            // The cached token's expiry is still checked.
            stack.clock.advance(by: 901)
            let expired = await stack.client.failure { try await stack.client.get("/v1/session", bearer: access) }
            #expect(expired?.isSession(.Session.accessTokenExpired) == true)
            #expect(stack.server.backend.sessions.signer.cache?.claims(for: access) == nil, "an expired token leaves")

            // A cached token of a session that ends is refused on the next check.
            let fresh = try await stack.client.refresh(session["refresh_token"])
            let token = try #require(fresh["access_token"]?.stringValue)
            for _ in 0..<2 { _ = try await stack.client.get("/v1/session", bearer: token) }
            #expect(stack.server.backend.sessions.signer.cache?.claims(for: token) != nil)
            _ = try await stack.client.post(
                "/v1/session/logout", json: .object([:]), bearer: token, expectsJSON: false)
            let ended = await stack.client.failure { try await stack.client.get("/v1/session", bearer: token) }
            #expect(ended?.isSession(.Session.loggedOut) == true)
        }
    }

    @Test func sizeZeroTurnsItOff() async throws {
        try await TestStack.run(configure: { $0.sessions.verifiedTokenCacheSize = 0 }) { stack in
            #expect(stack.server.backend.sessions.signer.cache == nil)
            let session = try await stack.login()
            _ = try await stack.client.get("/v1/session", bearer: try #require(session["access_token"]?.stringValue))
            #expect(!stack.server.backend.metrics.render().contains("mend_access_token_cache_total{outcome=\"hit\"} 1"))
        }
    }
}
