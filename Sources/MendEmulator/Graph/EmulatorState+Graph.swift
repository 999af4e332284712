import Crypto
import Foundation
import HTTPTypes
import MendCore

extension EmulatorState {
    /// The Graph and login surface.
    mutating func handleGraph(_ request: EmulatorRequest, version: String?, route: GraphRoute) -> EmulatorResponse {
        switch route {
        case .dialog:
            return dialog(request, version: version)
        case .dialogConfirm where request.method == .post:
            return confirmDialog(request)
        case .accessToken:
            return tokenEndpoint(request)
        case .debugToken:
            return render(debugToken(request))
        case .deviceLogin:
            return deviceLogin(request)
        case .deviceLoginStatus:
            return deviceLoginStatus(request)
        case .devicePage(let confirm):
            return devicePage(request, confirm: confirm)
        case .batch:
            return batch(request)
        case .ids, .node, .edge:
            return graphCall(request, route: route, version: version ?? graphVersion)
        case .dialogConfirm, .unknownPath:
            return render(.failure(GraphFailure(code: 2500, message: "Unknown path components: \(request.path)")))
        }
    }

    /// Renders an outcome with the Graph headers and a fresh trace id.
    mutating func render(_ outcome: Result<JSONValue, GraphFailure>, headers: HTTPFields = [:]) -> EmulatorResponse {
        let trace = traceID()
        switch outcome {
        case .success(let value):
            var response = EmulatorResponse.json(value, headers: headers)
            GraphHeaders.apply(to: &response.headers, traceID: trace, graphVersion: graphVersion)
            return response
        case .failure(let failure):
            var response = failure.response(traceID: trace, graphVersion: graphVersion)
            for field in headers where response.headers[field.name] == nil { response.headers.append(field) }
            return response
        }
    }

    /// A Graph call: token, `appsecret_proof`, usage counting and throttling, then the node or edge.
    mutating func graphCall(_ request: EmulatorRequest, route: GraphRoute, version: String) -> EmulatorResponse {
        guard let value = request.accessToken else {
            let asksForMe = request.segments.contains("me")
            return render(
                .failure(
                    asksForMe
                        ? GraphFailure(
                            code: 2500,
                            message: "An active access token must be used to query information about the current user.")
                        : GraphFailure(code: 104, message: "An access token is required to request this resource.")))
        }
        let identity: TokenIdentity
        switch validate(token: value) {
        case .failure(let failure): return render(.failure(failure))
        case .success(let valid): identity = valid
        }
        if let failure = checkAppSecretProof(request, identity: identity) { return render(.failure(failure)) }
        let calls = route == .ids ? max(1, (request.parameter("ids") ?? "").split(separator: ",").count) : 1
        let (headers, throttled) = countUsage(identity: identity, calls: calls)
        if let throttled { return render(.failure(throttled), headers: headers) }
        return render(api(request, route: route, identity: identity, version: version), headers: headers)
    }

    private func checkAppSecretProof(_ request: EmulatorRequest, identity: TokenIdentity) -> GraphFailure? {
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

    /// Counts the call against the app, the user and the business, and throttles when a limit is passed.
    mutating func countUsage(identity: TokenIdentity, calls: Int) -> (HTTPFields, GraphFailure?) {
        let app = identity.app
        let moment = now
        let appKey = "app:\(app.id)"
        let businessKey = "business:\(app.businessID)"
        let appCount = usage.record(appKey, count: calls, now: moment)
        let businessCount = usage.record(businessKey, count: calls, now: moment)
        var userCount = 0
        let userKey = "user:\(app.id):\(identity.userID ?? "-")"
        if identity.userID != nil { userCount = usage.record(userKey, count: calls, now: moment) }

        let appLimit = app.limits.appCallsPerHour ?? 200
        let businessLimit = app.limits.businessCallsPerHour ?? 200
        let appPercent = appCount * 100 / max(appLimit, 1)
        let businessPercent = businessCount * 100 / max(businessLimit, 1)
        var regainMinutes = 0
        if let limit = app.limits.businessCallsPerHour, businessCount > limit {
            regainMinutes = usage.minutesToRegain(businessKey, limit: limit, now: moment)
        }
        var headers = HTTPFields()
        headers[GraphHeaders.appUsage] =
            JSONValue.object([
                "call_count": .int(appPercent), "total_cputime": .int(appPercent / 2),
                "total_time": .int(appPercent / 2),
            ]).jsonText()
        headers[GraphHeaders.businessUsage] =
            JSONValue.object([
                app.businessID: .array([
                    .object([
                        "type": .string("pages"), "call_count": .int(businessPercent),
                        "total_cputime": .int(businessPercent / 2), "total_time": .int(businessPercent / 2),
                        "estimated_time_to_regain_access": .int(regainMinutes),
                    ])
                ])
            ]).jsonText()
        if let limit = app.limits.appCallsPerHour, appCount > limit {
            return (headers, .catalog(code: 4, subcode: nil))
        }
        if let limit = app.limits.businessCallsPerHour, businessCount > limit {
            return (headers, .catalog(code: 80001, subcode: nil))
        }
        if let limit = app.limits.userCallsPerHour, identity.userID != nil, userCount > limit {
            return (headers, .catalog(code: 17, subcode: 2_446_079))
        }
        return (headers, nil)
    }

    /// A node or an edge.
    mutating func api(
        _ request: EmulatorRequest, route: GraphRoute, identity: TokenIdentity, version: String
    ) -> Result<JSONValue, GraphFailure> {
        switch route {
        case .ids:
            guard request.method == .get else { return .failure(Self.unsupported("post", id: "")) }
            return ids(request, identity: identity)
        case .node(let id):
            let object: GraphObject
            switch resolve(id, identity: identity, method: request.method) {
            case .failure(let failure): return .failure(failure)
            case .success(let found): object = found
            }
            switch (request.method, object) {
            case (.get, _): return fields(of: object, request: request, identity: identity)
            case (.delete, .post(let post)) where post.fromID == identity.userID:
                posts[post.fromID]?.removeAll { $0.id == post.id }
                return .success(.object(["success": .bool(true)]))
            default: return .failure(Self.unsupported(request.method.rawValue.lowercased(), id: id))
            }
        case .edge(let id, let edge, let item):
            guard case .success(let object) = resolve(id, identity: identity, method: request.method) else {
                return resolve(id, identity: identity, method: request.method).map { _ in .null }
            }
            guard case .user(let userID) = object else {
                return .failure(
                    GraphFailure(
                        code: 100,
                        message: "(#100) Tried accessing nonexisting field (\(edge)) on node type (\(object.typeName))")
                )
            }
            return userEdge(request, userID: userID, edge: edge, item: item, identity: identity, version: version)
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
    mutating func ids(_ request: EmulatorRequest, identity: TokenIdentity) -> Result<JSONValue, GraphFailure> {
        let list = (request.parameter("ids") ?? "").split(separator: ",").map(String.init)
        var result: [String: JSONValue] = [:]
        var missing: [String] = []
        for id in list {
            guard case .success(let object) = resolve(id, identity: identity, method: .get) else {
                missing.append(id)
                continue
            }
            switch fields(of: object, request: request, identity: identity) {
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
