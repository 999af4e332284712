public import Foundation
import MendCore

extension ServerConfiguration {
    /// The variables ``load(environment:)`` reads, with what each sets (also the keys of the JSON file).
    public static let environmentVariables: [(name: String, meaning: String)] = [
        ("MEND_CONFIG_FILE", "a JSON file whose object holds any of these names; the environment wins over it"),
        ("MEND_HOST", "listen address (127.0.0.1)"),
        ("MEND_PORT", "listen port (8080; 0 picks a free one)"),
        ("MEND_APP_ID", "the provider app id (required)"),
        ("MEND_APP_SECRET", "the provider app secret (required, or MEND_APP_SECRET_FILE)"),
        ("MEND_APP_SECRET_FILE", "a file holding the app secret"),
        ("MEND_GRAPH_URL", "the Graph API base URL (https://graph.facebook.com)"),
        ("MEND_GRAPH_VERSION", "the Graph API version (v25.0)"),
        ("MEND_REQUIRED_SCOPES", "comma-separated scopes every login must grant (none)"),
        ("MEND_REDIRECT_URIS", "comma-separated redirect URIs accepted at login (required)"),
        ("DATABASE_URL", "sqlite:///path/file.sqlite, sqlite::memory: or postgres://user:pass@host:5432/db"),
        ("MEND_SIGNING_KEYS", "kid:EdDSA|ES256:base64url-key, comma-separated, the signing key first"),
        ("MEND_ISSUER", "the access tokens' iss (mend-server)"),
        ("MEND_AUDIENCE", "the access tokens' aud (MEND_APP_ID)"),
        ("MEND_ACCESS_TOKEN_TTL", "access token lifetime (900s)"),
        ("MEND_REFRESH_TOKEN_TTL", "refresh token lifetime (30d)"),
        ("MEND_REFRESH_REUSE_GRACE", "how long a rotated refresh token answers its unused successor again (60s)"),
        ("MEND_RETURN_PROVIDER_TOKEN", "true: the login response carries provider_token (false)"),
        ("MEND_LONG_LIVED_EXCHANGE", "false: keep the short-lived provider token (true)"),
        ("MEND_RATE_LIMIT_LOGIN_IP", "login limit per client address (30/60s; off)"),
        ("MEND_RATE_LIMIT_LOGIN_USER", "login limit per user (10/60s; off)"),
        ("MEND_RATE_LIMIT_REFRESH_IP", "refresh limit per client address (120/60s; off)"),
        ("MEND_RATE_LIMIT_REFRESH_USER", "refresh limit per user (30/60s; off)"),
        (
            "MEND_TRUSTED_PROXIES",
            "the number of trusted proxies in front: the client address is X-Forwarded-For's entry that many places from the right (0: ignored)"
        ),
        ("MEND_REQUIRE_PKCE", "false: accept code logins without code_verifier, for confidential clients only (true)"),
        ("MEND_TRUST_FORWARDED_FOR", "true: the same as MEND_TRUSTED_PROXIES=1 (kept for existing deployments)"),
        ("MEND_PUBLIC_URL", "public base URL for the data-deletion status link (from the request)"),
        ("MEND_VALIDITY_CHECK_INTERVAL", "how often stored provider tokens are re-checked (24h; 0 turns it off)"),
        ("MEND_PROFILE_MAX_AGE", "age after which GET /v1/me refreshes the profile (1h)"),
        ("MEND_SIGNED_REQUEST_MAX_AGE", "oldest signed_request accepted (1h)"),
        ("MEND_PROVIDER_TIMEOUT", "timeout of one provider call (10s)"),
        ("MEND_PROVIDER_MAX_ATTEMPTS", "tries of an idempotent provider call on a transient error (3)"),
        ("MEND_TOKEN_ENCRYPTION_KEY", "base64 32-byte AES-GCM key that encrypts stored provider tokens (none)"),
        ("MEND_MAX_BODY_SIZE", "largest request body in bytes (65536)"),
        ("MEND_APPLE_CLIENT_IDS", "Sign in with Apple: bundle ids and service ids whose id_tokens are accepted (off)"),
        ("MEND_APPLE_ISSUER", "Apple's issuer (https://appleid.apple.com)"),
        ("MEND_APPLE_JWKS_URL", "Apple's key set (https://appleid.apple.com/auth/keys)"),
        ("MEND_APPLE_TEAM_ID", "Apple team id: with the key below, native Apple sign-ins keep a token to revoke (off)"),
        ("MEND_APPLE_KEY_ID", "the key id of the Sign in with Apple private key"),
        ("MEND_APPLE_PRIVATE_KEY_FILE", "the Sign in with Apple private key (.p8, PEM)"),
        ("MEND_GOOGLE_CLIENT_IDS", "Google Sign-In: OAuth client ids whose id_tokens are accepted (off)"),
        ("MEND_GOOGLE_ISSUER", "Google's issuer (https://accounts.google.com)"),
        ("MEND_GOOGLE_JWKS_URL", "Google's key set (https://www.googleapis.com/oauth2/v3/certs)"),
        (
            "MEND_GOOGLE_SERVER_CLIENT_ID",
            "the server's web client id: with its secret, native Google sign-ins keep a token to revoke (off)"
        ),
        ("MEND_GOOGLE_SERVER_CLIENT_SECRET", "that web client's secret"),
        ("MEND_GOOGLE_TOKEN_URL", "Google's token endpoint (https://oauth2.googleapis.com/token)"),
        ("MEND_GOOGLE_REVOCATION_URL", "Google's revocation endpoint (https://oauth2.googleapis.com/revoke)"),
        ("MEND_LIMITED_LOGIN", "true: accept Limited Login id_tokens for MEND_APP_ID (false)"),
        ("MEND_LIMITED_LOGIN_ISSUER", "Limited Login's issuer (https://www.facebook.com)"),
        (
            "MEND_LIMITED_LOGIN_JWKS_URL",
            "Limited Login's key set (https://www.facebook.com/.well-known/oauth/openid/jwks/)"
        ),
        ("MEND_LOG_LEVEL", "trace, debug, info, notice, warning, error (info); read by mend-server"),
    ]

