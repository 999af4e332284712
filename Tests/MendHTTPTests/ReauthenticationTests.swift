import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP
import MendLogin
import Testing

/// Answers 401 to the first token and 200 to the refreshed one.
func tokenCheckingTransport() -> InMemoryTransport {
    InMemoryTransport { request, _ in
        let authorization = request.headerFields[.authorization] ?? ""
        let query = request.path ?? ""
        if authorization.hasSuffix("BBBBBBBBBBBBBBBBB2") || query.contains("BBBBBBBBBBBBBBBBB2") {
            return .json(200, #"{"ok":true}"#)
        }
        return .json(401, #"{"message":"token expired"}"#)
    }
}

@Suite("Re-authentication")
struct ReauthenticationTests {
    @Test("1,000 concurrent rejections cause exactly one refresh, and each request is replayed once")
    func singleFlight() async throws {
        let transport = tokenCheckingTransport()
        let provider = RotatingProvider()
        let client = makeClient(transport, provider: provider)
        let attempts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 {
                group.addTask { try await client.send(APIRequest(method: .get, url: apiURL)).attempts }
            }
            var all: [Int] = []
            for try await attempts in group { all.append(attempts) }
            return all
        }
        #expect(provider.refreshes.current == 1)
        #expect(attempts.count == 1000)
        #expect(attempts.allSatisfy { $0 == 2 })
        #expect(transport.requestCount == 2000)
    }

    @Test("A refresh that fails fails every waiter with the refresh error")
    func refreshFails() async throws {
        let refreshError = MendError(
            code: .Login.passwordChanged, developerMessage: "refresh rejected", catalog: .everyClientSpace)
        // The refresh ends only after all 50 requests were rejected (not after a fixed number of yields, which a slow
        // machine or the thread sanitizer outlasts).
        let transport = tokenCheckingTransport()
        let provider = RotatingProvider(failure: refreshError, holdUntil: { transport.requestCount >= 50 })
        let client = makeClient(transport, provider: provider)
        let errors = await withTaskGroup(of: MendError?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do {
                        _ = try await client.send(APIRequest(method: .get, url: apiURL))
                        return nil
                    } catch {
                        return error as? MendError
                    }
                }
            }
            var all: [MendError?] = []
            for await error in group { all.append(error) }
            return all
        }
        #expect(errors.allSatisfy { $0?.code == .Login.passwordChanged })
        #expect(provider.refreshes.current == 1)
    }

    @Test("A second rejection is returned, never looped")
    func noLoop() async throws {
        let transport = InMemoryTransport(replies: [.json(401, #"{"message":"no"}"#)])
        let provider = RotatingProvider()
        let error = try await #require(throws: MendError.self) {
            try await makeClient(transport, provider: provider).send(APIRequest(method: .get, url: apiURL))
        }
        #expect(error.code == .HTTP.unauthorized)
        #expect(error.attempts == 2)
        #expect(transport.requestCount == 2)
        #expect(provider.refreshes.current == 1)
    }

    @Test("Off globally, off per request, and never for a token override")
    func switchedOff() async throws {
        let provider = RotatingProvider()
        let globallyOff = makeClient(tokenCheckingTransport(), provider: provider, reauthentication: false)
        await #expect(throws: MendError.self) { try await globallyOff.send(APIRequest(method: .get, url: apiURL)) }
        let client = makeClient(tokenCheckingTransport(), provider: provider)
        let perRequest = APIRequest(method: .get, url: apiURL, options: .init(credentialRejection: .keep))
        await #expect(throws: MendError.self) { try await client.send(perRequest) }
        let override = APIRequest(
            method: .get, url: apiURL,
            options: .init(credentialOverride: Credential(token: "EAAoverrideCCCCCCCCCCCCCCC3")))
        await #expect(throws: MendError.self) { try await client.send(override) }
        #expect(provider.refreshes.current == 0)
    }

    @Test("Query-parameter credentials replace the old token in the replay")
    func queryPlacement() async throws {
        let transport = tokenCheckingTransport()
        let provider = RotatingProvider(placement: .queryParameter(name: "access_token"))
        let url = URL(string: "https://graph.example/v25.0/me?fields=id")!
        _ = try await makeClient(transport, provider: provider).send(APIRequest(method: .get, url: url))
        let paths = transport.requests.compactMap(\.head.path)
        #expect(paths.count == 2)
        #expect(paths[1].hasPrefix("/v25.0/me?fields=id&access_token=EAAtokenBBBB"))
        #expect(!paths[1].contains("AAAAA1"))
    }

    @Test("Only recoverable re-authentication errors refresh: a checkpoint or a permission error does not")
    func onlyReauthenticationErrors() async throws {
        let checkpoint = #"{"message":"checkpoint"}"#
        let transport = InMemoryTransport(replies: [.json(403, checkpoint)])
        let provider = RotatingProvider()
        await #expect(throws: MendError.self) {
            try await makeClient(transport, provider: provider).send(APIRequest(method: .get, url: apiURL))
        }
        #expect(provider.refreshes.current == 0)
    }
}
