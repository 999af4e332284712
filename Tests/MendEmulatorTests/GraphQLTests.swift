import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphQL
import Testing

/// `POST /graphql`: partial data, spec-shaped errors, null bubbling and a fully null `data`.
struct GraphQLTests {
    func query(_ client: Client, _ text: String, token: String?) async throws -> (Reply, GraphQLResponseBody) {
        let body = try JSONValue.object(["query": .string(text)]).jsonText()
        let reply = try await client.postJSON(
            "/graphql", body, headers: token.map { [.authorization: "Bearer \($0)"] } ?? [:])
        let parsed = try GraphQLResponseBody(json: try #require(reply.json))
        return (reply, parsed)
    }

    @Test(arguments: [Mode.router, .live])
    func forbiddenFieldGivesPartialDataWithALocatedError(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, emulator in
            let token = try await emulator.issueToken(userID: carol, scopes: [])
            let (reply, body) = try await query(client, "{ me { id name email } }", token: token)
            #expect(reply.status == 200)
            #expect(body.data?["me"]?["name"]?.stringValue == "Carol Example")
            #expect(body.data?["me"]?["email"] == .null)
            let error = try #require(body.errors.first)
            #expect(error.code == "FORBIDDEN")
            #expect(error.pathText == "me.email")
            #expect(error.locations == [GraphQLError.Location(line: 1, column: 16)])
            let mend = GraphQLErrorClassifier().error(for: error)
            #expect(mend.code == .GraphQL.forbidden)
            #expect(mend.category == .recoverable)
        }
    }

    @Test func nonNullFailuresBubbleToTheNearestNullableParent() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, scopes: ["email"])
            let (_, body) = try await query(
                client, "{ me { id secretNote } user(id: \"\(bob)\") { name } }", token: token)
            #expect(body.data?["me"] == .null)
            #expect(body.data?["user"]?["name"]?.stringValue == "Bob Example")
            #expect(body.errors.first?.pathText == "me.secretNote")
            #expect(body.errors.first?.code == "INTERNAL_SERVER_ERROR")
        }
    }

    @Test func aFailingNonNullRootMakesDataNull() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let (reply, body) = try await query(client, "{ me { name } broken }", token: token)
            #expect(reply.status == 200)
            #expect(body.data == .null)
            #expect(body.hasNoData)
            #expect(body.errors.map(\.pathText) == ["broken"])
            let (_, listBody) = try await query(client, "{ users { name secretNote } }", token: token)
            #expect(listBody.data == .null)
            let listError = try #require(listBody.errors.first)
            #expect(listError.path?.first == .field("users"))
            #expect(listError.path?.last == .field("secretNote"))
            #expect(listError.code == "INTERNAL_SERVER_ERROR")
        }
    }

    @Test func unauthenticatedParseAndValidationErrors() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let (_, anonymous) = try await query(client, "{ me { name } }", token: nil)
            #expect(anonymous.errors.first?.code == "UNAUTHENTICATED")
            #expect(anonymous.data?["me"] == .null)
            let token = try await emulator.issueToken(userID: alice)
            try await emulator.setUserState(.passwordChanged, userID: alice)
            let (_, expired) = try await query(client, "{ me { name } }", token: token)
            #expect(expired.errors.first?.code == "UNAUTHENTICATED")
            #expect(expired.errors.first?.extensions["fb_error_subcode"] == .string("460"))
            let fresh = try await emulator.issueToken(userID: alice)
            let (parseReply, parse) = try await query(client, "{ me { name ", token: fresh)
            #expect(parseReply.status == 400)
            #expect(parse.errors.first?.code == "GRAPHQL_PARSE_FAILED")
            #expect(parse.data == nil)
            let (validationReply, validation) = try await query(client, "{ me { shoeSize } }", token: fresh)
            #expect(validationReply.status == 400)
            #expect(validation.errors.first?.code == "GRAPHQL_VALIDATION_FAILED")
            let (_, input) = try await query(client, "{ user(id: \"nobody\") { name } }", token: fresh)
            #expect(input.errors.first?.code == "BAD_USER_INPUT")
        }
    }

    @Test func injectedGraphQLErrorsCarryTheWireCode() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            try await emulator.injectFault(.error("graphql/UNAUTHENTICATED", path: "/graphql"))
            let (_, body) = try await query(client, "{ me { name } }", token: nil)
            #expect(body.errors.first?.code == "UNAUTHENTICATED")
            #expect(GraphQLErrorClassifier().error(for: body.errors[0]).code == .GraphQL.unauthenticated)
        }
    }
}
