import Foundation
import MendCore
import MendEmulator
import MendTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `withEmulator` runs the emulator live on 127.0.0.1 and always shuts it down; connection faults need a socket.
struct HarnessTests {
    static func fetch(_ url: URL) async throws -> (Int, Data) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func withEmulatorServesOnLoopbackAndShutsDown() async throws {
        let url = try await withEmulator { emulator in
            #expect(emulator.baseURL.host == "127.0.0.1")
            #expect(emulator.baseURL.port != 0)
            let token = try await emulator.token()
            let (status, data) = try await Self.fetch(emulator.url("/v25.0/me?access_token=\(token)"))
            #expect(status == 200)
            #expect(String(decoding: data, as: UTF8.self).contains("Alice Example"))
            #expect(emulator.graphURL.absoluteString.hasSuffix("/v25.0"))
            return emulator.baseURL
        }
        await #expect(throws: (any Error).self) { _ = try await Self.fetch(url.appendingPathComponent("me")) }
    }

    @Test func withEmulatorShutsDownWhenTheBodyThrows() async throws {
        struct Planned: Error {}
        var seen: URL?
        await #expect(throws: Planned.self) {
            try await withEmulator { emulator in
                seen = emulator.baseURL
                throw Planned()
            }
        }
        let url = try #require(seen)
        await #expect(throws: (any Error).self) { _ = try await Self.fetch(url.appendingPathComponent("me")) }
    }

    @Test func droppedAndCutConnectionsReachTheClientAsTransportFailures() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.token()
            try await emulator.inject(FaultRule(kind: .drop, path: "/me", times: 1))
            await #expect(throws: (any Error).self) {
                _ = try await Self.fetch(emulator.url("/v25.0/me?access_token=\(token)"))
            }
            try await emulator.inject(FaultRule(kind: .connectionLost, path: "/me/feed", times: 1))
            await #expect(throws: (any Error).self) {
                _ = try await Self.fetch(emulator.url("/v25.0/me/feed?access_token=\(token)"))
            }
            let (status, _) = try await Self.fetch(emulator.url("/v25.0/me?access_token=\(token)"))
            #expect(status == 200)
            let log = await emulator.requestLog()
            #expect(log.first?.status == 0)
            #expect(log.first?.faultID != nil)
        }
    }

    @Test func delaysAreReal() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.token()
            try await emulator.inject(FaultRule(kind: .delay, path: "/me", delayMilliseconds: 300, times: 1))
            let clock = ContinuousClock()
            let start = clock.now
            let (status, _) = try await Self.fetch(emulator.url("/v25.0/me?access_token=\(token)"))
            #expect(status == 200)
            #expect(clock.now - start >= .milliseconds(300))
        }
    }
}
