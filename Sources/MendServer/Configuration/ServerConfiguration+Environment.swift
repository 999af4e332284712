public import Foundation
import MendCore
import MendRecording

/// One variable `mend-server` reads (also a key of its JSON file): its name, the names it also answers to, its
/// default and what it sets.
public struct EnvironmentVariable: Sendable, Hashable {
    /// The name (`MEND_HOST`).
    public var name: String
    /// Older or conventional names that mean the same (`MEND_DATABASE_URL` for `DATABASE_URL`).
    public var aliases: [String]
    /// The default as an operator reads it, in Markdown: a value in backticks (for the host, `127.0.0.1` in
    /// backticks), or words (`required`, `none`, `from the request`).
    public var defaultValue: String
    /// What it sets, in Markdown (names and values in backticks).
    public var meaning: String
    /// The name of the variable that names a file holding the value instead (`MEND_APP_SECRET_FILE`, as Docker and
    /// Kubernetes mount secrets), for a secret; `nil` for the others. The value itself wins over its file.
    public var fileVariant: String?

    init(
        _ name: String, aliases: [String] = [], default defaultValue: String, _ meaning: String,
        readsFile: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.defaultValue = defaultValue
        self.meaning = meaning
        self.fileVariant = readsFile ? name + "_FILE" : nil
    }
}

