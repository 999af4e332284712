import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

/// A prover that writes what it was asked into the proof, and counts.
final class EchoProver: DPoPProver {
    let calls = Locked<Int>(0)

    func proof(
        method: String, url: URL, accessToken: String?, nonce: String?, issuedAt: Date
    ) async throws -> String {
        let number = calls.withLock {
            $0 += 1
            return $0
        }
        let time = Int(issuedAt.timeIntervalSince1970)
        return "proof-\(number) \(method) \(url.absoluteString) \(accessToken ?? "-") iat=\(time) nonce=\(nonce ?? "-")"
    }
}

/// A bound credential that never renews, counting what the pipeline asks of it.
final class BoundProvider: CredentialProvider {
    let prover = EchoProver()
    let refreshes = Locked<Int>(0)
    let invalidations = Locked<Int>(0)

    func currentCredential() async throws -> Credential? { Credential(token: "bound-token", prover: prover) }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        refreshes.withLock { $0 += 1 }
        return Credential(token: "bound-token-2", prover: prover)
    }

    func invalidate(_ credential: Credential, because error: MendError) async {
        invalidations.withLock { $0 += 1 }
    }
}

/// DPoP through the pipeline: a proof per attempt, nonces per origin, one retry for a nonce challenge.
@Suite("DPoP in the pipeline")
struct DPoPPipelineTests {
    /// An origin of this test's own.
    let apiURL = URL(string: "https://api-\(UUID().uuidString.prefix(8).lowercased()).example/v1/items/1")!
    static let challenge: [(String, String)] = [
        ("WWW-Authenticate", #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce""#),
        ("DPoP-Nonce", "nonce-1"),
    ]

    @Test("A bound credential sends Authorization: DPoP and a proof of the request's method, URL and token")
    func attachesProof() async throws {
        let seen = Locked<[HTTPRequest]>([])
        let transport = InMemoryTransport { request, _ in
            seen.withLock { $0.append(request) }
            return .json(200, "{}")
        }
        let client = makeClient(transport, provider: BoundProvider())
        _ = try await client.send(APIRequest(method: .post, url: apiURL))
        let request = try #require(seen.current.first)
        #expect(request.headerFields[.authorization] == "DPoP bound-token")
        #expect(
            request.headerFields[HTTPField.Name("DPoP")!]
                == "proof-1 POST \(apiURL.absoluteString) bound-token iat=1800000000 nonce=-"
        )
    }

    @Test("A nonce challenge costs exactly one more request, whose proof carries the nonce; nothing is renewed")
    func nonceChallengeOnce() async throws {
        let transport = InMemoryTransport { request, _ in
            let proof = request.headerFields[HTTPField.Name("DPoP")!] ?? ""
            return proof.hasSuffix("nonce=nonce-1") ? .json(200, "{}") : .json(401, "{}", headers: Self.challenge)
        }
        let provider = BoundProvider()
        let response = try await makeClient(transport, provider: provider).send(APIRequest(method: .get, url: apiURL))
        #expect(response.attempts == 2)
        #expect(transport.requestCount == 2)
        #expect(provider.refreshes.current == 0 && provider.invalidations.current == 0)
    }

    @Test("A second challenge is returned, never answered again, and renews nothing")
    func secondChallengeReturned() async throws {
        let transport = InMemoryTransport { _, _ in .json(401, "{}", headers: Self.challenge) }
        let provider = BoundProvider()
        let client = makeClient(transport, provider: provider)
        await #expect(throws: MendError.self) { try await client.send(APIRequest(method: .get, url: apiURL)) }
        #expect(transport.requestCount == 2)
        #expect(provider.refreshes.current == 0 && provider.invalidations.current == 0)
    }

