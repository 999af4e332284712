import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import Testing

@testable import MendGraphQL

/// A GraphQL request's logical span is named and described as OpenTelemetry's GraphQL conventions say (issue 39: it was
/// named `POST` alone): `{graphql.operation.type} {graphql.operation.name}`, or the type alone; never the document.
@Suite struct OperationTelemetryTests {
    @Test(
        "The operation's span name and attributes",
        arguments: [
            ("query PostList { posts { id } }", nil, "query PostList", ["query", "PostList"]),
            ("{ me { name } }", nil, "query", ["query", nil]),
            ("mutation Like { like(id: \"1\") { id } }", nil, "mutation Like", ["mutation", "Like"]),
            ("query Q { me { id } } mutation M { like(id: \"1\") { id } }", "M", "mutation M", ["mutation", "M"]),
        ] as [(String, String?, String, [String?])])
    func named(text: String, operationName: String?, span: String, attributes: [String?]) throws {
        let observed = try #require(GraphQLOperation(text, operationName: operationName).observed)
        #expect(observed.name == span)
        #expect(observed.attributes["graphql.operation.type"] == attributes[0])
        #expect(observed.attributes["graphql.operation.name"] == attributes[1])
        #expect(!observed.attributes.values.contains { $0.contains("{") }, "never the document")
    }

    @Test("A document that does not say which operation runs gets no GraphQL name (the span stays HTTP's)")
    func uncertain() {
        #expect(GraphQLOperation("query Q { a } mutation M { b }").observed == nil)
        #expect(GraphQLOperation("{ me { name }").observed == nil)
    }

    @Test("The client puts the operation on the request it sends, by POST and by GET")
    func onTheRequest() throws {
        for usesGET in [false, true] {
            let client = GraphQLClient(
                endpoint: URL(string: "https://api.example/graphql")!, transport: InMemoryTransportStub(),
                configuration: .init(usesGETForQueries: usesGET))
            let request = try client.makeRequest(
                GraphQLOperation("query PostList { posts { id } }"), includingText: true)
            #expect(request.options.operation?.name == "query PostList")
        }
    }
}

/// A transport that is never called.
private struct InMemoryTransportStub: HTTPTransport {
    func send(_ request: HTTPRequest, body: HTTPBody?, timeout: Duration?) async throws -> (HTTPResponse, HTTPBody) {
        throw CancellationError()
    }
}
