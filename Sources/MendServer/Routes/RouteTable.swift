import HTTPTypes

/// Every endpoint of the server: what the router registers and what `/openapi.json` documents come from this one
/// table, so the document cannot drift from the routes (a test walks it).
enum RouteTable {
    struct Endpoint: Sendable, Hashable {
        var method: HTTPRequest.Method
        /// The path in Hummingbird form (`/v1/provider/deletion/:code`).
        var path: String
        var summary: String
        var operationID: String
        var authenticated: Bool = false
        /// Whether the bearer may be left out (logout with the refresh token alone).
        var bearerOptional: Bool = false
        var requestSchema: String?
        var responseSchema: String?
        var successStatus: Int = 200
        /// The error statuses it can answer (each with the Mend error body), besides 405 for another method.
        var errorStatuses: [Int] = []
        /// The query parameters it reads (others are ignored).
        var query: [QueryParameter] = []
        /// Whether it is the admin API's: authenticated by an admin token, served only when one is configured.
        var admin = false
        /// Whether it is a token request: one that proves a key with a DPoP proof (RFC 9449) without presenting an
        /// access token — a login binds the session to it, a refresh or a revocation proves the key the presented
        /// token is bound to.
        var tokenRequest = false
        /// Whether it is a passkey route: served only when passkeys are configured (`MEND_PASSKEY_RP_ID`).
        var passkeys = false

        /// Whether it takes a `DPoP` proof header: the token requests and every route a session's access token
        /// authenticates (the admin API's tokens are never bound).
        var takesProof: Bool { tokenRequest || (authenticated && !admin) }

