import Foundation
import HTTPTypes
import MendCore

/// The routing of a request to the part of the state that answers it, lending it the other parts it touches.
extension EmulatorState {
    /// The Graph and login surface.
    mutating func handleGraph(_ request: EmulatorRequest, version: String?, route: GraphRoute) -> EmulatorResponse {
        switch route {
        case .dialog:
            return dialogs.dialog(request, version: version, users: &users, tokens: &tokens, context: &context)
        case .dialogConfirm where request.method == .post:
            return dialogs.confirm(request, users: &users, tokens: &tokens, context: &context)
        case .accessToken:
            return tokens.tokenEndpoint(request, users: users, context: &context)
        case .debugToken:
            let outcome = tokens.debugToken(request, users: users, context: context)
            return context.render(outcome)
        case .deviceLogin:
            return deviceLogins.deviceLogin(request, context: &context)
        case .deviceLoginStatus:
            return deviceLogins.deviceLoginStatus(request, users: &users, tokens: &tokens, context: &context)
        case .devicePage(let confirm):
            return deviceLogins.devicePage(request, confirm: confirm, users: &users, context: &context)
        case .batch:
            return BatchEndpoint.run(request, state: &self)
        case .ids, .node, .edge:
            return graph.call(
                request, route: route, version: version ?? context.graphVersion, users: &users, tokens: tokens,
                revocations: &issuers.tokens.revocations, context: &context)
        case .dialogConfirm, .unknownPath:
            return context.render(
                .failure(GraphFailure(code: 2500, message: "Unknown path components: \(request.path)")))
        }
    }

    /// One request to an emulated issuer.
    mutating func handleIssuer(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, segments: [String]
    ) -> EmulatorResponse {
        issuers.handle(
            request, kind: kind, segments: segments, users: &users, deviceLogins: &deviceLogins, context: &context)
    }

    /// The REST object API.
    mutating func handleREST(_ request: EmulatorRequest, type: String, id: String?) -> EmulatorResponse {
        rest.handle(request, type: type, id: id, tokens: tokens, users: users, context: &context)
    }

    /// The provider's id_token keys (`/.well-known/oauth/openid/jwks/`).
    mutating func jwks() -> JSONValue {
        tokens.jwks(random: &context.random)
    }

    /// What fault rules match on: the method, the path, and the identity of the token (or `client_id`).
    func subject(for request: EmulatorRequest, route: EmulatorRoute) -> FaultBook.Subject {
        var unversioned = request.path
        if case .graph(let version?, _) = route { unversioned = String(request.path.dropFirst(version.count + 1)) }
        var userID: String?
        var appID = request.parameter("client_id")
        if case .valid(let clientID, _)? = request.basicCredentials { appID = clientID }
        if let token = request.accessToken, let record = tokens.tokenRecord(for: token, context: context) {
            userID = record.userID
            appID = record.appID
        }
        var payloadSize: Int?
        if request.method == .get, case .graph(_, .edge(_, _, nil)) = route {
            let fields = FieldList.parse(request.parameter("fields"))?.count ?? 0
            payloadSize = Paging.limit(of: request) * max(fields, 1)
        }
        return FaultBook.Subject(
            method: request.method.rawValue, path: request.path,
            unversionedPath: unversioned.isEmpty ? "/" : unversioned,
            userID: userID, appID: appID, payloadSize: payloadSize)
    }

    /// The GraphQL view of the state for a request's token.
    func graphQLContext(for request: EmulatorRequest) -> GraphQLContext {
        var viewerID: String?
        var failure: GraphFailure?
        var appID = context.configuration.defaultApp.id
        if let token = request.accessToken {
            switch tokens.validate(token: token, users: users, context: context) {
            case .success(let identity):
                viewerID = identity.userID
                appID = identity.app.id
            case .failure(let refused): failure = refused
            }
        }
        var people: [String: GraphQLContext.Person] = [:]
        for (id, record) in users.records {
            people[id] = GraphQLContext.Person(
                profile: record.profile, grantsEmail: users.grantedScopes(userID: id, appID: appID).contains("email"))
        }
        return GraphQLContext(
            viewerID: viewerID, tokenFailure: failure, people: people, order: users.order, posts: graph.posts)
    }
}