/// Reading a ``ServerConfiguration`` from `mend-server`'s environment variables (and the JSON file
/// `MEND_CONFIG_FILE` names): the list of variables with their defaults and meanings, the table the docs and
/// `mend-server env` print, and the parsing. ``ServerConfiguration/load(environment:overrides:)`` is its entry point.
enum ServerEnvironment {
    /// The variables ``ServerConfiguration/load(environment:overrides:)`` reads, in the order `docs/server.md` lists them. The
    /// defaults are read from the groups' initializers, where each is written once.
    static let variables: [EnvironmentVariable] = {
        typealias Configuration = ServerConfiguration
        let listening = Configuration.Listening(), storage = Configuration.Storage()
        let sessions = Configuration.Sessions(), providers = Configuration.Providers()
        let facebook = FacebookApp(appID: "", appSecret: Secret("")), limits = sessions.rateLimits
        let apple = IDTokenIssuer.apple(clientIDs: []), google = IDTokenIssuer.google(clientIDs: [])
        let googleServer = ClientSecretTokenKeeper.google(clientID: "", clientSecret: Secret(""))
        let limitedLogin = IDTokenIssuer.limitedLogin(appID: ""), admin = Configuration.Admin()
        let passkeys = PasskeyConfiguration()
        func value(_ text: some CustomStringConvertible) -> String { "`\(text)`" }
        func duration(_ duration: Duration) -> String { value(DurationText.format(duration)) }
        func limit(_ rule: RateLimitRule?) -> String { value(rule.map(\.description) ?? "off") }
        typealias Variable = EnvironmentVariable
        return [
            Variable(
                "MEND_CONFIG_FILE", default: "none",
                "a JSON object of any of these names (strings, numbers, booleans, lists); the environment wins over it"),
            Variable("MEND_HOST", default: value(listening.host), "listen address (`0.0.0.0` in a container)"),
            Variable("MEND_PORT", default: value(listening.port), "listen port (`0`: a free one)"),
            Variable(
                "MEND_DRAIN_DELAY", default: duration(listening.drainDelay),
                "how long `serve` keeps serving after SIGTERM or SIGINT while `/health/ready` answers 503, before its "
                    + "listener closes (`0`: at once); more than the load balancer's failed checks × check interval"),
            Variable(
                "MEND_APP_ID", default: "none",
                "the Facebook app id: Facebook logins, their `debug_token` checks and `signed_request` callbacks "
                    + "(required unless `MEND_APPLE_CLIENT_IDS` or `MEND_GOOGLE_CLIENT_IDS` names another provider)"),
            Variable(
                "MEND_APP_SECRET", default: "with `MEND_APP_ID`, required", "the Facebook app secret", readsFile: true),
            Variable(
                "MEND_GRAPH_URL", default: value(facebook.graphURL.absoluteString),
                "the Facebook Graph API base URL (the emulator's in tests)"),
            Variable("MEND_GRAPH_VERSION", default: value(facebook.graphVersion), "the Graph API version"),
            Variable("MEND_REQUIRED_SCOPES", default: "none", "comma-separated scopes every Facebook login must grant"),
            Variable(
                "MEND_REDIRECT_URIS", default: "required",
                "comma-separated redirect URIs accepted at login: absolute, without a fragment (exact; loopback `http` "
                    + "on any port)"),
            Variable(
                "DATABASE_URL", aliases: ["MEND_DATABASE_URL"], default: value(storage.databaseURL),
                "`sqlite:///path/file.sqlite`, `sqlite::memory:` or `postgres://user:pass@host:5432/db` (see Storage)",
                readsFile: true),
            Variable(
                "MEND_SIGNING_KEYS", default: "a random key",
                "`kid:EdDSA|ES256:base64url-32-bytes[:next|current|retired]`, comma-separated: the `current` key "
                    + "signs (the first unmarked one when none is marked), the others are published and accepted "
                    + "(`mend-server generate-key [EdDSA|ES256]`; `mend-server keys` shows the states)", readsFile: true
            ),
            Variable("MEND_ISSUER", default: value(sessions.issuer), "`iss` of the access tokens"),
            Variable(
                "MEND_AUDIENCE", default: "`MEND_APP_ID`, else `MEND_ISSUER`",
                "`aud` of the access tokens (give it your API's URL so that tokens do not name the provider's app)"),
            Variable("MEND_ACCESS_TOKEN_TTL", default: duration(sessions.accessTokenLifetime), "access token lifetime"),
            Variable(
                "MEND_SESSION_IDLE_TTL", aliases: ["MEND_REFRESH_TOKEN_TTL"], default: duration(sessions.idleLifetime),
                "how long a session lasts without a refresh (its refresh token's lifetime; every refresh starts it "
                    + "again)"),
            Variable(
                "MEND_SESSION_MAX_TTL", default: duration(sessions.maximumLifetime),
                "how long a session lasts at most from its login, however often it refreshes (then `session/15`: "
                    + "sign in again); applies to open sessions too"),
            Variable(
                "MEND_REFRESH_REUSE_GRACE", default: duration(sessions.refreshReuseGrace),
                "how long a rotated refresh token answers its unused successor again (at least a client's whole "
                    + "refresh attempt with retries)"),
            Variable(
                "MEND_DPOP", default: sessions.dpop.rawValue,
                "`allowed`: a login with a DPoP proof gets a session bound to the client's key, bearer sessions still "
                    + "work; `required`: every session is bound; `off`: no binding"),
            Variable(
                "MEND_DPOP_NONCE", default: value(sessions.dpopRequiresNonce),
                "`true`: every DPoP proof must carry a nonce this server issued (`DPoP-Nonce`; a proof is then at most "
                    + "two minutes old)"),
            Variable(
                "MEND_PASSKEY_RP_ID", default: "none: passkeys are off",
                "the WebAuthn RP ID passkeys are scoped to: a domain (`example.com`) that the origins are on or under"),
            Variable("MEND_PASSKEY_RP_NAME", default: value(passkeys.relyingPartyName), "the name authenticators show"),
            Variable(
                "MEND_PASSKEY_ORIGINS", default: "`https://` and the RP ID",
                "comma-separated origins ceremonies may come from: `https://` on the RP ID or under it, `http://` on a "
                    + "loopback host (development), `android:apk-key-hash:<base64url SHA-256>` (Android apps)"),
            Variable(
                "MEND_PASSKEY_USER_VERIFICATION", default: value(passkeys.userVerification.rawValue),
                "`required`: a ceremony without user verification (PIN, biometrics) is refused; `preferred`: accepted"),
            Variable(
                "MEND_PASSKEY_COUNTER_POLICY", default: value(passkeys.counterPolicy.rawValue),
                "`report`: a signature counter that went back is audited and shown; `refuse-device-bound`: refused "
                    + "for a passkey that is not synced (a synced one's is only reported)"),
            Variable(
                "MEND_PASSKEY_REAUTH_WINDOW", default: duration(passkeys.recentSignInWindow),
                "how recent a sign-in must be to add a passkey"),
            Variable(
                "MEND_PASSKEY_CHALLENGE_TTL", default: duration(passkeys.challengeLifetime),
                "how long a passkey ceremony's challenge can be answered (each is used once, on any instance)"),
            Variable(
                "MEND_PASSKEY_RELATED_ORIGINS", default: "none",
                "other origins that may use the RP ID's passkeys, served at `/.well-known/webauthn`"),
            Variable(
                "MEND_PASSKEY_APPLE_APPS", default: "none",
                "apps (`TEAMID.bundle.id`) in `/.well-known/apple-app-site-association`'s `webcredentials`"),
            Variable(
                "MEND_PASSKEY_ANDROID_APPS", default: "none",
                "apps (`package.name:AA:BB:…`, the SHA-256 certificate fingerprint) in `/.well-known/assetlinks.json`"),
            Variable(
                "MEND_RETURN_PROVIDER_TOKEN", default: value(providers.returnsProviderToken),
                "`true`: the login response carries the provider's token as `provider_token`"),
            Variable(
                "MEND_LONG_LIVED_EXCHANGE", default: value(facebook.exchangesForLongLivedToken),
                "`false`: keep the short-lived Facebook token instead of exchanging it for a long-lived one"),
            Variable(
                "MEND_RATE_LIMIT_LOGIN_IP", default: limit(limits.loginPerAddress),
                "logins per client address (`off`: no limit)"),
            Variable("MEND_RATE_LIMIT_LOGIN_USER", default: limit(limits.loginPerUser), "logins per provider user"),
            Variable(
                "MEND_RATE_LIMIT_REFRESH_IP", default: limit(limits.refreshPerAddress), "refreshes per client address"),
            Variable("MEND_RATE_LIMIT_REFRESH_USER", default: limit(limits.refreshPerUser), "refreshes per user"),
            Variable(
                "MEND_TOKEN_CACHE_SIZE", default: value(sessions.verifiedTokenCacheSize),
                "how many verified access tokens bearer checks keep, each until its `exp` (about 1 KB each; `0`: "
                    + "off; size it to the access tokens in use within one access-token lifetime); "
                    + "expiry and revocation are still checked on every request"),
            Variable(
                "MEND_REQUIRE_PKCE", default: value(sessions.requiresPKCE),
                "code logins must carry `code_verifier` (RFC 7636 S256); `false` accepts logins without it, for a "
                    + "server whose clients are all confidential"),
            Variable(
                "MEND_TRUSTED_PROXIES", default: value(listening.trustedProxyCount),
                "the number of trusted proxies in front of the server: the client address is the `X-Forwarded-For` "
                    + "entry that many places from the right (entries further left are written by the client and "
                    + "never trusted); `0` ignores the header, and a request with fewer entries is keyed by its peer"),
            Variable(
                "MEND_TRUST_FORWARDED_FOR", default: value(false),
                "`true` is `MEND_TRUSTED_PROXIES=1` (kept for existing deployments; before, it took the *first* "
                    + "entry, which the client controls)"),
            Variable(
                "MEND_PUBLIC_URL", default: "from the request",
                "the server's public base URL: the data-deletion status link and the URL DPoP proofs name (`htu`); "
                    + "set it behind a proxy that does not forward the scheme and host"),
            Variable(
                "MEND_VALIDITY_CHECK_INTERVAL", default: duration(facebook.validityCheckInterval),
                "how often stored Facebook tokens are re-checked with `debug_token` (`0`: never)"),
            Variable(
                "MEND_PROFILE_MAX_AGE", default: duration(facebook.profileMaxAge),
                "age after which `GET /v1/me` refreshes the Facebook profile"),
            Variable(
                "MEND_SIGNED_REQUEST_MAX_AGE", default: duration(facebook.signedRequestMaxAge),
                "oldest `signed_request` accepted"),
            Variable("MEND_PROVIDER_TIMEOUT", default: duration(providers.timeout), "timeout of one provider call"),
            Variable(
                "MEND_PROVIDER_MAX_ATTEMPTS", default: value(providers.maxAttempts),
                "tries of an idempotent provider call on a transient error (at least 1)"),
            Variable(
                "MEND_PROVIDER_RECORDING", default: "none",
                "a HAR file the server records its provider calls into, every secret redacted (see docs/recording.md)"),
            Variable(
                "MEND_PROVIDER_RECORDING_MODE", default: "`all`",
                "`all` records anew, `newEpisodes` adds to the file, `once` and `none` answer from it"),
            Variable(
                "MEND_TOKEN_ENCRYPTION_KEY", default: "none",
                "base64 32-byte AES-GCM key that encrypts stored provider tokens", readsFile: true),
            Variable(
                "MEND_AUDIT_RETENTION", default: duration(storage.auditRetention),
                "how long the audit log keeps an event (pruned with the background check)"),
            Variable(
                "MEND_ADMIN_TOKENS", default: "none: the admin API is off",
                "the admin API's tokens as `id:sha256:<hex>`, comma-separated (`mend-server admin new-token ID` makes "
                    + "one): their SHA-256 only, never the tokens; the id is the actor the audit log names"),
            Variable(
                "MEND_RATE_LIMIT_ADMIN", default: limit(admin.rateLimit),
                "admin API requests per client address, counted before the token is checked"),
            Variable(
                "MEND_MAX_BODY_SIZE", default: value(listening.maximumBodySize),
                "largest request body, in bytes (at least 1024; a smaller value is refused)"),
            Variable(
                "MEND_APPLE_CLIENT_IDS", default: "none",
                "Sign in with Apple: the bundle ids and service ids whose id_tokens `POST /v1/login/id_token` accepts"),
            Variable("MEND_APPLE_ISSUER", default: value(apple.issuer), "Apple's issuer (the emulator's in tests)"),
            Variable("MEND_APPLE_JWKS_URL", default: value(apple.jwksURI.absoluteString), "Apple's key set"),
            Variable(
                "MEND_APPLE_TEAM_ID", default: "none",
                "the Apple team id of the Sign in with Apple key: with it, the `authorization_code` of a native Apple "
                    + "sign-in is exchanged (client secret: an ES256 JWT the server signs) and its refresh token kept, "
                    + "so that account deletion revokes at Apple"),
            Variable("MEND_APPLE_KEY_ID", default: "none", "the key id of that key (with `MEND_APPLE_TEAM_ID`)"),
            Variable(
                "MEND_APPLE_PRIVATE_KEY_FILE", default: "none",
                "that key's file (`.p8`, PEM; with `MEND_APPLE_TEAM_ID`)"),
            Variable(
                "MEND_GOOGLE_CLIENT_IDS", default: "none",
                "Google Sign-In: the OAuth client ids whose id_tokens are accepted"),
            Variable("MEND_GOOGLE_ISSUER", default: value(google.issuer), "Google's issuer"),
            Variable("MEND_GOOGLE_JWKS_URL", default: value(google.jwksURI.absoluteString), "Google's key set"),
            Variable(
                "MEND_GOOGLE_SERVER_CLIENT_ID", default: "none",
                "the server's Google web client: with it, the `serverAuthCode` of a native Google sign-in "
                    + "(`authorization_code`) is exchanged and its refresh token kept, so that account deletion "
                    + "revokes at Google; its id is accepted as an audience"),
            Variable(
                "MEND_GOOGLE_SERVER_CLIENT_SECRET", default: "none",
                "that web client's secret (with `MEND_GOOGLE_SERVER_CLIENT_ID`)", readsFile: true),
            Variable(
                "MEND_GOOGLE_TOKEN_URL", default: value(googleServer.tokenEndpoint.absoluteString),
                "Google's token endpoint"),
            Variable(
                "MEND_GOOGLE_REVOCATION_URL", default: value(googleServer.revocationEndpoint.absoluteString),
                "Google's revocation endpoint"),
            Variable(
                "MEND_LIMITED_LOGIN", default: value(false), "`true`: accept Limited Login id_tokens for `MEND_APP_ID`"),
            Variable("MEND_LIMITED_LOGIN_ISSUER", default: value(limitedLogin.issuer), "Limited Login's issuer"),
            Variable(
                "MEND_LIMITED_LOGIN_JWKS_URL", default: value(limitedLogin.jwksURI.absoluteString),
                "Limited Login's key set"),
            Variable(
                "MEND_LOG_LEVEL", default: value("info"),
                "the level of `mend-server`'s log: `trace`, `debug`, `info`, `notice`, `warning`, `error` or "
                    + "`critical`"),
        ]
    }()

