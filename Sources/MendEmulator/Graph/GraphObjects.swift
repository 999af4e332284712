import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI

/// A Graph object the emulator serves.
enum GraphObject: Sendable {
    case user(String)
    case post(Post)
    case app(EmulatedApp)

    var typeName: String {
        switch self {
        case .user: "User"
        case .post: "Post"
        case .app: "Application"
        }
    }
}

/// The Graph API's objects beside the users — the posts — and the calls on them: the token and `appsecret_proof`
/// checks, the usage counters and throttling (`GraphObjects+Call.swift`), nodes and their fields (here), `?ids=`,
/// and the users' edges (`GraphObjects+Edges.swift`).
struct GraphObjects: Sendable {
    /// Each user's posts, newest first.
    var posts: [String: [Post]]
    /// The calls per app, user and business over the last hour.
    var usage = UsageBook()

    /// The seeded posts: each user's `seedPostCount`, newest first, one hour apart, ending an hour before `start`.
    init(configuration: EmulatorConfiguration, start: Date) {
        posts = [:]
        for user in configuration.users {
            posts[user.id] = (0..<user.seedPostCount).map { index in
                Post(
                    id: "\(user.id)_\(1_000_000 + user.seedPostCount - index)", fromID: user.id,
                    message: "Post \(user.seedPostCount - index) by \(user.firstName)",
                    createdTime: start.addingTimeInterval(-3600 * Double(index + 1)))
            }
        }
    }

    /// The object for an id (`me`, `app`, a user, a post, an app id).
    func resolve(
        _ id: String, identity: TokenIdentity, method: HTTPRequest.Method, users: UserDirectory,
        apps: [String: EmulatedApp]
    ) -> Result<GraphObject, GraphFailure> {
        switch id {
        case "me":
            guard let userID = identity.userID else {
                return .failure(
                    GraphFailure(
                        code: 2500,
                        message: "An active access token must be used to query information about the current user."))
            }
            return .success(.user(userID))
        case "app":
            return .success(.app(identity.app))
        default:
            if users[id] != nil { return .success(.user(id)) }
            if let app = apps[id] { return .success(.app(app)) }
            let owner = String(id.split(separator: "_").first ?? "")
            if let post = posts[owner]?.first(where: { $0.id == id }) { return .success(.post(post)) }
            return .failure(Self.unsupported(method.rawValue.lowercased(), id: id))
        }
    }

    static let userFields: Set<String> = [
        "id", "name", "first_name", "last_name", "short_name", "email", "picture", "name_format",
    ]
    static let postFields: Set<String> = ["id", "message", "created_time", "from", "story"]

    /// The requested fields of an object (`fields=`), or its default fields.
    func fields(
        of object: GraphObject, request: EmulatorRequest, identity: TokenIdentity, users: UserDirectory
    ) -> Result<JSONValue, GraphFailure> {
        let requested = FieldList.parse(request.parameter("fields"))
        switch object {
        case .user(let userID):
            let names = requested ?? ["name", "id"]
            if let unknown = names.first(where: { !Self.userFields.contains($0) }) {
                return .failure(Self.nonexistingField(unknown, type: object.typeName))
            }
            return .success(Self.userJSON(userID, fields: names, appID: identity.app.id, users: users))
        case .post(let post):
            let names = requested ?? ["created_time", "message", "id"]
            if let unknown = names.first(where: { !Self.postFields.contains($0) }) {
                return .failure(Self.nonexistingField(unknown, type: object.typeName))
            }
            return .success(Self.postJSON(post, fields: names, users: users))
        case .app(let app):
            let names = requested ?? ["link", "name", "id"]
            var members: [String: JSONValue] = [:]
            for name in names {
                switch name {
                case "id": members[name] = .string(app.id)
                case "name": members[name] = .string(app.name)
                case "link": members[name] = .string("https://www.facebook.com/games/?app_id=\(app.id)")
                case "category": members[name] = .string("Utilities")
                case "ios_sdk_error_categories": members[name] = Self.errorConfiguration(for: app)
                default: break  // the vendor SDK asks for many app fields; unknown ones are left out
                }
            }
            members["id"] = .string(app.id)
            return .success(.object(members))
        }
    }

    static func nonexistingField(_ name: String, type: String) -> GraphFailure {
        GraphFailure(code: 100, message: "(#100) Tried accessing nonexisting field (\(name)) on node type (\(type))")
    }

    static func userJSON(_ userID: String, fields: [String], appID: String, users: UserDirectory) -> JSONValue {
        guard let user = users[userID]?.profile else { return .null }
        var members: [String: JSONValue] = [:]
        for name in fields {
            switch name {
            case "id": members[name] = .string(user.id)
            case "name": members[name] = .string(user.name)
            case "first_name": members[name] = .string(user.firstName)
            case "last_name": members[name] = .string(user.lastName)
            case "short_name": members[name] = .string(user.firstName)
            case "name_format": members[name] = .string("{first} {last}")
            case "email":
                if users.grantedScopes(userID: userID, appID: appID).contains("email"), let email = user.email {
                    members[name] = .string(email)
                }
            case "picture":
                members[name] = .object([
                    "data": .object([
                        "height": .int(50), "width": .int(50), "is_silhouette": .bool(false),
                        "url": .string(user.pictureURL),
                    ])
                ])
            default: break
            }
        }
        members["id"] = .string(user.id)
        return .object(members)
    }

    static func postJSON(_ post: Post, fields: [String], users: UserDirectory) -> JSONValue {
        var members: [String: JSONValue] = ["id": .string(post.id)]
        for name in fields {
            switch name {
            case "message": members[name] = .string(post.message)
            case "created_time": members[name] = .string(ProviderDate.graph(post.createdTime))
            case "from":
                members[name] = .object([
                    "id": .string(post.fromID), "name": .string(users[post.fromID]?.profile.name ?? ""),
                ])
            default: break
            }
        }
        return .object(members)
    }

    /// The app's `ios_sdk_error_categories`: its configured one, or one derived from Mend's catalog.
    static func errorConfiguration(for app: EmulatedApp) -> JSONValue {
        let categories = app.errorConfiguration ?? Self.catalogErrorConfiguration
        let encoder = JSONEncoder()
        guard let data = try? encoder.encode(categories), case .success(let value) = JSONValue.parse(data) else {
            return .array([])
        }
        return value
    }

    static let catalogErrorConfiguration: [ErrorCategoryConfiguration] = {
        let rows = ErrorCatalog.everySpace.entries(in: .graph).filter { $0.codes?.count == 1 }
        func items(_ category: MendError.Category) -> [ErrorCategoryConfiguration.Item] {
            var result: [ErrorCategoryConfiguration.Item] = []
            for row in rows where row.category == category {
                let code = row.codes!.lowerBound
                result.append(.init(code: code, subcodes: row.subcode.map { [$0] }))
            }
            if category == .recoverable { result.append(.init(code: 200)) }
            return result
        }
        return [
            ErrorCategoryConfiguration(
                name: "transient", items: items(.transient),
                recoveryMessage: "The server is temporarily busy, please try again.", recoveryOptions: ["OK"]),
            ErrorCategoryConfiguration(
                name: "login", items: items(.recoverable),
                recoveryMessage: "Please log into this app again to reconnect your Facebook account.",
                recoveryOptions: ["OK", "Cancel"]),
            ErrorCategoryConfiguration(name: "other", items: items(.other)),
        ]
    }()
}
