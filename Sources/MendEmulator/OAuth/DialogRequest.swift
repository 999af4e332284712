import Foundation

/// A validated login dialog request, or why it is invalid: a pure function of the query and the registered apps.
struct DialogRequest: Sendable, Hashable {
    var app: EmulatedApp
    var redirectURI: String
    var responseTypes: Set<String>
    var scopes: [String]
    var state: String?
    var codeChallenge: String?
    var nonce: String?
    var rerequest: Bool

    /// Why a dialog request is refused. These are shown as an error page and never redirect.
    enum Invalid: Error, Sendable, Hashable {
        case invalidAppID
        case redirectURIMissing
        case redirectURINotAllowed(String)
        case invalidResponseType(String)
        case invalidScopes([String])
        case unsupportedChallengeMethod(String)
        case invalidCodeChallenge
        case challengeMethodWithoutChallenge

        var title: String {
            switch self {
            case .invalidAppID: "Invalid App ID"
            case .redirectURIMissing, .redirectURINotAllowed: "URL Blocked"
            case .invalidResponseType: "Invalid response_type"
            case .invalidScopes: "Invalid Scopes"
            case .unsupportedChallengeMethod, .invalidCodeChallenge, .challengeMethodWithoutChallenge:
                "Invalid PKCE parameters"
            }
        }

        var message: String {
            switch self {
            case .invalidAppID: "The provided app ID does not look like a valid app ID."
            case .redirectURIMissing: "The redirect_uri parameter is missing."
            case .redirectURINotAllowed:
                "This redirect failed because the redirect URI is not whitelisted in the app’s Client OAuth Settings. "
                    + "Make sure Client and Web OAuth Login are on and add all your app domains as Valid OAuth Redirect URIs."
            case .invalidResponseType(let value):
                "response_type '\(value)' is not supported: use code or token, optionally with granted_scopes."
            case .invalidScopes(let scopes):
                "\(scopes.joined(separator: ", ")). This message is only shown to developers. Users of your app "
                    + "will ignore these permissions if present."
            case .unsupportedChallengeMethod(let method):
                "code_challenge_method '\(method)' is not supported: only S256 is."
            case .invalidCodeChallenge: "code_challenge must be 43 base64url characters (a SHA-256 digest)."
            case .challengeMethodWithoutChallenge: "code_challenge_method was sent without code_challenge."
            }
        }
    }

    /// The permissions the emulator knows.
    static let knownPermissions: Set<String> = [
        "public_profile", "email", "openid", "user_friends", "user_posts", "user_photos", "user_birthday",
        "user_link", "user_gender", "user_location", "user_likes", "user_hometown", "user_age_range",
        "publish_actions", "publish_to_groups", "pages_show_list", "pages_read_engagement", "pages_manage_posts",
        "pages_messaging", "instagram_basic", "ads_read", "ads_management", "business_management",
    ]

    static let responseTypeWords: Set<String> = ["code", "token", "granted_scopes", "id_token"]

    static func parse(_ query: [String: String], apps: [String: EmulatedApp]) -> Result<DialogRequest, Invalid> {
        guard let clientID = query["client_id"], let app = apps[clientID] else { return .failure(.invalidAppID) }
        guard let redirectURI = query["redirect_uri"], !redirectURI.isEmpty else {
            return .failure(.redirectURIMissing)
        }
        guard RedirectURIMatcher.isAllowed(redirectURI, registered: app.redirectURIs) else {
            return .failure(.redirectURINotAllowed(redirectURI))
        }
        let responseTypeText = query["response_type"] ?? "code"
        let responseTypes = Set(
            responseTypeText.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" }).map(String.init))
        guard !responseTypes.isEmpty, responseTypes.isSubset(of: responseTypeWords),
            responseTypes.contains("code") || responseTypes.contains("token") || responseTypes.contains("id_token")
        else { return .failure(.invalidResponseType(responseTypeText)) }
        var scopes: [String] = []
        for scope in (query["scope"] ?? "public_profile").split(whereSeparator: { $0 == "," || $0 == " " }) {
            let name = String(scope)
            if !scopes.contains(name) { scopes.append(name) }
        }
        let unknown = scopes.filter { !knownPermissions.contains($0) }
        guard unknown.isEmpty else { return .failure(.invalidScopes(unknown)) }
        if !scopes.contains("public_profile") { scopes.insert("public_profile", at: 0) }
        let challenge = query["code_challenge"].flatMap { $0.isEmpty ? nil : $0 }
        if let method = query["code_challenge_method"], !method.isEmpty {
            guard method == "S256" else { return .failure(.unsupportedChallengeMethod(method)) }
            guard challenge != nil else { return .failure(.challengeMethodWithoutChallenge) }
        }
        if let challenge {
            let base64URL = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            guard challenge.count == 43, challenge.unicodeScalars.allSatisfy(base64URL.contains) else {
                return .failure(.invalidCodeChallenge)
            }
        }
        return .success(
            DialogRequest(
                app: app, redirectURI: redirectURI, responseTypes: responseTypes, scopes: scopes,
                state: query["state"], codeChallenge: challenge, nonce: query["nonce"],
                rerequest: query["auth_type"] == "rerequest"))
    }
}

/// Exact redirect URI matching, except that loopback `http` redirects may use any port (RFC 8252 §7.3).
enum RedirectURIMatcher {
    static func isAllowed(_ candidate: String, registered: [String]) -> Bool {
        if registered.contains(candidate) { return true }
        guard let given = URLComponents(string: candidate), isLoopback(given) else { return false }
        return registered.contains { text in
            guard let allowed = URLComponents(string: text), isLoopback(allowed) else { return false }
            return allowed.scheme == given.scheme && allowed.host == given.host && allowed.path == given.path
                && allowed.query == given.query
        }
    }

    static func isLoopback(_ components: URLComponents) -> Bool {
        guard components.scheme == "http", let host = components.host else { return false }
        return host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host == "::1"
    }
}
