import Foundation
import MendCore
import MendGraphQL
import Testing

func specFixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
    return try Data(contentsOf: url)
}

@Suite("The GraphQL specification's response examples, byte for byte")
struct SpecificationFixtureTests {
    static let path: [GraphQLError.PathSegment] = [.field("hero"), .field("heroFriends"), .index(1), .field("name")]

    @Test(
        "Each example parses, keeping message, locations, path and every other key",
        arguments: [
            "spec-error", "spec-partial-data", "spec-extensions", "spec-top-level-code",
        ])
    func parses(name: String) throws {
        let body = try GraphQLResponseBody(json: JSONValue.parse(specFixture(name)).get())
        let error = try #require(body.errors.first)
        #expect(body.errors.count == 1)
        #expect(error.message == "Name for character with ID 1002 could not be fetched.")
        #expect(error.locations == [.init(line: 6, column: 7)])
        #expect(error.path == Self.path)
        switch name {
        case "spec-extensions":
            #expect(error.code == "CAN_NOT_FETCH_BY_ID")
            #expect(error.extensions["timestamp"] == .string("Fri Feb 9 14:33:09 UTC 2018"))
        case "spec-top-level-code":
            #expect(error.code == "CAN_NOT_FETCH_BY_ID")
            #expect(error.otherFields["timestamp"] == .string("Fri Feb 9 14:33:09 UTC 2018"))
        default:
            #expect(error.code == nil)
        }
    }

    @Test("The partial-data example decodes, reporting the nulled path instead of throwing")
    func partialData() throws {
        struct Hero: Decodable, Sendable {
            struct Friend: Decodable, Sendable {
                var id: String
                var name: String
            }
            var name: String
            var heroFriends: [Friend]
        }
        struct HeroQuery: Decodable, Sendable { var hero: Hero }
        let body = try GraphQLResponseBody(json: JSONValue.parse(specFixture("spec-partial-data")).get())
        #expect(body.nulledPaths() == ["hero.heroFriends[1].name"])
        let response = GraphQLClient.decode(body, as: HeroQuery.self)
        // `name` is not optional in this model, so the data does not decode — but nothing is thrown away.
        #expect(response.data == nil)
        #expect(response.decodingFailure?.contains("heroFriends") == true)
        #expect(response.rawData?["hero"]?["name"] == .string("R2-D2"))
        #expect(response.errors.count == 1)
        #expect(response.classifiedErrors.first?.code == .GraphQL.unknown)
        let thrown = try #require(throws: MendError.self) { try response.dataOrThrow() }
        #expect(thrown.code == .GraphQL.responseHasErrors)
        #expect((thrown.underlying as? GraphQLErrors)?.partialData == response.rawData)

        struct LenientHero: Decodable, Sendable {
            struct Friend: Decodable, Sendable {
                var id: String
                var name: String?
            }
            var hero: Hero2
            struct Hero2: Decodable, Sendable {
                var name: String
                var heroFriends: [Friend]
            }
        }
        let lenient = GraphQLClient.decode(body, as: LenientHero.self)
        #expect(lenient.data?.hero.heroFriends.map(\.name) == ["Luke Skywalker", nil, "Leia Organa"])
        #expect(lenient.decodingFailure == nil)
    }
}