        /// The path in OpenAPI form (`/v1/provider/deletion/{code}`).
        var openAPIPath: String {
            path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }.joined(separator: "/")
        }
    }

    /// A query parameter: its name, what it means, and its rule — the one definition the route validates with
    /// (``AdminQuery``) and `/openapi.json` documents.
    struct QueryParameter: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            /// A string of 1 to `maxLength` UTF-8 bytes, one of `allowed` when given.
            case string(maxLength: Int, allowed: [String]? = nil)
            /// A decimal integer within the range.
            case integer(ClosedRange<Int64>)
        }

        var name: String
        var kind: Kind
        var description: String
    }

    static let loginCode = Endpoint(
        method: .post, path: "/v1/login/code", summary: "Exchange an authorization code for an app session",
        operationID: "loginWithCode", requestSchema: "LoginRequest", responseSchema: "Session",
        errorStatuses: [400, 401, 403, 413, 429, 500, 502, 503, 504], tokenRequest: true)
    static let loginIDToken = Endpoint(
        method: .post, path: "/v1/login/id_token",
        summary:
            "Sign in with an id_token a native SDK gave the app (Apple, Google, Limited Login); with a bearer, link it",
        operationID: "loginWithIDToken", authenticated: true, bearerOptional: true,
        requestSchema: "IDTokenLoginRequest",
        responseSchema: "Session", errorStatuses: [400, 401, 409, 413, 429, 500, 502, 503, 504], tokenRequest: true)
    static let loginProviderToken = Endpoint(
        method: .post, path: "/v1/login/provider-token",
        summary: "Exchange a provider access token (device login) for an app session, checked with debug_token",
        operationID: "loginWithProviderToken", requestSchema: "ProviderTokenLoginRequest", responseSchema: "Session",
        errorStatuses: [400, 401, 403, 413, 429, 500, 502, 503, 504], tokenRequest: true)
    static let refresh = Endpoint(
        method: .post, path: "/v1/session/refresh", summary: "Rotate the refresh token and get a new session",
        operationID: "refreshSession", requestSchema: "RefreshRequest", responseSchema: "Session",
        errorStatuses: [400, 401, 413, 429, 500, 503], tokenRequest: true)
    static let logout = Endpoint(
        method: .post, path: "/v1/session/logout",
        summary:
            "End the session (scope local), the user's other sessions (others) or all of them (global), by the access "
            + "token or the refresh token alone (optionally revoke the provider permissions)",
        operationID: "logout", authenticated: true, bearerOptional: true, requestSchema: "LogoutRequest",
        successStatus: 204, errorStatuses: [400, 401, 403, 413, 500, 502, 503, 504], tokenRequest: true)
    static let sessions = Endpoint(
        method: .get, path: "/v1/sessions",
        summary: "The user's active sessions (devices), newest first, the caller's own marked current",
        operationID: "listSessions", authenticated: true, responseSchema: "SessionList", errorStatuses: [401, 500, 503])
    static let endSession = Endpoint(
        method: .delete, path: "/v1/sessions/:id",
        summary: "End one of the user's own sessions (another user's, or none, is 404)",
        operationID: "endSession", authenticated: true, successStatus: 204, errorStatuses: [401, 404, 500, 503])
    static let revoke = Endpoint(
        method: .post, path: "/v1/session/revoke",
        summary:
            "Revoke a token and its whole session (RFC 7009); 200 for an unknown or already revoked token too, and for "
            + "a DPoP-bound token without a proof of its key (which ends nothing)",
        operationID: "revokeToken", requestSchema: "RevocationRequest", errorStatuses: [400, 401, 413, 500, 503],
        tokenRequest: true)
    static let session = Endpoint(
        method: .get, path: "/v1/session", summary: "Introspect the session of the access token",
        operationID: "introspectSession", authenticated: true, responseSchema: "Introspection",
        errorStatuses: [401, 500, 503])
    static let me = Endpoint(
        method: .get, path: "/v1/me", summary: "The user's profile (refreshed from the provider when stale)",
        operationID: "me", authenticated: true, responseSchema: "User", errorStatuses: [401, 403, 500, 502, 503, 504])
    static let activity = Endpoint(
        method: .get, path: "/v1/me/activity",
        summary: "The user's latest authentication events (the audit log's), newest first",
        operationID: "myActivity", authenticated: true, responseSchema: "Activity", errorStatuses: [401, 500, 503])
    static let deleteMe = Endpoint(
        method: .delete, path: "/v1/me",
        summary:
            "Delete the user's account: revoke the app at each linked provider, end every session, delete the user's data",
        operationID: "deleteAccount", authenticated: true, responseSchema: "AccountDeletion",
        errorStatuses: [401, 500, 502, 503, 504])
    static let jwks = Endpoint(
        method: .get, path: "/.well-known/jwks.json", summary: "The public keys that sign access tokens",
        operationID: "jwks", responseSchema: "JWKS")
    static let deauthorize = Endpoint(
        method: .post, path: "/v1/provider/deauthorize", summary: "Provider callback: the user removed the app",
        operationID: "providerDeauthorize", requestSchema: "SignedRequestForm", responseSchema: "Deauthorized",
        errorStatuses: [400, 401, 413, 500, 503])
    static let dataDeletion = Endpoint(
        method: .post, path: "/v1/provider/data-deletion", summary: "Provider callback: delete the user's data",
        operationID: "providerDataDeletion", requestSchema: "SignedRequestForm", responseSchema: "DeletionAnswer",
        errorStatuses: [400, 401, 413, 500, 503])
    static let deletionStatus = Endpoint(
        method: .get, path: "/v1/provider/deletion/:code", summary: "The status of a data-deletion request",
        operationID: "deletionStatus", responseSchema: "DeletionStatus", errorStatuses: [404, 500, 503])
    static let live = Endpoint(
        method: .get, path: "/health/live", summary: "Liveness: the process answers", operationID: "live",
        responseSchema: "Health")
    static let ready = Endpoint(
        method: .get, path: "/health/ready", summary: "Readiness: the database answers", operationID: "ready",
        responseSchema: "Health", errorStatuses: [503])
    static let metrics = Endpoint(
        method: .get, path: "/metrics", summary: "Prometheus metrics", operationID: "metrics")
    static let openAPI = Endpoint(
        method: .get, path: "/openapi.json", summary: "This document", operationID: "openAPI")

    // MARK: Passkeys (served when MEND_PASSKEY_RP_ID is set)

    static let passkeyRegistrationOptions = Endpoint(
        method: .post, path: "/v1/passkeys/registration/options",
        summary:
            "Options to add a passkey (PublicKeyCredentialCreationOptionsJSON, for parseCreationOptionsFromJSON): the "
            + "user's session must have begun within MEND_PASSKEY_REAUTH_WINDOW",
        operationID: "passkeyRegistrationOptions", authenticated: true,
        responseSchema: "PublicKeyCredentialCreationOptionsJSON", errorStatuses: [401, 403, 429, 500, 503],
        passkeys: true)
    static let passkeyRegistration = Endpoint(
        method: .post, path: "/v1/passkeys/registration",
        summary: "Add a passkey: the browser's RegistrationResponseJSON (toJSON()) for the options' challenge",
        operationID: "registerPasskey", authenticated: true, requestSchema: "PasskeyRegistrationRequest",
        responseSchema: "Passkey", successStatus: 201, errorStatuses: [400, 401, 403, 409, 413, 429, 500, 503],
        passkeys: true)
    static let passkeyLoginOptions = Endpoint(
        method: .post, path: "/v1/login/passkey/options",
        summary:
            "Options to sign in with a passkey (PublicKeyCredentialRequestOptionsJSON): usernameless, for a button "
            + "or for autofill (conditional mediation)",
        operationID: "passkeyLoginOptions", responseSchema: "PublicKeyCredentialRequestOptionsJSON",
        errorStatuses: [429, 500, 503], passkeys: true)
    static let passkeyLogin = Endpoint(
        method: .post, path: "/v1/login/passkey",
        summary:
            "Sign in with a passkey: the browser's AuthenticationResponseJSON for the options' challenge; an app "
            + "session like any login's. A passkey that is not here is 404 passkey/4 with the RP ID and credential "
            + "ID to tell the platform (signalUnknownCredential)",
        operationID: "loginWithPasskey", requestSchema: "PasskeyLoginRequest", responseSchema: "Session",
        errorStatuses: [400, 401, 404, 413, 429, 500, 503], tokenRequest: true, passkeys: true)
    static let passkeyList = Endpoint(
        method: .get, path: "/v1/passkeys", summary: "The user's passkeys, oldest first",
        operationID: "listPasskeys", authenticated: true, responseSchema: "PasskeyList",
        errorStatuses: [401, 500, 503], passkeys: true)
    static let passkeyRename = Endpoint(
        method: .patch, path: "/v1/passkeys/:id", summary: "Rename one of the user's passkeys",
        operationID: "renamePasskey", authenticated: true, requestSchema: "PasskeyRenameRequest",
        responseSchema: "Passkey", errorStatuses: [400, 401, 404, 413, 500, 503], passkeys: true)
    static let passkeyRemove = Endpoint(
        method: .delete, path: "/v1/passkeys/:id",
        summary:
            "Remove one of the user's passkeys (409 passkey/9 when it is the account's last way to sign in); tell "
            + "the platform too (signalAllAcceptedCredentials)",
        operationID: "removePasskey", authenticated: true, successStatus: 204,
        errorStatuses: [401, 404, 409, 500, 503], passkeys: true)
    static let relatedOrigins = Endpoint(
        method: .get, path: "/.well-known/webauthn",
        summary: "WebAuthn related origins: the other origins that may use the RP ID (MEND_PASSKEY_RELATED_ORIGINS)",
        operationID: "webauthnRelatedOrigins", responseSchema: "RelatedOrigins", passkeys: true)
    static let appleAppSiteAssociation = Endpoint(
        method: .get, path: "/.well-known/apple-app-site-association",
        summary: "The apps that may use the RP ID's passkeys on Apple platforms (webcredentials)",
        operationID: "appleAppSiteAssociation", responseSchema: "AppleAppSiteAssociation", passkeys: true)
    static let assetLinks = Endpoint(
        method: .get, path: "/.well-known/assetlinks.json",
        summary: "The Android apps that may use the RP ID's passkeys (get_login_creds)",
        operationID: "androidAssetLinks", responseSchema: "AssetLinks", passkeys: true)

    // MARK: The admin API

    static let adminLimit = QueryParameter(
        name: "limit", kind: .integer(1...200), description: "How many to answer (50 by default).")
    static let adminUsers = Endpoint(
        method: .get, path: "/v1/admin/users",
        summary:
            "Admin: the users, newest first, or those a query finds: a user id, a provider's subject, or part of an "
            + "e-mail address",
        operationID: "adminListUsers", authenticated: true, responseSchema: "AdminUserList",
        errorStatuses: [400, 401, 429, 500, 503],
        query: [
            QueryParameter(
                name: "query", kind: .string(maxLength: 256),
                description: "A user id, a provider subject (any provider's), or part of an e-mail (any case)."),
            adminLimit,
            QueryParameter(
                name: "offset", kind: .integer(0...1_000_000), description: "How many to skip (0 by default)."),
        ], admin: true)
    static let adminUser = Endpoint(
        method: .get, path: "/v1/admin/users/:id",
        summary: "Admin: a user with their identities and active sessions", operationID: "adminGetUser",
        authenticated: true, responseSchema: "AdminUser", errorStatuses: [401, 404, 429, 500, 503], admin: true)
    static let adminLogoutUser = Endpoint(
        method: .post, path: "/v1/admin/users/:id/logout",
        summary:
            "Admin: end every session of a user; their clients get session/17 with the reason in the developer message",
        operationID: "adminLogoutUser", authenticated: true, requestSchema: "AdminEndRequest",
        responseSchema: "AdminSessionsEnded", errorStatuses: [400, 401, 404, 413, 429, 500, 503], admin: true)
    static let adminEndSession = Endpoint(
        method: .post, path: "/v1/admin/sessions/:id/end",
        summary: "Admin: end one session; its client gets session/17 with the reason in the developer message",
        operationID: "adminEndSession", authenticated: true, requestSchema: "AdminEndRequest",
        responseSchema: "AdminSessionEnded", errorStatuses: [400, 401, 404, 413, 429, 500, 503], admin: true)
    static let adminDeleteUser = Endpoint(
        method: .delete, path: "/v1/admin/users/:id",
        summary:
            "Admin: delete a user's account as DELETE /v1/me does (revoke at each linked provider, end every session)",
        operationID: "adminDeleteUser", authenticated: true, responseSchema: "AccountDeletion",
        errorStatuses: [401, 404, 429, 500, 502, 503, 504], admin: true)
    static let adminAudit = Endpoint(
        method: .get, path: "/v1/admin/audit",
        summary: "Admin: the audit log, newest first, paged back with `before`", operationID: "adminAuditLog",
        authenticated: true, responseSchema: "AuditLog", errorStatuses: [400, 401, 429, 500, 503],
        query: [
            QueryParameter(name: "user_id", kind: .string(maxLength: 64), description: "Only this user's events."),
            QueryParameter(
                name: "event", kind: .string(maxLength: 32, allowed: AuditRecord.Event.allCases.map(\.rawValue)),
                description: "Only events of this code."),
            QueryParameter(
                name: "before", kind: .integer(1...Int64.max),
                description: "Only events older than this event id (the previous page's `next_before`)."),
            adminLimit,
        ], admin: true)

    static let adminPasskeys = Endpoint(
        method: .get, path: "/v1/admin/users/:id/passkeys", summary: "Admin: a user's passkeys",
        operationID: "adminListPasskeys", authenticated: true, responseSchema: "PasskeyList",
        errorStatuses: [401, 404, 429, 500, 503], admin: true, passkeys: true)
    static let adminRemovePasskey = Endpoint(
        method: .delete, path: "/v1/admin/users/:id/passkeys/:passkey",
        summary: "Admin: remove a user's passkey (409 passkey/9 when it is their last way to sign in)",
        operationID: "adminRemovePasskey", authenticated: true, responseSchema: "AdminPasskeyRemoved",
        errorStatuses: [401, 404, 409, 429, 500, 503], admin: true, passkeys: true)

    /// The methods declared for `path` (a request path, `/v1/provider/deletion/ABC`), in table order; empty when no
    /// endpoint of `endpoints` (the ones served) has this path. As OpenAPI matches paths, a concrete path comes before a
    /// templated one its segments would fill: `/v1/passkeys/registration` is that path's, never `/v1/passkeys/{id}`'s
    /// with `id` = `registration` — of the patterns that match, those with the most literal segments count.
    static func methods(forPath path: String, in endpoints: [Endpoint]) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var matches: [(method: HTTPRequest.Method, literals: Int)] = []
        for endpoint in endpoints {
            let pattern = endpoint.path.split(separator: "/", omittingEmptySubsequences: false)
            guard pattern.count == segments.count,
                zip(pattern, segments).allSatisfy({ expected, actual in
                    expected.hasPrefix(":") ? !actual.isEmpty : expected == actual
                })
            else { continue }
            matches.append((endpoint.method, pattern.filter { !$0.hasPrefix(":") }.count))
        }
        let most = matches.map(\.literals).max()
        var methods: [HTTPRequest.Method] = []
        for match in matches where match.literals == most && !methods.contains(match.method) {
            methods.append(match.method)
        }
        return methods
    }

    static let all: [Endpoint] = [
        loginCode, loginIDToken, loginProviderToken, refresh, logout, sessions, endSession, revoke, session, me,
        activity,
        deleteMe,
        jwks, deauthorize,
        dataDeletion,
        deletionStatus,
        live, ready,
        metrics,
        openAPI,
        passkeyRegistrationOptions, passkeyRegistration, passkeyLoginOptions, passkeyLogin, passkeyList,
        passkeyRename, passkeyRemove, relatedOrigins, appleAppSiteAssociation, assetLinks,
        adminUsers, adminUser, adminLogoutUser, adminEndSession, adminDeleteUser, adminAudit, adminPasskeys,
        adminRemovePasskey,
    ]

    /// The endpoints a server with `configuration` serves: every one but the admin API's when it is off, and but the
    /// passkeys' when they are.
    static func served(_ configuration: ServerConfiguration) -> [Endpoint] {
        all.filter {
            ($0.admin ? configuration.admin.isEnabled : true) && ($0.passkeys ? configuration.passkeys.isEnabled : true)
        }
    }
}
