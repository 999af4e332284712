import Foundation
import Graphiti

/// What a GraphQL request may see: a snapshot of the emulator's state for the request's viewer.
struct GraphQLContext: Sendable {
    struct Person: Sendable {
        var profile: TestUser
        var grantsEmail: Bool
    }

    var viewerID: String?
    /// Why the token was refused, when it was: the Graph code and subcode.
    var tokenFailure: GraphFailure?
    var people: [String: Person]
    var order: [String]
    var posts: [String: [Post]]

    func user(_ id: String) -> GraphQLUser? {
        people[id].map { GraphQLUser(id: $0.profile.id, name: $0.profile.name) }
    }

    func requireViewer() throws -> String {
        guard let viewerID else {
            var extensions: [String: String] = [:]
            if let failure = tokenFailure {
                extensions["fb_error_code"] = String(failure.code)
                extensions["fb_error_subcode"] = failure.subcode.map(String.init)
            }
            throw GraphQLFieldFailure(
                code: "UNAUTHENTICATED",
                message: tokenFailure?.message ?? "An access token is required (Authorization: Bearer …).",
                extra: extensions)
        }
        return viewerID
    }
}

/// An error a resolver throws; the service turns it into `extensions.code`.
struct GraphQLFieldFailure: Error, CustomStringConvertible, Sendable {
    var code: String
    var message: String
    var extra: [String: String] = [:]
    var description: String { message }
}

/// A user in the GraphQL schema.
struct GraphQLUser: Codable, Sendable {
    var id: String
    var name: String

    /// Nullable: fails with FORBIDDEN unless the user granted `email` to the app.
    func email(context: GraphQLContext, arguments: NoArguments) throws -> String? {
        guard let person = context.people[id] else { return nil }
        guard person.grantsEmail else {
            throw GraphQLFieldFailure(
                code: "FORBIDDEN", message: "The email permission was not granted for user \(id).",
                extra: ["missing_permission": "email"])
        }
        return person.profile.email
    }

    /// Non-null and always failing: the error bubbles to the nearest nullable parent.
    func secretNote(context: GraphQLContext, arguments: NoArguments) throws -> String {
        throw GraphQLFieldFailure(code: "INTERNAL_SERVER_ERROR", message: "The secret note service is unavailable.")
    }

    struct PostsArguments: Codable, Sendable {
        var first: Int?
    }

    func posts(context: GraphQLContext, arguments: PostsArguments) throws -> [GraphQLPost] {
        if let first = arguments.first, first < 0 {
            throw GraphQLFieldFailure(code: "BAD_USER_INPUT", message: "first must not be negative.")
        }
        let list = context.posts[id] ?? []
        return list.prefix(arguments.first ?? 10).map {
            GraphQLPost(id: $0.id, message: $0.message, authorID: $0.fromID)
        }
    }

    func friends(context: GraphQLContext, arguments: NoArguments) -> [GraphQLUser] {
        (context.people[id]?.profile.friendIDs ?? []).compactMap(context.user)
    }
}

/// A post in the GraphQL schema.
struct GraphQLPost: Codable, Sendable {
    var id: String
    var message: String
    var authorID: String

    func author(context: GraphQLContext, arguments: NoArguments) -> GraphQLUser? {
        context.user(authorID)
    }
}

/// The root fields.
struct GraphQLRootResolver: Sendable {
    func me(context: GraphQLContext, arguments: NoArguments) throws -> GraphQLUser? {
        context.user(try context.requireViewer())
    }

    struct UserArguments: Codable, Sendable {
        var id: String
    }

    func user(context: GraphQLContext, arguments: UserArguments) throws -> GraphQLUser? {
        _ = try context.requireViewer()
        guard let user = context.user(arguments.id) else {
            throw GraphQLFieldFailure(code: "BAD_USER_INPUT", message: "No user with id \(arguments.id).")
        }
        return user
    }

    func users(context: GraphQLContext, arguments: NoArguments) throws -> [GraphQLUser] {
        _ = try context.requireViewer()
        return context.order.compactMap(context.user)
    }

    /// Non-null and always failing: `data` becomes `null`.
    func broken(context: GraphQLContext, arguments: NoArguments) throws -> String {
        throw GraphQLFieldFailure(code: "INTERNAL_SERVER_ERROR", message: "The broken field always fails.")
    }
}

/// The emulator's GraphQL API (Graphiti).
struct EmulatorGraphQLAPI: API {
    let resolver = GraphQLRootResolver()
    let schema: Schema<GraphQLRootResolver, GraphQLContext>

    init() throws {
        schema = try Schema<GraphQLRootResolver, GraphQLContext> {
            Type(GraphQLUser.self, as: "User") {
                Field("id", at: \.id)
                Field("name", at: \.name)
                Field("email", at: GraphQLUser.email)
                Field("secretNote", at: GraphQLUser.secretNote)
                Field("posts", at: GraphQLUser.posts) {
                    Argument("first", at: \.first)
                }
                Field("friends", at: GraphQLUser.friends)
            }
            Type(GraphQLPost.self, as: "Post") {
                Field("id", at: \.id)
                Field("message", at: \.message)
                Field("author", at: GraphQLPost.author)
            }
            Query {
                Field("me", at: GraphQLRootResolver.me)
                Field("user", at: GraphQLRootResolver.user) {
                    Argument("id", at: \.id)
                }
                Field("users", at: GraphQLRootResolver.users)
                Field("broken", at: GraphQLRootResolver.broken)
            }
        }
    }
}