    /// ``environmentVariables`` as `docs/server.md`'s Markdown table (`markdown`), or as `mend-server env` prints
    /// them: one line each, the name padded, then the meaning and the default.
    static func table(markdown: Bool) -> String {
        var lines: [String] = []
        if markdown { lines = ["| variable | default | meaning |", "|---|---|---|"] }
        for variable in variables {
            if markdown {
                let names =
                    (["`\(variable.name)`"] + variable.aliases.map { "(or `\($0)`)" }
                    + (variable.fileVariant.map { ["(or `\($0)`: a file holding it)"] } ?? []))
                    .joined(separator: " ")
                let meaning = variable.meaning.replacingOccurrences(of: "|", with: "\\|")
                let defaultValue = variable.defaultValue.replacingOccurrences(of: "|", with: "\\|")
                lines.append("| \(names) | \(defaultValue) | \(meaning) |")
            } else {
                let names = ([variable.name] + variable.aliases + (variable.fileVariant.map { [$0] } ?? []))
                    .joined(separator: ", ")
                let plain = { (text: String) in text.replacingOccurrences(of: "`", with: "") }
                let padded = names.count < 30 ? names.padding(toLength: 30, withPad: " ", startingAt: 0) : names + " "
                lines.append("\(padded) \(plain(variable.meaning)) (default: \(plain(variable.defaultValue)))")
            }
        }
        return lines.joined(separator: "\n")
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

    /// The secrets among the variables: never in swift-configuration's access reports, never in an error.
    static let secretNames: Set<String> = [
        "MEND_APP_SECRET", "MEND_TOKEN_ENCRYPTION_KEY", "MEND_SIGNING_KEYS", "MEND_GOOGLE_SERVER_CLIENT_SECRET",
        "DATABASE_URL", "MEND_DATABASE_URL",
    ]

    /// The variables that may name a file holding their value instead (`…_FILE`).
    static var fileBackedNames: [String] { variables.filter { $0.fileVariant != nil }.map(\.name) }

    /// Every name the configuration reads: the variables, their aliases and their file forms.
    static var knownNames: Set<String> {
        Set(variables.flatMap { [$0.name] + $0.aliases + ($0.fileVariant.map { [$0] } ?? []) })
    }

    /// `MEND_*` names that are not mend-server's but are Mend's: the `mend` tool's, `mend-server admin`'s, and the
    /// test command's (a shell that runs both should not be warned about them).
    static let otherToolsNames = Set(ToolVariable.allCases.map(\.rawValue) + ["MEND_ONLY_TESTS", "MEND_WITHOUT_OTLP"])
    static let otherToolsPrefixes = ["MEND_TEST_", "MEND_TORTURE_", "MEND_FUZZ_", "MEND_SCHEMATHESIS_", "MEND_PG_"]

    /// The one scan for names: each `MEND_*` variable of `names` the configuration does not read, with the closest
    /// known name when one is near (`MEND_PROT: did you mean MEND_PORT?`).
    static func unknownNameWarnings(_ names: some Sequence<String>, source: String) -> [String] {
        let known = knownNames
        return names.filter { name in
            name.hasPrefix("MEND_") && !known.contains(name) && !otherToolsNames.contains(name)
                && !otherToolsPrefixes.contains { name.hasPrefix($0) }
        }.sorted().map { (name: String) -> String in
            var closest: (name: String, distance: Int)?
            for candidate in known.sorted() {
                let distance = NameSuggestion.editDistance(name, candidate)
                if closest == nil || distance < closest!.distance { closest = (candidate, distance) }
            }
            if let (suggestion, distance) = closest, distance <= max(2, name.count / 4) {
                return "\(name) (\(source)) is not a mend-server variable: did you mean \(suggestion)?"
            }
            return "\(name) (\(source)) is not a mend-server variable (mend-server env lists them)"
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    static func configuration(reading variables: VariableReader) throws(ConfigurationError) -> ServerConfiguration {
        let value = variables.text, duration = variables.duration, flag = variables.flag, url = variables.url
        let list: (String) -> [String]? = variables.list

        var configuration = ServerConfiguration()
        if let level = try variables.logLevel("MEND_LOG_LEVEL") { configuration.logLevel = level }
        if let appID = value("MEND_APP_ID", []) {
            guard let secret = value("MEND_APP_SECRET", []) else {
                throw ConfigurationError("MEND_APP_SECRET (or MEND_APP_SECRET_FILE) is required with MEND_APP_ID")
            }
            var facebook = FacebookApp(appID: appID, appSecret: Secret(secret))
            if let graphURL = try url("MEND_GRAPH_URL") { facebook.graphURL = graphURL }
            if let version = value("MEND_GRAPH_VERSION", []) { facebook.graphVersion = version }
            if let scopes = list("MEND_REQUIRED_SCOPES") { facebook.requiredScopes = scopes }
            if let exchange = try flag("MEND_LONG_LIVED_EXCHANGE") { facebook.exchangesForLongLivedToken = exchange }
            if let interval = try duration("MEND_VALIDITY_CHECK_INTERVAL", []) {
                facebook.validityCheckInterval = interval
            }
            if let age = try duration("MEND_PROFILE_MAX_AGE", []) { facebook.profileMaxAge = age }
            if let age = try duration("MEND_SIGNED_REQUEST_MAX_AGE", []) { facebook.signedRequestMaxAge = age }
            configuration.providers.facebook = facebook
        } else if value("MEND_APP_SECRET", []) != nil {
            throw ConfigurationError("MEND_APP_SECRET is set without MEND_APP_ID: the Facebook app needs both")
        }
        if let host = value("MEND_HOST", []) { configuration.listening.host = host }
        if let port = try variables.integer("MEND_PORT", maximum: 65535) { configuration.listening.port = port }
        if let delay = try duration("MEND_DRAIN_DELAY", []) { configuration.listening.drainDelay = delay }
        if let trusts = try flag("MEND_TRUST_FORWARDED_FOR") {
            configuration.listening.trustedProxyCount = trusts ? 1 : 0
        }
        if let proxies = try variables.integer("MEND_TRUSTED_PROXIES") {
            configuration.listening.trustedProxyCount = proxies
        }
        if let publicURL = try url("MEND_PUBLIC_URL") { configuration.listening.publicURL = publicURL }
        if let size = try variables.integer("MEND_MAX_BODY_SIZE", minimum: 1024) {
            configuration.listening.maximumBodySize = size
        }
        if let database = value("DATABASE_URL", ["MEND_DATABASE_URL"]) {
            _ = try DatabaseLocation.parse(database)
            configuration.storage.databaseURL = database
        }
        if let retention = try duration("MEND_AUDIT_RETENTION", []) { configuration.storage.auditRetention = retention }
        if let tokens = value("MEND_ADMIN_TOKENS", []) {
            configuration.admin.tokens = try AdminToken.parse(list: tokens)
        }
        if let rule = try variables.rateLimit("MEND_RATE_LIMIT_ADMIN") { configuration.admin.rateLimit = rule }
        if let key = value("MEND_TOKEN_ENCRYPTION_KEY", []) {
            guard Data(base64Encoded: key)?.count == 32 else {
                throw ConfigurationError("MEND_TOKEN_ENCRYPTION_KEY must be 32 bytes in base64")
            }
            configuration.storage.tokenEncryptionKey = Secret(key)
        }
        if let uris = try variables.list(
            "MEND_REDIRECT_URIS", as: RedirectURI.self,
            failure: { ConfigurationError("MEND_REDIRECT_URIS: '\($0)' is not an absolute URI without a fragment") })
        {
            configuration.sessions.allowedRedirectURIs = uris.map(\.text)
        }
        if let keys = value("MEND_SIGNING_KEYS", []) {
            configuration.sessions.signingKeys = try SigningKeyConfiguration.parse(list: keys)
        }
        if let issuer = value("MEND_ISSUER", []) { configuration.sessions.issuer = issuer }
        if let audience = value("MEND_AUDIENCE", []) { configuration.sessions.audience = audience }
        if let ttl = try duration("MEND_ACCESS_TOKEN_TTL", []) { configuration.sessions.accessTokenLifetime = ttl }
        if let ttl = try duration("MEND_SESSION_IDLE_TTL", ["MEND_REFRESH_TOKEN_TTL"]) {
            configuration.sessions.idleLifetime = ttl
        }
        if let ttl = try duration("MEND_SESSION_MAX_TTL", []) { configuration.sessions.maximumLifetime = ttl }
        if let grace = try duration("MEND_REFRESH_REUSE_GRACE", []) { configuration.sessions.refreshReuseGrace = grace }
        if let requires = try flag("MEND_REQUIRE_PKCE") { configuration.sessions.requiresPKCE = requires }
        if let size = try variables.integer("MEND_TOKEN_CACHE_SIZE") {
            configuration.sessions.verifiedTokenCacheSize = size
        }
        for (name, limit) in [
            ("MEND_RATE_LIMIT_LOGIN_IP", \ServerConfiguration.Sessions.RateLimits.loginPerAddress),
            ("MEND_RATE_LIMIT_LOGIN_USER", \.loginPerUser), ("MEND_RATE_LIMIT_REFRESH_IP", \.refreshPerAddress),
            ("MEND_RATE_LIMIT_REFRESH_USER", \.refreshPerUser),
        ] {
            if let rule = try variables.rateLimit(name) { configuration.sessions.rateLimits[keyPath: limit] = rule }
        }
        if let mode = try variables.value(
            "MEND_DPOP", as: ServerConfiguration.DPoPMode.self,
            failure: { text in
                ConfigurationError("MEND_DPOP '\(text)' must be off, allowed or required")
            })
        {
            configuration.sessions.dpop = mode
        }
        if let requires = try flag("MEND_DPOP_NONCE") { configuration.sessions.dpopRequiresNonce = requires }
        try configuration.passkeys.read(variables)
        if let returns = try flag("MEND_RETURN_PROVIDER_TOKEN") {
            configuration.providers.returnsProviderToken = returns
        }
        if let timeout = try duration("MEND_PROVIDER_TIMEOUT", []) { configuration.providers.timeout = timeout }
        let mode = try variables.value("MEND_PROVIDER_RECORDING_MODE", as: RecordMode.self) { text in
            ConfigurationError("MEND_PROVIDER_RECORDING_MODE '\(text)' must be once, newEpisodes, none or all")
        }
        if let file = value("MEND_PROVIDER_RECORDING", []) {
            configuration.providers.recording = (URL(fileURLWithPath: file), mode ?? .all)
        }
        if let attempts = try variables.integer("MEND_PROVIDER_MAX_ATTEMPTS", minimum: 1) {
            configuration.providers.maxAttempts = attempts
        }
        if let clients = list("MEND_APPLE_CLIENT_IDS"), !clients.isEmpty {
            let base = IDTokenIssuer.apple(clientIDs: clients)
            let issuer = value("MEND_APPLE_ISSUER", []) ?? base.issuer
            var credentials: AppleClientCredentials?
            if let teamID = value("MEND_APPLE_TEAM_ID", []) {
                guard let keyID = value("MEND_APPLE_KEY_ID", []), let path = value("MEND_APPLE_PRIVATE_KEY_FILE", [])
                else {
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
            configuration.providers.idTokenIssuers.append(
                .apple(
                    clientIDs: clients, issuer: issuer, jwksURI: try url("MEND_APPLE_JWKS_URL") ?? base.jwksURI,
                    credentials: credentials))
        }
        if let clients = list("MEND_GOOGLE_CLIENT_IDS"), !clients.isEmpty {
            let base = IDTokenIssuer.google(clientIDs: clients)
            var serverClient: ClientSecretTokenKeeper?
            if let serverClientID = value("MEND_GOOGLE_SERVER_CLIENT_ID", []) {
                guard let secret = value("MEND_GOOGLE_SERVER_CLIENT_SECRET", []) else {
                    throw ConfigurationError("MEND_GOOGLE_SERVER_CLIENT_ID needs MEND_GOOGLE_SERVER_CLIENT_SECRET")
                }
                let defaults = ClientSecretTokenKeeper.google(clientID: serverClientID, clientSecret: Secret(secret))
                serverClient = .google(
                    clientID: serverClientID, clientSecret: Secret(secret),
                    tokenEndpoint: try url("MEND_GOOGLE_TOKEN_URL") ?? defaults.tokenEndpoint,
                    revocationEndpoint: try url("MEND_GOOGLE_REVOCATION_URL") ?? defaults.revocationEndpoint)
            }
            configuration.providers.idTokenIssuers.append(
                .google(
                    clientIDs: clients, issuer: value("MEND_GOOGLE_ISSUER", []) ?? base.issuer,
                    jwksURI: try url("MEND_GOOGLE_JWKS_URL") ?? base.jwksURI, serverClient: serverClient))
        }
        if try flag("MEND_LIMITED_LOGIN") == true {
            guard let appID = configuration.providers.facebook?.appID else {
                throw ConfigurationError("MEND_LIMITED_LOGIN needs MEND_APP_ID: Limited Login's tokens name the app")
            }
            let base = IDTokenIssuer.limitedLogin(appID: appID)
            configuration.providers.idTokenIssuers.append(
                .limitedLogin(
                    appID: appID, issuer: value("MEND_LIMITED_LOGIN_ISSUER", []) ?? base.issuer,
                    jwksURI: try url("MEND_LIMITED_LOGIN_JWKS_URL") ?? base.jwksURI))
        }
        try configuration.validate()
        return configuration
    }
}

extension ServerConfiguration {
    /// The variables ``load(environment:overrides:)`` reads, in the order `docs/server.md` lists them. The defaults are read
    /// from the groups' initializers, where each is written once.
    public static var environmentVariables: [EnvironmentVariable] { ServerEnvironment.variables }

    /// ``environmentVariables`` as `docs/server.md`'s Markdown table (`markdown`), or as `mend-server env` prints
    /// them: one line each, the name padded, then the meaning and the default.
    public static func environmentTable(markdown: Bool) -> String { ServerEnvironment.table(markdown: markdown) }
    /// Reads the configuration from `environment` (by default the process's), over the JSON file that
    /// `MEND_CONFIG_FILE` names, if any, through swift-configuration; `overrides` (the command line's `--host` and
    /// `--port`, by variable name) win over both.
    ///
    /// A value that is set must be right: an unknown log level, a redirect URI that is not absolute, a size below
    /// its minimum or a duration that is not one is refused, never replaced by the default.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable that is missing or wrong (never a secret's value);
    ///   below macOS 15, iOS 18, tvOS 18 and watchOS 11, which swift-configuration needs, too (build a
    ///   configuration in code there).
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: [String: String] = [:]
    ) throws
        -> ServerConfiguration
    {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
            throw ConfigurationError(
                "reading mend-server's configuration needs macOS 15, iOS 18, tvOS 18 or watchOS 11 or later "
                    + "(swift-configuration); this system is older")
        }
        return try ServerEnvironment.configuration(
            reading: VariableReader(environment: environment, overrides: overrides))
    }

    /// Warnings about the names in `environment` and in the file `MEND_CONFIG_FILE` names: each `MEND_*` name the
    /// configuration does not read, with the closest known one (`MEND_PROT (environment) is not a mend-server
    /// variable: did you mean MEND_PORT?`). `mend-server` prints them at start and in `check-config`.
    public static func unknownVariableWarnings(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var warnings = ServerEnvironment.unknownNameWarnings(environment.keys, source: "environment")
        if let path = environment["MEND_CONFIG_FILE"], !path.isEmpty,
            let values = try? ServerEnvironment.fileValues(path: path)
        {
            warnings += ServerEnvironment.unknownNameWarnings(values.keys, source: "MEND_CONFIG_FILE")
        }
        return warnings
    }

    /// Checks the values that have to make sense together.
    public func validate() throws(ConfigurationError) {
        if let facebook = providers.facebook {
            guard !facebook.appID.isEmpty else { throw ConfigurationError("MEND_APP_ID is required") }
            guard !facebook.appSecret.value.isEmpty else { throw ConfigurationError("MEND_APP_SECRET is required") }
        }
        guard !providers.names.isEmpty else {
            throw ConfigurationError(
                "MEND_APP_ID is required, or another provider (MEND_APPLE_CLIENT_IDS, MEND_GOOGLE_CLIENT_IDS): "
                    + "no provider is configured")
        }
        guard !sessions.allowedRedirectURIs.isEmpty else {
            throw ConfigurationError(
                "MEND_REDIRECT_URIS is required: the redirect URIs your apps log in with, comma-separated "
                    + "(`mend login --backend` logs in through http://127.0.0.1/callback, any port: RFC 8252)")
        }
        guard sessions.accessTokenLifetime > .zero, sessions.idleLifetime > sessions.accessTokenLifetime else {
            throw ConfigurationError(
                "MEND_SESSION_IDLE_TTL (or MEND_REFRESH_TOKEN_TTL) must be longer than MEND_ACCESS_TOKEN_TTL (> 0)")
        }
        guard sessions.maximumLifetime > sessions.accessTokenLifetime else {
            throw ConfigurationError("MEND_SESSION_MAX_TTL must be longer than MEND_ACCESS_TOKEN_TTL")
        }
        _ = try DatabaseLocation.parse(storage.databaseURL)
        guard admin.tokens.allSatisfy({ AdminToken.isValidID($0.id) && $0.sha256.count == 32 }),
            Set(admin.tokens.map(\.id)).count == admin.tokens.count
        else {
            throw ConfigurationError(
                "MEND_ADMIN_TOKENS: each token needs an id of its own (letters, digits, `.`, `_`, `-`) and a SHA-256")
        }
        var names = Set<String>()
        for issuer in providers.idTokenIssuers {
            guard !issuer.clientIDs.isEmpty, names.insert(issuer.name).inserted else {
                throw ConfigurationError("id_token issuer \(issuer.name): named twice, or without client ids")
            }
            if let credentials = issuer.appleCredentials, !credentials.isValidKey {
                throw ConfigurationError("MEND_APPLE_PRIVATE_KEY_FILE is not a P-256 private key in PEM (.p8)")
            }
        }
        names.insert("facebook")
        for provider in providers.codeLogin {
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
