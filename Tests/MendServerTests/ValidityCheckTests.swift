import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// The background re-check of stored provider tokens with debug_token.
@Suite struct ValidityCheckTests {
    @Test(arguments: TestDatabase.available)
    func invalidTokensEndTheUsersSessionsWithTheReason(_ database: TestDatabase) async throws {
        try await TestStack.run(
            database: database, configure: { $0.providers.facebook?.validityCheckInterval = .seconds(86400) }
        ) {
            stack in
            let alice = try await stack.login()
            let bob = try await stack.login(userID: "100000000000002")
            let fresh = await stack.server.backend.checkProviderTokens()
            #expect(fresh == ValidityCheckReport(checked: 0, invalidated: 0, failed: 0))  // just checked at login

            try await stack.emulator.setUserState(.passwordChanged)  // Alice
            let report = await stack.server.backend.checkProviderTokens(force: true)
            #expect(report == ValidityCheckReport(checked: 2, invalidated: 1, failed: 0))
            let error = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: alice["access_token"]!.stringValue!)
            }
            #expect(error?.isSession(.Session.providerAccessRevoked) == true)
            #expect(error?.developerMessage.contains("provider token invalid (graph.190.460") == true)
            _ = try await stack.client.get("/v1/session", bearer: bob["access_token"]!.stringValue!)
            let refresh = await stack.client.failure {
                try await stack.client.post(
                    "/v1/session/refresh", json: .object(["refresh_token": alice["refresh_token"]!]))
            }
            #expect(refresh?.isSession(.Session.providerAccessRevoked) == true)
            #expect(refresh?.developerMessage.contains("190") == true)

            // Alice's token is gone: she is not checked again; a day later Bob is.
            stack.clock.advance(by: 86400)
            let next = await stack.server.backend.checkProviderTokens()
            #expect(next == ValidityCheckReport(checked: 1, invalidated: 0, failed: 0))
        }
    }

    @Test func aProviderOutageInvalidatesNothing() async throws {
        try await TestStack.run { stack in
            let alice = try await stack.login()
            try await stack.emulator.inject(error: "graph/2", path: "/debug_token")
            let report = await stack.server.backend.checkProviderTokens(force: true)
            #expect(report == ValidityCheckReport(checked: 1, invalidated: 0, failed: 1))
            _ = try await stack.client.get("/v1/session", bearer: alice["access_token"]!.stringValue!)
        }
    }
}
