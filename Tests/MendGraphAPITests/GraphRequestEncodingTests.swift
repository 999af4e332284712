import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendGraphAPI
import MendHTTP
import Testing

/// What a Graph request puts on the wire: parameters form-encoded (MendCore's one encoder), non-ASCII as UTF-8 escapes.
@Suite("Graph request encoding")
struct GraphRequestEncodingTests {
    static func client(_ transport: InMemoryTransport) -> GraphClient {
        let configuration = GraphClient.Configuration(graphURL: URL(string: "http://127.0.0.1:1")!)
        return GraphClient(
            transport: transport, configuration: configuration,
            steps: .graph(for: configuration, credentials: StaticCredential(token: "EAAtoken")))
    }

    @Test("A POST's form body escapes non-ASCII letters and the form's own characters")
    func postBody() async throws {
        let transport = InMemoryTransport(replies: [.json(200, #"{"id":"1_2"}"#)])
        _ = try await Self.client(transport).send(
            GraphRequest(path: "me/feed", parameters: ["message": "Café & crème = 2+2"], method: .post))
        let body = try #require(transport.requests.first?.body)
        #expect(String(decoding: body, as: UTF8.self) == "message=Caf%C3%A9%20%26%20cr%C3%A8me%20%3D%202%2B2")
    }

    @Test("A GET's query escapes them the same way, in a stable order")
    func getQuery() async throws {
        let transport = InMemoryTransport(replies: [.json(200, #"{"data":[]}"#)])
        _ = try await Self.client(transport).send(
            GraphRequest(path: "search", parameters: ["q": "über", "type": "place"], fields: ["id", "name"]))
        let path = try #require(transport.requests.first?.head.path)
        #expect(path == "/\(GraphAPI.defaultVersion)/search?fields=id%2Cname&q=%C3%BCber&type=place")
    }
}