    @Test("A nonce any answer gives is used by the next request to its origin, and by no other origin")
    func noncePerOrigin() async throws {
        let seen = Locked<[String]>([])
        let transport = InMemoryTransport { request, _ in
            seen.withLock { $0.append(request.headerFields[HTTPField.Name("DPoP")!] ?? "") }
            return .json(200, "{}", headers: [("DPoP-Nonce", "from-\(request.authority ?? "")")])
        }
        let client = makeClient(transport, provider: BoundProvider())
        let other = try #require(
            URL(string: "https://other-\(UUID().uuidString.prefix(8).lowercased()).example/v1/items"))
        _ = try await client.send(APIRequest(method: .get, url: apiURL))
        _ = try await client.send(APIRequest(method: .get, url: apiURL))
        _ = try await client.send(APIRequest(method: .get, url: other))
        #expect(
            seen.current.map { $0.split(separator: " ").last.map(String.init) ?? "" } == [
                "nonce=-", "nonce=from-\(apiURL.host ?? "")", "nonce=-",
            ])
    }

    @Test("A retried attempt and the replay after a refresh each carry a new proof")
    func freshProofPerAttempt() async throws {
        let proofs = Locked<[String]>([])
        let transport = InMemoryTransport { request, _ in
            let count = proofs.withLock {
                $0.append(request.headerFields[HTTPField.Name("DPoP")!] ?? "")
                return $0.count
            }
            switch count {
            case 1: return .json(503, "{}")  // transient: retried below the authorization step
            case 2: return .json(401, #"{"message":"expired"}"#)  // rejected: refreshed and replayed
            default: return .json(200, "{}")
            }
        }
        let provider = BoundProvider()
        let response = try await makeClient(transport, provider: provider).send(APIRequest(method: .get, url: apiURL))
        #expect(response.attempts == 3)
        #expect(provider.refreshes.current == 1)
        #expect(Set(proofs.current).count == 3, "\(proofs.current)")
        #expect(proofs.current.last?.contains("bound-token-2") == true)
    }

    @Test("A bearer credential carries no proof")
    func bearerUnchanged() async throws {
        let seen = Locked<[HTTPRequest]>([])
        let transport = InMemoryTransport { request, _ in
            seen.withLock { $0.append(request) }
            return .json(200, "{}")
        }
        _ = try await makeClient(transport, provider: RotatingProvider()).send(APIRequest(method: .get, url: apiURL))
        #expect(seen.current.first?.headerFields[HTTPField.Name("DPoP")!] == nil)
        #expect(seen.current.first?.headerFields[.authorization]?.hasPrefix("Bearer ") == true)
    }

    /// A server whose clock is ten minutes ahead: it refuses a proof more than a minute off its time, saying so with
    /// its `Date`.
    static func aheadServer(skew: Int = 600, date: String = "Fri, 15 Jan 2027 08:10:00 GMT") -> InMemoryTransport {
        InMemoryTransport { request, _ in
            let proof = request.headerFields[HTTPField.Name("DPoP")!] ?? ""
            let iat = proof.split(separator: " ").first { $0.hasPrefix("iat=") }.flatMap { Int($0.dropFirst(4)) } ?? 0
            if abs(iat - (1_800_000_000 + skew)) <= 60 { return .json(200, "{}") }
            return .json(
                401, "{}",
                headers: [
                    (
                        "WWW-Authenticate",
                        #"DPoP error="invalid_dpop_proof", error_description="iat is outside the window""#
                    ),
                    ("Date", date),
                ])
        }
    }

    @Test("A proof refused for its time is sent once more on the server's clock, which later proofs keep using")
    func clockOffsetLearned() async throws {
        let transport = Self.aheadServer()
        let provider = BoundProvider()
        let client = makeClient(transport, provider: provider)
        let first = try await client.send(APIRequest(method: .get, url: apiURL))
        #expect(first.attempts == 2)
        let second = try await client.send(APIRequest(method: .get, url: apiURL))
        #expect(second.attempts == 1, "the offset was kept")
        #expect(transport.requestCount == 3)
        #expect(provider.refreshes.current == 0)
    }

    @Test("A refusal whose Date agrees with the client's clock is not sent again for time (the refresh rule applies)")
    func refusalWithoutSkew() async throws {
        // The server refuses every proof; its Date is two seconds from the client's: nothing to learn.
        let transport = Self.aheadServer(skew: 100_000, date: "Fri, 15 Jan 2027 08:00:02 GMT")
        let provider = BoundProvider()
        let client = makeClient(transport, provider: provider)
        await #expect(throws: MendError.self) { try await client.send(APIRequest(method: .get, url: apiURL)) }
        // The 401 is a rejection of the credential: one refresh and one replay, no time retry in either.
        #expect(transport.requestCount == 2)
        #expect(provider.refreshes.current == 1)
    }

    @Test("The retry step is the one loop that sends again: a nonce challenge's resend does not run the steps above it")
    func nonceResendInRetryStep() async throws {
        let transport = InMemoryTransport { request, _ in
            let proof = request.headerFields[HTTPField.Name("DPoP")!] ?? ""
            return proof.hasSuffix("nonce=nonce-1") ? .json(200, "{}") : .json(401, "{}", headers: Self.challenge)
        }
        // An app's step between authorization and the rate-limit gate sees each request once, however often it is
        // sent below.
        let passes = Locked<Int>(0)
        var steps: [any ClientMiddleware] = .standard(credentialProvider: BoundProvider())
        steps.insert(CountingStep(count: passes), at: 1)
        let client = APIClient(
            transport: transport,
            configuration: .init(clock: PipelineClock(sleep: { _ in }, now: { testNow }, random: { 0.5 })),
            steps: steps)
        // A POST never retried by the policy: the server refused its proof before doing anything, so it is resent.
        let response = try await client.send(
            APIRequest(method: .post, url: apiURL, options: RequestOptions(allowsRetry: false)))
        #expect(response.attempts == 2)
        #expect(transport.requestCount == 2)
        #expect(passes.current == 1)
    }

    @Test("Nonces are not shared through the process: a client's bound credential without a book uses its client's")
    func noProcessWideBook() async throws {
        let seen = Locked<[String]>([])
        let transport = InMemoryTransport { request, _ in
            seen.withLock { $0.append(request.headerFields[HTTPField.Name("DPoP")!] ?? "") }
            return .json(200, "{}", headers: [("DPoP-Nonce", "given-to-the-first-client")])
        }
        _ = try await makeClient(transport, provider: BoundProvider()).send(APIRequest(method: .get, url: apiURL))
        _ = try await makeClient(transport, provider: BoundProvider()).send(APIRequest(method: .get, url: apiURL))
        #expect(seen.current.count == 2)
        #expect(seen.current.allSatisfy { $0.hasSuffix("nonce=-") }, "\(seen.current)")
    }
}

/// An app's step that counts the requests it sees.
private struct CountingStep: ClientMiddleware {
    let count: Locked<Int>

    func intercept(
        _ request: APIRequest, context: PipelineContext, next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        count.withLock { $0 += 1 }
        return try await next(request)
    }
}
