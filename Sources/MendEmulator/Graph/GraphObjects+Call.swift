import Crypto
import Foundation
import HTTPTypes
import MendCore

extension GraphObjects {
    /// A Graph call: token, `appsecret_proof`, usage counting and throttling, then the node or edge.
    mutating func call(
        _ request: EmulatorRequest, route: GraphRoute, version: String, users: inout UserDirectory, tokens: TokenBook,
        revocations: inout [IssuerRevocation], context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard let value = request.accessToken else {
            let asksForMe = request.segments.contains("me")
            return context.render(
                .failure(
                    asksForMe
                        ? GraphFailure(
                            code: 2500,
                            message: "An active access token must be used to query information about the current user.")
                        : GraphFailure(code: 104, message: "An access token is required to request this resource.")))
        }
        let identity: TokenIdentity
        switch tokens.validate(token: value, users: users, context: context) {
        case .failure(let failure): return context.render(.failure(failure))
        case .success(let valid): identity = valid
        }
        if let failure = Self.checkAppSecretProof(request, identity: identity) {
            return context.render(.failure(failure))
        }
        let calls = route == .ids ? max(1, (request.parameter("ids") ?? "").split(separator: ",").count) : 1
        let (headers, throttled) = usage.recordGraphCall(identity: identity, calls: calls, now: context.now)
        if let throttled { return context.render(.failure(throttled), headers: headers) }
        let outcome = api(
            request, route: route, identity: identity, version: version, users: &users, revocations: &revocations,
            context: &context)
        return context.render(outcome, headers: headers)
    }

    private static func checkAppSecretProof(_ request: EmulatorRequest, identity: TokenIdentity) -> GraphFailure? {
        guard identity.app.requiresAppSecretProof, identity.token.kind == .user else { return nil }
        guard let proof = request.parameter("appsecret_proof") else {
            return GraphFailure(
                code: 100, message: "API calls from the server require an appsecret_proof argument",
                type: "GraphMethodException")
        }
        let key = SymmetricKey(data: Data(identity.app.secret.utf8))
        let expected = HMAC<SHA256>.authenticationCode(for: Data(identity.token.value.utf8), using: key)
            .map { String(format: "%02x", $0) }.joined()
        guard proof.lowercased() == expected else {
            return GraphFailure(
                code: 100, message: "Invalid appsecret_proof provided in the API argument", type: "GraphMethodException"
            )
        }
        return nil
    }

    /// A node or an edge.
    mutating func api(
        _ request: EmulatorRequest, route: GraphRoute, identity: TokenIdentity, version: String,
        users: inout UserDirectory, revocations: inout [IssuerRevocation], context: inout EmulatorContext
    ) -> Result<JSONValue, GraphFailure> {
        switch route {
        case .ids:
            guard request.method == .get else { return .failure(Self.unsupported("post", id: "")) }
            return ids(request, identity: identity, users: users, apps: context.apps)
        case .node(let id):
            let object: GraphObject
            switch resolve(id, identity: identity, method: request.method, users: users, apps: context.apps) {
            case .failure(let failure): return .failure(failure)
            case .success(let found): object = found
            }
            switch (request.method, object) {
            case (.get, _): return fields(of: object, request: request, identity: identity, users: users)
            case (.delete, .post(let post)) where post.fromID == identity.userID:
                posts[post.fromID]?.removeAll { $0.id == post.id }
                return .success(.object(["success": .bool(true)]))
            default: return .failure(Self.unsupported(request.method.rawValue.lowercased(), id: id))
            }
        case .edge(let id, let edge, let item):
            let resolved = resolve(id, identity: identity, method: request.method, users: users, apps: context.apps)
            guard case .success(let object) = resolved else { return resolved.map { _ in .null } }
            guard case .user(let userID) = object else {
                return .failure(
                    GraphFailure(
                        code: 100,
                        message: "(#100) Tried accessing nonexisting field (\(edge)) on node type (\(object.typeName))")
                )
            }
            return userEdge(
                request, userID: userID, edge: edge, item: item, identity: identity, version: version, users: &users,
                revocations: &revocations, context: &context)
        default:
            return .failure(GraphFailure(code: 2500, message: "Unknown path components: \(request.path)"))
        }
    }

    static func unsupported(_ method: String, id: String) -> GraphFailure {
        GraphFailure(
            code: 100, subcode: 33,
            message: "Unsupported \(method) request. Object with ID '\(id)' does not exist, cannot be loaded due to "
                + "missing permissions, or does not support this operation. Please read the Graph API documentation "
                + "at https://developers.facebook.com/docs/graph-api",
            type: "GraphMethodException")
    }

    /// `GET /?ids=a,b`: one object per id.
    func ids(
        _ request: EmulatorRequest, identity: TokenIdentity, users: UserDirectory, apps: [String: EmulatedApp]
    ) -> Result<JSONValue, GraphFailure> {
        let list = (request.parameter("ids") ?? "").split(separator: ",").map(String.init)
        var result: [String: JSONValue] = [:]
        var missing: [String] = []
        for id in list {
            guard case .success(let object) = resolve(id, identity: identity, method: .get, users: users, apps: apps)
            else {
                missing.append(id)
                continue
            }
            switch fields(of: object, request: request, identity: identity, users: users) {
            case .success(let value): result[id] = value
            case .failure(let failure): return .failure(failure)
            }
        }
        guard missing.isEmpty else {
            return .failure(
                GraphFailure(
                    code: 803,
                    message: "(#803) Some of the aliases you requested do not exist: "
                        + missing.joined(separator: ",")))
        }
        return .success(.object(result))
    }
}
