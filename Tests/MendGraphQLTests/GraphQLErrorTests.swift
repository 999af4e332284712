import Foundation
import MendCore
import MendGraphQL
import Testing

private func body(_ text: String) throws -> GraphQLResponseBody {
    try GraphQLResponseBody(json: JSONValue.parse(Data(text.utf8)).get())
}

@Suite("GraphQL errors")
struct GraphQLErrorTests {
    // The GraphQL specification's "Response" section (October 2021), its error example, byte for byte.
    static let specificationExample = """
        {
          "errors": [
            {
              "message": "Name for character with ID 1002 could not be fetched.",
              "locations": [{ "line": 6, "column": 7 }],
              "path": ["hero", "heroFriends", 1, "name"]
            }
          ],
          "data": {
            "hero": {
              "name": "R2-D2",
              "heroFriends": [
                {
                  "id": "1000",
                  "name": "Luke Skywalker"
                },
                {
                  "id": "1002",
                  "name": null
                },
                {
                  "id": "1003",
                  "name": "Leia Organa"
                }
              ]
            }
          }
        }
        """

    @Test("The specification's example: message, locations, path with mixed segments, partial data")
    func specificationExample() throws {
        let response = try body(Self.specificationExample)
        #expect(response.errors.count == 1)
        let error = try #require(response.errors.first)
        #expect(error.message == "Name for character with ID 1002 could not be fetched.")
        #expect(error.locations == [.init(line: 6, column: 7)])
        #expect(error.path == [.field("hero"), .field("heroFriends"), .index(1), .field("name")])
        #expect(error.pathText == "hero.heroFriends[1].name")
        #expect(!response.hasNoData)
        #expect(response.data?["hero"]?["name"] == .string("R2-D2"))
    }

    @Test(
        "Every other key is kept; extensions.code classifies",
        arguments: [
            (
                "UNAUTHENTICATED", MendError.Code.GraphQL.unauthenticated, MendError.Category.recoverable,
                MendError.Recovery.Action.reauthenticate
            ),
            ("FORBIDDEN", .GraphQL.forbidden, .recoverable, .requestPermissions),
            ("BAD_USER_INPUT", .GraphQL.badUserInput, .other, .changeRequest),
            ("GRAPHQL_VALIDATION_FAILED", .GraphQL.validationFailed, .other, .changeRequest),
            ("INTERNAL_SERVER_ERROR", .GraphQL.internalServerError, .transient, .retry),
            ("SOMETHING_NEW", .GraphQL.unknown, .other, .contactSupport),
        ])
    func classification(
        wire: String, code: MendError.Code, category: MendError.Category, recovery: MendError.Recovery.Action
    ) throws {
        let response = try body(
            #"{"data":null,"errors":[{"message":"m","extensions":{"code":"\#(wire)","x":1},"vendor":"kept"}]}"#)
        let error = try #require(response.errors.first)
        #expect(error.code == wire)
        #expect(error.otherFields["vendor"] == .string("kept"))
        #expect(error.extensions["x"] == .int(1))
        let mendError = GraphQLErrorClassifier().error(for: error)
        #expect(mendError.code == code)
        #expect(mendError.category == category)
        #expect(mendError.recovery.action == recovery)
        #expect(response.hasNoData)
    }

    @Test("Apps extend the mapping with their own codes")
    func extendedMapping() {
        let classifier = GraphQLErrorClassifier(mapping: ["RATE_LIMITED": .HTTP.tooManyRequests])
        let error = classifier.error(for: GraphQLError(message: "slow", extensions: ["code": .string("RATE_LIMITED")]))
        #expect(error.category == .transient)
        #expect(error.recovery.action == .waitForRateLimit)
    }

    @Test(
        "Bodies that are not GraphQL responses are refused with a reason",
        arguments: [
            ("[1,2]", GraphQLResponseBody.ShapeError.notAnObject),
            (#"{"message":"hi"}"#, .noDataOrErrors),
            (#"{"errors":{"message":"x"}}"#, .invalidErrors),
            (#"{"errors":[{"msg":"x"}]}"#, .invalidErrors),
        ])
    func shapes(text: String, expected: GraphQLResponseBody.ShapeError) {
        #expect(throws: expected) { try body(text) }
    }
}
