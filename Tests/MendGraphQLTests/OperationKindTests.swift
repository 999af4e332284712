import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@testable import MendGraphQL

@Suite("The operation's kind comes from the document's definitions, never from its first keyword")
struct OperationKindTests {
    @Test(
        "Documents and the kind they run",
        arguments: [
            ("{ me { name } }", nil, GraphQLOperation.Kind?.some(.query)),
            ("query { me { name } }", nil, .query),
            ("query Me($id: ID = \"x\") @cached(ttl: 5) { me { name } }", nil, .query),
            ("mutation Like { like(id: \"1\") { id } }", nil, .mutation),
            ("subscription S { events { id } }", nil, .subscription),
            // A fragment first used to make a mutation look like a query.
            ("fragment F on User { id } mutation M { like(id: \"1\") { ...F } }", nil, .mutation),
            ("fragment F on User @dir(a: [1, 2]) { id ... on User { name } } query Q { me { ...F } }", nil, .query),
            // Several operations: operationName picks one; without it the document does not say.
            ("query Q { me { id } } mutation M { like(id: \"1\") { id } }", "M", .mutation),
            ("query Q { me { id } } mutation M { like(id: \"1\") { id } }", "Q", .query),
            ("query Q { me { id } } mutation M { like(id: \"1\") { id } }", nil, nil),
            ("query Q { me { id } } mutation M { like(id: \"1\") { id } }", "Nope", nil),
            ("query Q { a } query Q { b }", "Q", nil),
            // Keywords inside comments, strings and block strings are content, not structure.
            ("# mutation M { x }\n{ me { name } }", nil, .query),
            ("{ search(text: \"} mutation M { x \") { id } }", nil, .query),
            ("{ search(text: \"\"\"\n} mutation { x }\n\\\"\"\" still inside \"\"\") { id } }", nil, .query),
            ("# { \n mutation M { like(id: \"1\") { id } }", nil, .mutation),
            // An operation may be named after a keyword.
            ("query mutation { me { id } }", nil, .query),
            ("query Q($v: In = {a: \"}\", b: [1]}) { me { id } }", nil, .query),
            ("\u{FEFF}, ,{ me { id } }", nil, .query),
            // Anything malformed or not executable: not certain.
            ("{ me { name }", nil, nil),
            ("{ me } }", nil, nil),
            ("{ search(text: \"unterminated) }", nil, nil),
            ("type Query { me: User }", nil, nil),
            ("", nil, nil),
            ("mutation", nil, nil),
            ("{ a } garbage", nil, nil),
            ("query Q { a } ~", nil, nil),
        ] as [(String, String?, GraphQLOperation.Kind?)])
    func kinds(text: String, operationName: String?, expected: GraphQLOperation.Kind?) {
        #expect(GraphQLDocumentScanner.kind(of: text, operationName: operationName) == expected)
        let operation = GraphQLOperation(text, operationName: operationName)
        #expect(operation.kind == (expected ?? .mutation), "not certainly a query is treated as a write")
    }

    /// The server answers 503 to the first request: a query is retried, a mutation behind a fragment is not (the
    /// server may have processed it: a retry would write twice), and neither goes out as GET when it is a write.
    @Test("A mutation behind a fragment, or picked by operationName, is POSTed and not retried after a 503")
    func mutationsAreNotRetried() async throws {
        let documents: [(GraphQLOperation, expectedRequests: Int)] = [
            (GraphQLOperation("{ me { id } }"), 2),
            (GraphQLOperation("fragment F on User { id } mutation M { like(id: \"1\") { ...F } }"), 1),
            (GraphQLOperation("query Q { me { id } } mutation M { like(id: \"1\") { id } }", operationName: "M"), 1),
            (GraphQLOperation("query Q { me { id } } mutation M { like(id: \"1\") { id } }"), 1),
        ]
        for (operation, expectedRequests) in documents {
            let transport = InMemoryTransport(replies: [
                .json(503, #"{"errors":[{"message":"busy"}]}"#), .json(200, #"{"data":{"me":{"id":"1"}}}"#),
            ])
            let client = GraphQLClient(
                endpoint: URL(string: "http://127.0.0.1:1/graphql")!, transport: transport,
                configuration: .init(usesGETForQueries: true, clock: PipelineClock(sleep: { _ in })))
            _ = try? await client.send(operation)
            #expect(transport.requestCount == expectedRequests, "\(operation.text)")
            let method = transport.requests.first?.head.method
            #expect(method == (operation.kind == .query ? .get : .post), "\(operation.text)")
        }
    }

    @Test("missing_permission in a FORBIDDEN error becomes the permissions its recovery requests")
    func missingPermission() throws {
        let classifier = GraphQLErrorClassifier()
        func error(_ extensions: String) throws -> MendError {
            let json = try JSONValue.parse(
                Data(#"{"message":"no","extensions":{"code":"FORBIDDEN",\#(extensions)}}"#.utf8)
            ).get()
            return classifier.error(for: try #require(GraphQLError(json: json)))
        }
        #expect(try error(#""missing_permission":"email""#).recovery.permissions == ["email"])
        #expect(
            try error(#""missing_permissions":["email","user_posts"]"#).recovery.permissions == ["email", "user_posts"])
        #expect(try error(#""missing_permission":"<script>alert(1)</script>""#).recovery.permissions.isEmpty)
        #expect(try error(#""other":1"#).recovery.permissions.isEmpty)
    }
}