    /// Reads the configuration from `environment` (by default the process's), over the JSON file that
    /// `MEND_CONFIG_FILE` names, if any.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable that is missing or wrong (never a secret's value).
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws
        -> ServerConfiguration
    {
        var values: [String: String] = [:]
        if let path = environment["MEND_CONFIG_FILE"], !path.isEmpty {
            values = try fileValues(path: path)
        }
        for (name, value) in environment where name.hasPrefix("MEND_") || name == "DATABASE_URL" {
            values[name] = value
        }
        return try ServerConfiguration(values: values)
    }

    /// Reads a JSON object of variable names to strings, numbers, booleans or arrays of strings.
    static func fileValues(path: String) throws(ConfigurationError) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("MEND_CONFIG_FILE: cannot read \(path)")
        }
        guard case .success(.object(let object)) = JSONValue.parse(data) else {
            throw ConfigurationError("MEND_CONFIG_FILE: \(path) is not a JSON object")
        }
        var values: [String: String] = [:]
        for (key, value) in object {
            switch value {
            case .string(let text): values[key] = text
            case .int(let number): values[key] = String(number)
            case .double(let number): values[key] = String(number)
            case .bool(let flag): values[key] = flag ? "true" : "false"
            case .array(let items): values[key] = items.map { $0.stringValue ?? $0.jsonText() }.joined(separator: ",")
            case .null: continue
            case .object:
                throw ConfigurationError("MEND_CONFIG_FILE: '\(key)' must be a string, number, boolean or list")
            }
        }
        return values
    }

    init(values: [String: String]) throws(ConfigurationError) {
        func value(_ name: String) -> String? {
            guard let text = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
                return nil
            }
            return text
        }
        func list(_ name: String) -> [String]? {
            value(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        func duration(_ name: String) throws(ConfigurationError) -> Duration? {
            try value(name).map { (text: String) throws(ConfigurationError) in try DurationText.parse(text, name: name)
            }
        }
        func flag(_ name: String) throws(ConfigurationError) -> Bool? {
            guard let text = value(name)?.lowercased() else { return nil }
            if ["1", "true", "yes", "on"].contains(text) { return true }
            if ["0", "false", "no", "off"].contains(text) { return false }
            throw ConfigurationError("\(name) must be true or false")
        }
        func integer(_ name: String) throws(ConfigurationError) -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text), number >= 0 else { throw ConfigurationError("\(name) must be a number") }
            return number
        }
        func url(_ name: String) throws(ConfigurationError) -> URL? {
            guard let text = value(name) else { return nil }
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw ConfigurationError("\(name) is not an absolute URL")
            }
            return url
        }

        guard let appID = value("MEND_APP_ID") else { throw ConfigurationError("MEND_APP_ID is required") }
        var secret = value("MEND_APP_SECRET")
        if secret == nil, let path = value("MEND_APP_SECRET_FILE") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("MEND_APP_SECRET_FILE: cannot read \(path)")
            }
            secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let secret, !secret.isEmpty else {
            throw ConfigurationError("MEND_APP_SECRET (or MEND_APP_SECRET_FILE) is required")
        }
        self.init(appID: appID, appSecret: Secret(secret))
        if let host = value("MEND_HOST") { self.host = host }
        if let port = try integer("MEND_PORT") {
            guard port <= 65535 else { throw ConfigurationError("MEND_PORT must be 0…65535") }
            self.port = port
        }
        if let graphURL = try url("MEND_GRAPH_URL") { self.graphURL = graphURL }
        if let version = value("MEND_GRAPH_VERSION") { self.graphVersion = version }
        if let scopes = list("MEND_REQUIRED_SCOPES") { self.requiredScopes = scopes.filter { !$0.isEmpty } }
        if let uris = list("MEND_REDIRECT_URIS") { self.allowedRedirectURIs = uris.filter { !$0.isEmpty } }
        if let database = value("DATABASE_URL") ?? value("MEND_DATABASE_URL") {
            _ = try DatabaseLocation.parse(database)
            self.databaseURL = database
        }
        if let keys = value("MEND_SIGNING_KEYS") { self.signingKeys = try SigningKeyConfiguration.parse(list: keys) }
        if let issuer = value("MEND_ISSUER") { self.issuer = issuer }
        if let audience = value("MEND_AUDIENCE") { self.audience = audience }
        if let ttl = try duration("MEND_ACCESS_TOKEN_TTL") { self.accessTokenLifetime = ttl }
        if let ttl = try duration("MEND_REFRESH_TOKEN_TTL") { self.refreshTokenLifetime = ttl }
        if let grace = try duration("MEND_REFRESH_REUSE_GRACE") { self.refreshReuseGrace = grace }
        if let returns = try flag("MEND_RETURN_PROVIDER_TOKEN") { self.returnsProviderToken = returns }
        if let exchange = try flag("MEND_LONG_LIVED_EXCHANGE") { self.exchangesForLongLivedToken = exchange }
        if let rule = value("MEND_RATE_LIMIT_LOGIN_IP") { rateLimits.loginPerAddress = try RateLimitRule.parse(rule) }
        if let rule = value("MEND_RATE_LIMIT_LOGIN_USER") { rateLimits.loginPerUser = try RateLimitRule.parse(rule) }
        if let rule = value("MEND_RATE_LIMIT_REFRESH_IP") {
            rateLimits.refreshPerAddress = try RateLimitRule.parse(rule)
        }
        if let rule = value("MEND_RATE_LIMIT_REFRESH_USER") {
            rateLimits.refreshPerUser = try RateLimitRule.parse(rule)
        }
        if let requires = try flag("MEND_REQUIRE_PKCE") { self.requiresPKCE = requires }
        if let trusts = try flag("MEND_TRUST_FORWARDED_FOR") { self.trustedProxyCount = trusts ? 1 : 0 }
        if let proxies = try integer("MEND_TRUSTED_PROXIES") {
            guard proxies >= 0 else {
                throw ConfigurationError("MEND_TRUSTED_PROXIES must be 0 or more")
            }
            self.trustedProxyCount = proxies
        }
        if let publicURL = try url("MEND_PUBLIC_URL") { self.publicURL = publicURL }
        if let interval = try duration("MEND_VALIDITY_CHECK_INTERVAL") { self.validityCheckInterval = interval }
        if let age = try duration("MEND_PROFILE_MAX_AGE") { self.profileMaxAge = age }
        if let age = try duration("MEND_SIGNED_REQUEST_MAX_AGE") { self.signedRequestMaxAge = age }
        if let timeout = try duration("MEND_PROVIDER_TIMEOUT") { self.providerTimeout = timeout }
        if let attempts = try integer("MEND_PROVIDER_MAX_ATTEMPTS") { self.providerMaxAttempts = max(1, attempts) }
        if let key = value("MEND_TOKEN_ENCRYPTION_KEY") {
            guard Data(base64Encoded: key)?.count == 32 else {
                throw ConfigurationError("MEND_TOKEN_ENCRYPTION_KEY must be 32 bytes in base64")
            }
            self.tokenEncryptionKey = Secret(key)
        }
        if let size = try integer("MEND_MAX_BODY_SIZE") { self.maximumBodySize = max(1024, size) }
        if let clients = list("MEND_APPLE_CLIENT_IDS")?.filter({ !$0.isEmpty }), !clients.isEmpty {
            let base = IDTokenIssuer.apple(clientIDs: clients)
            let issuer = value("MEND_APPLE_ISSUER") ?? base.issuer
            var credentials: AppleClientCredentials?
            if let teamID = value("MEND_APPLE_TEAM_ID") {
                guard let keyID = value("MEND_APPLE_KEY_ID"), let path = value("MEND_APPLE_PRIVATE_KEY_FILE") else {
                    throw ConfigurationError(
                        "MEND_APPLE_TEAM_ID needs MEND_APPLE_KEY_ID and MEND_APPLE_PRIVATE_KEY_FILE")
                }
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError("MEND_APPLE_PRIVATE_KEY_FILE: cannot read \(path)")
                }
                credentials = AppleClientCredentials(
                    teamID: teamID, keyID: keyID, privateKeyPEM: Secret(String(decoding: data, as: UTF8.self)),
                    issuer: issuer)
            }
            idTokenIssuers.append(
                .apple(
                    clientIDs: clients, issuer: issuer, jwksURI: try url("MEND_APPLE_JWKS_URL") ?? base.jwksURI,
                    credentials: credentials))
        }
        if let clients = list("MEND_GOOGLE_CLIENT_IDS")?.filter({ !$0.isEmpty }), !clients.isEmpty {
            let base = IDTokenIssuer.google(clientIDs: clients)
            var serverClient: ClientSecretTokenKeeper?
            if let serverClientID = value("MEND_GOOGLE_SERVER_CLIENT_ID") {
                guard let secret = value("MEND_GOOGLE_SERVER_CLIENT_SECRET"), !secret.isEmpty else {
                    throw ConfigurationError("MEND_GOOGLE_SERVER_CLIENT_ID needs MEND_GOOGLE_SERVER_CLIENT_SECRET")
                }
                let defaults = ClientSecretTokenKeeper.google(clientID: serverClientID, clientSecret: Secret(secret))
                serverClient = .google(
                    clientID: serverClientID, clientSecret: Secret(secret),
                    tokenEndpoint: try url("MEND_GOOGLE_TOKEN_URL") ?? defaults.tokenEndpoint,
                    revocationEndpoint: try url("MEND_GOOGLE_REVOCATION_URL") ?? defaults.revocationEndpoint)
            }
            idTokenIssuers.append(
                .google(
                    clientIDs: clients, issuer: value("MEND_GOOGLE_ISSUER") ?? base.issuer,
                    jwksURI: try url("MEND_GOOGLE_JWKS_URL") ?? base.jwksURI, serverClient: serverClient))
        }
        if try flag("MEND_LIMITED_LOGIN") == true {
            let base = IDTokenIssuer.limitedLogin(appID: appID)
            idTokenIssuers.append(
                .limitedLogin(
                    appID: appID, issuer: value("MEND_LIMITED_LOGIN_ISSUER") ?? base.issuer,
                    jwksURI: try url("MEND_LIMITED_LOGIN_JWKS_URL") ?? base.jwksURI))
        }
        try validate()
    }

    /// Checks the values that have to make sense together.
    public func validate() throws(ConfigurationError) {
        guard !appID.isEmpty else { throw ConfigurationError("MEND_APP_ID is required") }
        guard !appSecret.value.isEmpty else { throw ConfigurationError("MEND_APP_SECRET is required") }
        guard !allowedRedirectURIs.isEmpty else {
            throw ConfigurationError("MEND_REDIRECT_URIS is required: the redirect URIs your apps log in with")
        }
        guard accessTokenLifetime > .zero, refreshTokenLifetime > accessTokenLifetime else {
            throw ConfigurationError("MEND_REFRESH_TOKEN_TTL must be longer than MEND_ACCESS_TOKEN_TTL (> 0)")
        }
        _ = try DatabaseLocation.parse(databaseURL)
        var names = Set<String>()
        for issuer in idTokenIssuers {
            guard !issuer.clientIDs.isEmpty, names.insert(issuer.name).inserted else {
                throw ConfigurationError("id_token issuer \(issuer.name): named twice, or without client ids")
            }
            if let credentials = issuer.appleCredentials, !credentials.isValidKey {
                throw ConfigurationError("MEND_APPLE_PRIVATE_KEY_FILE is not a P-256 private key in PEM (.p8)")
            }
        }
        names.insert("facebook")
        for provider in codeLoginProviders {
            guard (1...32).contains(provider.name.utf8.count),
                provider.name.utf8.allSatisfy({
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                }),
                names.insert(provider.name).inserted
            else {
                throw ConfigurationError(
                    "code login provider \(provider.name): named twice (facebook and the id_token issuers' names are "
                        + "taken), or not 1–32 lowercase letters, digits and hyphens")
            }
        }
    }
}
