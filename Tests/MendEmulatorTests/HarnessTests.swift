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
        // Generous: these checks are about what comes back, not how fast; a loaded 2-core machine stalls for seconds.
        configuration.timeoutIntervalForRequest = 120
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Marks a running emulator: a path of its own answers a fault only it knows (graph/368).
    static func mark(_ emulator: RunningEmulator) async throws -> URL {
        let path = "/v25.0/marker-\(UUID().uuidString)"
        try await emulator.inject(error: "graph/368", path: path)
        let (_, data) = try await fetch(emulator.url(path))
        #expect(String(decoding: data, as: UTF8.self).contains("368"))
        return emulator.url(path)
    }

    /// The marked emulator no longer answers. Another server of a test running in parallel may have bound the freed
    /// port since — then it answers, but not with the marker's fault.
    static func expectGone(_ marker: URL) async {
        do {
            let (_, data) = try await fetch(marker)
            #expect(!String(decoding: data, as: UTF8.self).contains("368"), "the emulator still answers")
        } catch {
            // Nothing listens any more.
        }
    }

    @Test func withEmulatorServesOnLoopbackAndShutsDown() async throws {
        let marker = try await withEmulator { emulator in
            #expect(emulator.baseURL.host == "127.0.0.1")
            #expect(emulator.baseURL.port != 0)
            let token = try await emulator.token()
            let (status, data) = try await Self.fetch(emulator.url("/v25.0/me?access_token=\(token)"))
            #expect(status == 200)
            #expect(String(decoding: data, as: UTF8.self).contains("Alice Example"))
            #expect(emulator.graphURL.absoluteString.hasSuffix("/v25.0"))
            return try await Self.mark(emulator)
        }
        await Self.expectGone(marker)
    }

    @Test func withEmulatorShutsDownWhenTheBodyThrows() async throws {
        struct Planned: Error {}
        var seen: URL?
        await #expect(throws: Planned.self) {
            try await withEmulator { emulator in
                seen = try await Self.mark(emulator)
                throw Planned()
            }
        }
        await Self.expectGone(try #require(seen))
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
