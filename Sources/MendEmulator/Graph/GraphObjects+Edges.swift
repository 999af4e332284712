import Foundation
import HTTPTypes
import MendCore

extension GraphObjects {
    /// `/{user}/permissions`, `/{user}/friends`, `/{user}/feed` (and `/posts`).
    mutating func userEdge(
        _ request: EmulatorRequest, userID: String, edge: String, item: String?, identity: TokenIdentity,
        version: String, users: inout UserDirectory, revocations: inout [IssuerRevocation],
        context: inout EmulatorContext
    ) -> Result<JSONValue, GraphFailure> {
        let isSelf = identity.userID == userID
        let path = "/\(version)/\(userID)/\(edge)"
        switch (request.method, edge, item) {
        case (.get, "permissions", nil):
            let grant = users[userID]?.grants[identity.app.id] ?? Grant()
            let list =
                grant.granted.sorted().map {
                    JSONValue.object(["permission": .string($0), "status": .string("granted")])
                }
                + grant.declined.sorted().map {
                    JSONValue.object(["permission": .string($0), "status": .string("declined")])
                }
            return .success(.object(["data": .array(list)]))
        case (.delete, "permissions", let permission):
            guard isSelf || identity.token.kind == .app else { return .failure(Self.unsupported("delete", id: userID)) }
            if let permission {
                users.revoke(permission, userID: userID, appID: identity.app.id)
            } else {
                users.removeApp(userID: userID, appID: identity.app.id, context: &context)
                revocations.append(
                    IssuerRevocation(
                        issuer: "facebook", clientID: identity.app.id, userID: userID, tokenKind: "permissions",
                        at: context.now))
            }
            return .success(.object(["success": .bool(true)]))
        case (.get, "friends", nil):
            let friendIDs = users[userID]?.profile.friendIDs.filter { users[$0] != nil } ?? []
            let canSee =
                identity.token.kind == .app
                || users.grantedScopes(userID: userID, appID: identity.app.id).contains("user_friends")
            let visible = canSee ? friendIDs : []
            let items = visible.map { Self.userJSON($0, fields: ["name", "id"], appID: identity.app.id, users: users) }
            let page = Paging.page(items: items, ids: visible, request: request, path: path)
            return .success(
                .object([
                    ("data", .array(page.data)), ("paging", page.paging),
                    ("summary", .object(["total_count": .int(friendIDs.count)])),
                ]))
        case (.get, "feed", nil), (.get, "posts", nil):
            let list = posts[userID] ?? []
            let names = FieldList.parse(request.parameter("fields")) ?? ["created_time", "message", "id"]
            if let unknown = names.first(where: { !Self.postFields.contains($0) }) {
                return .failure(Self.nonexistingField(unknown, type: "Post"))
            }
            let page = Paging.page(
                items: list.map { Self.postJSON($0, fields: names, users: users) }, ids: list.map(\.id),
                request: request,
                path: path)
            return .success(.object([("data", .array(page.data)), ("paging", page.paging)]))
        case (.post, "feed", nil):
            return publish(request, userID: userID, identity: identity, users: users, context: &context)
        default:
            return .failure(Self.nonexistingField(edge, type: "User"))
        }
    }

    /// `POST /{user}/feed`: needs `publish_actions`; the same message twice is a duplicate (506).
    mutating func publish(
        _ request: EmulatorRequest, userID: String, identity: TokenIdentity, users: UserDirectory,
        context: inout EmulatorContext
    ) -> Result<JSONValue, GraphFailure> {
        guard identity.userID == userID,
            users.grantedScopes(userID: userID, appID: identity.app.id).contains("publish_actions")
        else {
            return .failure(GraphFailure(code: 200, message: "(#200) Requires extended permission: publish_actions"))
        }
        let message = request.parameter("message") ?? ""
        let link = request.parameter("link")
        guard !message.isEmpty || link != nil else {
            return .failure(GraphFailure(code: 100, message: "(#100) Missing message or attachment"))
        }
        if let link,
            URLComponents(string: link)?.host == nil || !(link.hasPrefix("http://") || link.hasPrefix("https://"))
        {
            return .failure(.catalog(code: 1_609_005, subcode: nil))
        }
        if !message.isEmpty, (posts[userID] ?? []).contains(where: { $0.message == message }) {
            return .failure(.catalog(code: 506, subcode: nil))
        }
        let post = Post(
            id: "\(userID)_\(context.random.digits(16))", fromID: userID, message: message, createdTime: context.now)
        posts[userID, default: []].insert(post, at: 0)
        return .success(.object(["id": .string(post.id)]))
    }
}
