import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendTesting
import Testing

@testable import MendServer

/// Graceful shutdown: requests in flight finish, then the server stops.
@Suite struct ShutdownTests {
    @Test func gracefulShutdownFinishesTheRequestsInFlight() async throws {
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.sessions.rateLimits = .unlimited
            let baseURL = try await withMendServer(configuration: configuration) { server in
                let client = ServerClient(server.baseURL)
                let fault = try await emulator.inject(
                    FaultRule(kind: .delay, path: "/debug_token", delayMilliseconds: 1000))
                let bodies = [try await emulator.loginCodeBody(), try await emulator.loginCodeBody()]
                let logins = bodies.map { body in
                    Task { try await client.post("/v1/login/code", json: body).json() }
                }
                // Both requests are in flight once the provider has seen both debug_token calls.
                while await emulator.emulator.faults().first(where: { $0.id == fault.id })?.hits ?? 0 < 2 {
                    await Task.yield()
                }
                await server.beginGracefulShutdown()
                for login in logins {
                    let session = try await login.value
                    #expect(session["access_token"]?.stringValue != nil)
                }
                return server.baseURL
            }
            // Stopped: nothing answers any more.
            let client = ServerClient(baseURL)
            let error = await client.failure { try await client.get("/health/live") }
            #expect(error?.domain == .transport)
        }
    }
}
