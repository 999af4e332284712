import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendGraphQL
import MendHTTP
import Testing

private let endpoint = URL(string: "https://api.example/graphql")!
private let alice = Principal(subject: "alice", issuer: "backend")

/// A GraphQL server whose next answer the test sets, counting what it is asked.
private final class Server: Sendable {
    let reply = Locked<InMemoryTransport.Reply>(.json(200, #"{"data":{"me":{"name":"Alice"}}}"#))
    let transport: InMemoryTransport

    init() {
        let reply = self.reply
        transport = InMemoryTransport { _, _ in reply.current }
    }

    func set(_ next: InMemoryTransport.Reply) { reply.withLock { $0 = next } }
}

private struct Me: Decodable, Sendable, Equatable {
    struct User: Decodable, Sendable, Equatable { var name: String? }
    var me: User?
}

private func client(_ server: Server, store: InMemoryResponseStore, principal: Principal? = alice) -> GraphQLClient {
    GraphQLClient(
        endpoint: endpoint, transport: server.transport,
        configuration: .init(clock: PipelineClock(sleep: { _ in }, now: { Date() }, random: { 0.5 })),
        credentials: StaticCredential(token: "EAAaliceTOKENaaaaaaaaaaaa1", principal: principal),
        lastKnownGood: LastKnownGood(store: store))
}

private func query(_ policy: GraphQLClient.CachePolicy, maxStale: Duration? = nil) -> GraphQLOperation {
    GraphQLOperation("query Me { me { name } }", variables: ["v": .int(1)], cachePolicy: policy, maxStale: maxStale)
}

@Suite("GraphQL cache policies (Apollo's, for whole responses)")
struct CachePolicyTests {
    @Test("networkOnly fetches and stores; cacheFirst then answers from the store without sending")
    func cacheFirst() async throws {
        let server = Server()
        let store = InMemoryResponseStore()
        let graphQL = client(server, store: store)
        let fetched = try await graphQL.send(query(.networkOnly), as: Me.self)
        #expect(fetched.source == .network && fetched.data?.me?.name == "Alice")
        let stored = try await graphQL.send(query(.cacheFirst), as: Me.self)
        #expect(stored.source == .store && stored.data?.me?.name == "Alice")
        #expect(server.transport.requestCount == 1)
        // Other variables are another entry: cacheFirst goes to the network.
        var other = query(.cacheFirst)
        other.variables = ["v": .int(2)]
        _ = try await graphQL.send(other, as: Me.self)
        #expect(server.transport.requestCount == 2)
    }

    @Test("two endpoints sharing a store keep their answers apart")
    func endpointsApart() async throws {
        let server = Server()
        let store = InMemoryResponseStore()
        _ = try await client(server, store: store).send(query(.networkOnly), as: Me.self)
        let other = GraphQLClient(
            endpoint: URL(string: "https://other.example/graphql")!, transport: server.transport,
            credentials: StaticCredential(token: "EAAaliceTOKENaaaaaaaaaaaa1", principal: alice),
            lastKnownGood: LastKnownGood(store: store))
        let error = await #expect(throws: MendError.self) { try await other.send(query(.cacheOnly), as: Me.self) }
        #expect(error?.code == .Transport.notCached)
    }

    @Test("cacheOnly: the stored response, else notCached (transport/17), never a request")
    func cacheOnly() async throws {
        let server = Server()
        let graphQL = client(server, store: InMemoryResponseStore())
        let error = await #expect(throws: MendError.self) { try await graphQL.send(query(.cacheOnly), as: Me.self) }
        #expect(error?.code == .Transport.notCached)
        #expect(server.transport.requestCount == 0)
        _ = try await graphQL.send(query(.networkOnly), as: Me.self)
        #expect(try await graphQL.send(query(.cacheOnly), as: Me.self).source == .store)
        #expect(server.transport.requestCount == 1)
    }

    @Test("noCache neither reads nor stores")
    func noCache() async throws {
        let server = Server()
        let store = InMemoryResponseStore()
        let graphQL = client(server, store: store)
        _ = try await graphQL.send(query(.noCache), as: Me.self)
        #expect(store.count == 0)
    }

    @Test("cacheAndNetwork yields the stored response, then the network's")
    func cacheAndNetwork() async throws {
        let server = Server()
        let graphQL = client(server, store: InMemoryResponseStore())
        _ = try await graphQL.send(query(.networkOnly), as: Me.self)
        server.set(.json(200, #"{"data":{"me":{"name":"Alice B."}}}"#))
        var results: [(APIResponse.Source, String?)] = []
        for try await response in graphQL.responses(query(.cacheAndNetwork), as: Me.self) {
            results.append((response.source, response.data?.me?.name))
        }
        #expect(results.map(\.0) == [.store, .network])
        #expect(results.map(\.1) == ["Alice", "Alice B."])
    }

    @Test("a partial response is stored as it came, data and errors, and served as such")
    func partialData() async throws {
        let server = Server()
        let graphQL = client(server, store: InMemoryResponseStore())
        server.set(
            .json(
                200,
                #"{"data":{"me":{"name":null}},"errors":[{"message":"name unavailable","path":["me","name"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}"#
            ))
        _ = try await graphQL.send(query(.networkOnly), as: Me.self)
        let stored = try await graphQL.send(query(.cacheOnly), as: Me.self)
        #expect(stored.source == .store)
        #expect(stored.errors.map(\.message) == ["name unavailable"])
        #expect(stored.nulledPaths == ["me.name"])
    }

    @Test("a transient failure is answered stale within maxStale; an UNAUTHENTICATED answer never is")
    func staleOnlyForTransient() async throws {
        let server = Server()
        let graphQL = client(server, store: InMemoryResponseStore())
        _ = try await graphQL.send(query(.networkOnly, maxStale: .seconds(600)), as: Me.self)
        server.set(.json(503, #"{"errors":[{"message":"down"}]}"#))
        let stale = try await graphQL.send(query(.networkOnly, maxStale: .seconds(600)), as: Me.self)
        #expect(stale.source == .store && stale.staleness != nil && stale.data?.me?.name == "Alice")
        server.set(.json(200, #"{"errors":[{"message":"who?","extensions":{"code":"UNAUTHENTICATED"}}]}"#))
        let refused = try await graphQL.send(query(.networkOnly, maxStale: .seconds(600)), as: Me.self)
        #expect(refused.source == .network && refused.data == nil)
    }

    @Test("an entry that is not a GraphQL response is invalidCacheData under cacheOnly, and dropped")
    func invalidEntry() async throws {
        let server = Server()
        let store = InMemoryResponseStore()
        let graphQL = client(server, store: store)
        server.set(.json(200, #"{"data":{"me":{"name":"Alice"}}}"#))
        _ = try await graphQL.send(query(.networkOnly), as: Me.self)
        // Replace the stored body with something that is not a GraphQL response.
        let key = try #require(await store.keys().first)
        try await store.store(
            StoredAnswer(status: 200, headerFields: [:], body: Data("[1,2]".utf8), storedAt: Date()), for: key)
        let error = await #expect(throws: MendError.self) { try await graphQL.send(query(.cacheOnly), as: Me.self) }
        #expect(error?.code == .Transport.invalidCacheData)
        #expect(store.count == 0)
        // Under cacheFirst the same damage is not fatal: the network answers.
        _ = try await graphQL.send(query(.networkOnly), as: Me.self)
        try await store.store(
            StoredAnswer(status: 200, headerFields: [:], body: Data("[1,2]".utf8), storedAt: Date()), for: key)
        #expect(try await graphQL.send(query(.cacheFirst), as: Me.self).source == .network)
    }

    @Test("mutations are never stored or answered from the store")
    func mutations() async throws {
        let server = Server()
        let store = InMemoryResponseStore()
        let graphQL = client(server, store: store)
        _ = try await graphQL.send(
            GraphQLOperation("mutation { like }", cachePolicy: .cacheFirst, maxStale: .seconds(600)), as: JSONValue.self
        )
        #expect(store.count == 0)
    }
}
