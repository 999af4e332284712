import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// Ending a DPoP-bound session with one of its tokens alone: a thief who holds a bound token but not its key ends
/// nothing — at the revocation endpoint (RFC 7009) the answer is the one an unknown token gets; at refresh and logout
/// an earlier refresh token (a reuse) is refused as the current one is.
@Suite("Ending a bound session needs its key")
struct DPoPRevocationTests {
    /// Which of a bound session's tokens the thief presents.
    enum Stolen: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case refreshToken
        case accessToken
        case earlierRefreshToken

        var testDescription: String { rawValue }
    }

    /// `POST /v1/session/revoke` of `token` (a form) with the `DPoP` header `proof`.
    private func revoke(_ stack: TestStack, _ token: String, proof: String?) async throws -> APIResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let proof { headers[.dpop] = proof }
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try await stack.client.client.send(
            APIRequest(
                method: .post, url: stack.client.url("/v1/session/revoke"), headers: headers,
                body: Data("token=\(encoded)".utf8), options: RequestOptions(expectsJSON: false)))
    }

    /// Whether the bound session of `access` still answers its own check.
    private func isAlive(_ client: ProvingClient, _ access: String) async -> Bool {
        let answer = try? await client.get(
            "/v1/session", token: access, proof: try client.proof("GET", "/v1/session", accessToken: access))
        return answer?["valid"] == .bool(true)
    }

    @Test(
        "Revoking a bound token without a proof of its key, or with another key's, is answered as an unknown token and ends nothing; with its key it ends the session",
        arguments: Stolen.allCases)
    func revocationNeedsTheKey(stolen: Stolen) async throws {
        try await TestStack.run { stack in
            let client = try ProvingClient(stack.server.baseURL)
            let first = try await client.login(stack.emulator)
            var session = first
            if stolen == .earlierRefreshToken {
                // Rotated once: the first refresh token is an earlier one of the family, still naming the session.
                session = try await client.post(
                    "/v1/session/refresh", json: .object(["refresh_token": first["refresh_token"]!]),
                    proof: try client.proof("POST", "/v1/session/refresh"))
            }
            let access = try #require(session["access_token"]?.stringValue)
            let token = try #require(
                (stolen == .accessToken ? first["access_token"] : first["refresh_token"])?.stringValue)

            let unknown = try await revoke(stack, "mrt_unknown", proof: nil)
            let thief = try ProvingClient(stack.server.baseURL)
            for proof in [nil, try thief.proof("POST", "/v1/session/revoke")] {
                let answer = try await revoke(stack, token, proof: proof)
                #expect(answer.head.status == unknown.head.status, "proof: \(proof != nil)")
                #expect(answer.body == unknown.body)
                #expect(answer.head.headerFields[.cacheControl] == unknown.head.headerFields[.cacheControl])
                #expect(await isAlive(client, access), "the session stays (proof: \(proof != nil))")
            }
            let sessionID = try #require(session["session_id"]?.stringValue)
            let row = try #require(try await stack.server.backend.store.sessions.session(id: sessionID))
            #expect(row.revokedAt == nil)

            // The key's holder revokes it.
            let revoked = try await revoke(stack, token, proof: try client.proof("POST", "/v1/session/revoke"))
            #expect(revoked.head.status.code == 200)
            #expect(!(await isAlive(client, access)), "the session ended")
        }
    }

    @Test(
        "A bound session's earlier refresh token without a proof of its key ends nothing at refresh or logout (refused as the current one is); with its key, the reuse ends the session"
    )
    func reuseNeedsTheKey() async throws {
        try await TestStack.run { stack in
            let client = try ProvingClient(stack.server.baseURL)
            let first = try await client.login(stack.emulator)
            // Rotated twice: the first refresh token's successor is used, so presenting it again is a reuse.
            var session = first
            for _ in 0..<2 {
                session = try await client.post(
                    "/v1/session/refresh", json: .object(["refresh_token": session["refresh_token"]!]),
                    proof: try client.proof("POST", "/v1/session/refresh"))
            }
            let access = try #require(session["access_token"]?.stringValue)
            let earlier: JSONValue = .object(["refresh_token": first["refresh_token"]!])
            let thief = try ProvingClient(stack.server.baseURL)

            for proof in [nil, try thief.proof("POST", "/v1/session/refresh")] {
                let refused = await stack.client.failure {
                    try await thief.post("/v1/session/refresh", json: earlier, proof: proof)
                }
                #expect(refused?.isDPoPRefusal() == true, "refresh: \(String(describing: refused))")
                #expect(await isAlive(client, access), "after a refresh (proof: \(proof != nil))")
            }
            for proof in [nil, try thief.proof("POST", "/v1/session/logout")] {
                var headers = HTTPFields()
                if let proof { headers[.dpop] = proof }
                let refused = await stack.client.failure {
                    try await stack.client.post(
                        "/v1/session/logout", json: earlier, headers: headers, expectsJSON: false)
                }
                #expect(refused?.isDPoPRefusal() == true, "logout: \(String(describing: refused))")
                #expect(await isAlive(client, access), "after a logout (proof: \(proof != nil))")
            }

            // The key's holder presenting an earlier token is a reuse: the family is revoked.
            let reused = await stack.client.failure {
                try await client.post(
                    "/v1/session/refresh", json: earlier, proof: try client.proof("POST", "/v1/session/refresh"))
            }
            #expect(reused?.code == .Session.refreshTokenReused, "\(String(describing: reused))")
            #expect(!(await isAlive(client, access)))
        }
    }
}
