/// Where a request goes: a pure function of the method and the path, tested without a server.
enum EmulatorRoute: Sendable, Hashable {
    /// `/_emulator/…`: the control API.
    case control([String])
    /// `POST /graphql`.
    case graphQL
    /// `/v1/objects/{type}[/{id}]`: the REST object API.
    case restObjects(type: String, id: String?)
    /// `/.well-known/openid-configuration`.
    case openIDConfiguration
    /// `/.well-known/oauth/openid/jwks/`.
    case jwks
    /// `/apple/…`, `/google/…`: an emulated OpenID Connect issuer, with the path after its name.
    case issuer(EmulatedIssuerKind, [String])
    /// Everything else: the Graph and login surface, with the version prefix split off.
    case graph(version: String?, route: GraphRoute)

    static func resolve(method: String, segments: [String], hasIDs: Bool) -> EmulatorRoute {
        switch segments.first {
        case "_emulator": return .control(Array(segments.dropFirst()))
        case "graphql" where segments.count == 1: return .graphQL
        case let name? where EmulatedIssuerKind(rawValue: name) != nil:
            return .issuer(EmulatedIssuerKind(rawValue: name)!, Array(segments.dropFirst()))
        case "v1" where segments.count >= 3 && segments[1] == "objects" && segments.count <= 4:
            return .restObjects(type: segments[2], id: segments.count == 4 ? segments[3] : nil)
        case ".well-known":
            if segments.dropFirst().first == "openid-configuration" { return .openIDConfiguration }
            if Array(segments.dropFirst()) == ["oauth", "openid", "jwks"] { return .jwks }
            return .graph(version: nil, route: .unknownPath)
        default:
            var rest = segments
            var version: String?
            if let first = rest.first, GraphRoute.isVersion(first) {
                version = first
                rest.removeFirst()
            }
            return .graph(version: version, route: GraphRoute.resolve(method: method, segments: rest, hasIDs: hasIDs))
        }
    }
}

/// A Graph or login endpoint.
enum GraphRoute: Sendable, Hashable {
    /// `GET /dialog/oauth`.
    case dialog
    /// `POST /dialog/oauth/confirm`: the consent page's form.
    case dialogConfirm
    /// `GET|POST /oauth/access_token`.
    case accessToken
    /// `GET /debug_token`.
    case debugToken
    /// `POST /device/login`: a device login starts.
    case deviceLogin
    /// `POST /device/login_status`: a device polls.
    case deviceLoginStatus
    /// `GET /device`: where the user enters the code; `POST /device/confirm` (`confirm`): their answer.
    case devicePage(confirm: Bool)
    /// `POST /` with `batch`.
    case batch
    /// `GET /?ids=a,b`.
    case ids
    /// `/{id}`.
    case node(String)
    /// `/{id}/{edge}[/{item}]`.
    case edge(String, String, String?)
    /// A path the emulator does not serve.
    case unknownPath

    static func resolve(method: String, segments: [String], hasIDs: Bool) -> GraphRoute {
        switch segments.count {
        case 0:
            if method == "POST" { return .batch }
            return hasIDs ? .ids : .unknownPath
        case 1:
            if segments[0] == "debug_token" { return .debugToken }
            if segments[0] == "device" { return .devicePage(confirm: false) }
            return .node(segments[0])
        case 2:
            if segments == ["dialog", "oauth"] { return .dialog }
            if segments == ["oauth", "access_token"] { return .accessToken }
            if segments == ["device", "login"] { return .deviceLogin }
            if segments == ["device", "login_status"] { return .deviceLoginStatus }
            if segments == ["device", "confirm"] { return .devicePage(confirm: true) }
            return .edge(segments[0], segments[1], nil)
        case 3:
            if segments == ["dialog", "oauth", "confirm"] { return .dialogConfirm }
            return .edge(segments[0], segments[1], segments[2])
        default:
            return .unknownPath
        }
    }

    /// `v25.0`, `v3.2`: a Graph version prefix.
    static func isVersion(_ segment: String) -> Bool {
        guard segment.first == "v" else { return false }
        let parts = segment.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
