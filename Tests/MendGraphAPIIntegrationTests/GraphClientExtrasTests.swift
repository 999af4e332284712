import Foundation
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendTesting
import Testing

@Suite("Graph client: the provider's error configuration, dependent batches, slowing down")
struct GraphClientExtrasTests {
    /// A client of the emulator's default app that fetches the provider's error configuration.
    static func fetchingClient(_ emulator: RunningEmulator) async throws -> GraphClient {
        let app = emulator.emulator.configuration.defaultApp
        return GraphClient(
            transport: AsyncHTTPClientTransport(),
            configuration: .init(
                graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion, appID: app.id,
                fetchesErrorConfiguration: true, errorConfigurationToken: "\(app.id)|\(app.secret)"),
            credentials: StaticCredential(token: try await emulator.token()))
    }

    @Test("The error configuration is fetched from the app node and merged over the catalog")
    func errorConfiguration() async throws {
        try await withEmulator { emulator in
            let app = emulator.emulator.configuration.defaultApp
            let client = try await Self.fetchingClient(emulator)
            let catalog = try await client.refreshErrorConfiguration()
            // The provider's configuration names 102 and 190 as login-recoverable, as the vendor SDK's does.
            #expect(MendError(code: .Graph.accessTokenInvalid, catalog: catalog).category == .recoverable)
            #expect(await emulator.requestLog().contains { $0.path.hasSuffix("/\(app.id)") })
        }
    }

    @Test("20 concurrent first calls fetch the error configuration once")
    func errorConfigurationSingleFlight() async throws {
        try await withEmulator { emulator in
            let app = emulator.emulator.configuration.defaultApp
            let client = try await Self.fetchingClient(emulator)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { _ = try await client.send(GraphRequest(path: "me")) } }
                try await group.waitForAll()
            }
            let fetches = await emulator.requestLog().filter { $0.path.hasSuffix("/\(app.id)") }
            #expect(fetches.count == 1)
            #expect(MendError(code: .Graph.accessTokenInvalid, catalog: client.catalog).category == .recoverable)
        }
    }

    @Test("Batch items can depend on earlier ones by name")
    func dependentBatch() async throws {
        try await withEmulator { emulator in
            let client = graphClient(emulator, tokens: StaticCredential(token: try await emulator.token()))
            let results = try await client.send(
                GraphBatch([
                    .init(GraphRequest(path: "me", fields: ["id"]), name: "me"),
                    .init(GraphRequest(path: "{result=me:$.id}", fields: ["id", "name"])),
                ]))
            #expect(results.count == 2)
            guard case .omitted = results[0] else {
                Issue.record("a named item that succeeded is omitted by default, got \(results[0])")
                return
            }
            #expect(results[1].body?["name"] != nil, "\(results[1])")
        }
    }

    @Test("Above the slow-down threshold, requests wait before going out")
    func slowDown() async throws {
        try await withEmulator { emulator in
            let waits = Waits()
            let usage = #"{"call_count":95,"total_cputime":10,"total_time":10}"#
            try await emulator.inject(
                FaultRule(kind: .delay, path: "/me", headers: ["X-App-Usage": usage], delayMilliseconds: 0))
            let configuration = GraphClient.Configuration(
                graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion,
                clock: PipelineClock(sleep: waits.sleep))
            let client = GraphClient(
                transport: AsyncHTTPClientTransport(), configuration: configuration,
                steps: .graph(
                    for: configuration, credentials: StaticCredential(token: try await emulator.token()),
                    slowDownAbove: 0.9))
            _ = try await client.send(GraphRequest(path: "me"))
            #expect(client.latestUsage?.app?.callCount == 95)
            _ = try await client.send(GraphRequest(path: "me"))
            #expect(waits.all.count == 1)
            // 95 % is half-way from 90 % to 100 %: half of the five-second longest delay.
            #expect(waits.all.first.map { $0 >= .seconds(2) && $0 <= .seconds(3) } == true)
        }
    }
}
