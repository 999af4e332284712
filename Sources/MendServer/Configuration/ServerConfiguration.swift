public import Foundation
public import MendGraphAPI
public import MendHTTP

/// Everything `mend-server` needs to run: where it listens, the provider and the app's credentials, the redirect
/// URIs it accepts, the database, the session signing keys and lifetimes, and its rate limits.
///
/// Build one in code, or read it from the environment and an optional JSON file with
/// ``load(environment:)`` (every variable is listed in `docs/server.md`).
///
/// ```swift
/// var configuration = ServerConfiguration(appID: "111111111111111", appSecret: Secret("…"))
/// configuration.allowedRedirectURIs = ["https://app.example/callback"]
/// let app = try await buildApplication(configuration: configuration)
/// try await app.runService()
/// ```
public struct ServerConfiguration: Sendable {
    /// The address to listen on (`127.0.0.1` by default; `0.0.0.0` in a container).
    public var host: String
    /// The port to listen on; 0 picks a free one.
    public var port: Int
    /// The provider's Graph API base URL, without the version (`https://graph.facebook.com`).
    public var graphURL: URL
    /// The Graph API version (`v25.0`).
    public var graphVersion: String
    /// The app id that tokens must belong to (`debug_token`'s `app_id`).
    public var appID: String
    /// The app secret: exchanges codes, signs `appsecret_proof`, verifies `signed_request`. Never logged.
    public var appSecret: Secret
    /// Scopes a login must have granted; a token missing any is refused with the missing permissions.
    public var requiredScopes: [String]
    /// Redirect URIs accepted in `POST /v1/login/code`, compared exactly; a loopback `http` URI (`127.0.0.1`,
    /// `[::1]`, `localhost`) matches on any port (RFC 8252).
    public var allowedRedirectURIs: [String]
    /// Where the data lives: `sqlite:///path/mend.sqlite`, `sqlite::memory:`, or `postgres://user:pass@host/db`.
    public var databaseURL: String
    /// The keys that sign session access tokens; the first signs, all verify and are published in the JWKS.
    /// Empty: one Ed25519 key is generated at start (sessions do not survive a restart; one instance only).
    public var signingKeys: [SigningKeyConfiguration]
    /// The `iss` of session access tokens.
    public var issuer: String
    /// The `aud` of session access tokens, which this server's resource checks accept (`nil`: the app id, as before
    /// this setting existed). Give it a value of its own — the API's URL — so that the tokens do not name a provider's
    /// app.
    public var audience: String?
    /// How long an access token is valid (900 s by default).
    public var accessTokenLifetime: Duration
    /// How long a refresh token is valid (30 days by default).
    public var refreshTokenLifetime: Duration
    /// How long after a rotation the old refresh token still answers its successor again — the same refresh token,
    /// with a new access token — as long as that successor is unused, rather than being treated as stolen (60 s by
    /// default).
    ///
    /// This makes a refresh idempotent for a client whose answer was lost (a timeout, a connection dropped after the
    /// server committed) and for several processes refreshing the same token at once. It must be at least as long as
    /// a client's whole refresh attempt including its retries (a Mend client caps that at about 30 s): a client that
    /// lost the answer and retries only after the grace presents a spent token, which is reuse and ends the session
    /// (session/12). Longer is safe against that but leaves a stolen, already rotated token usable for as long, and
    /// only while its successor is unused.
    public var refreshReuseGrace: Duration
    /// Whether the login response carries the provider's long-lived token (`provider_token`); off by default.
    public var returnsProviderToken: Bool
    /// Whether the short-lived token is exchanged for a long-lived one (on by default).
    public var exchangesForLongLivedToken: Bool
    /// Rate limits on login and refresh.
    public var rateLimits: RateLimits
    /// Whether code logins must carry a PKCE `code_verifier` (on by default, RFC 9700 §2.1.1). Turn it off only for a
    /// server whose clients are all confidential (they hold a secret of their own and cannot use PKCE).
    public var requiresPKCE: Bool
    /// How many trusted proxies (load balancers) stand in front of the server: the client address is the
    /// `X-Forwarded-For` entry that many places from the right (each proxy appends the address it saw; the entries to
    /// its left are the client's to write). Zero, the default, ignores `X-Forwarded-For`; a request with fewer
    /// entries than this did not come through the proxies and is keyed by its peer address.
    public var trustedProxyCount: Int
    /// The server's public base URL, for the data-deletion status link; by default taken from the request.
    public var publicURL: URL?
    /// How often stored provider tokens are re-checked with `debug_token` (daily); zero turns the check off.
    public var validityCheckInterval: Duration
    /// How old the stored profile may be before `GET /v1/me` refreshes it from the provider (one hour).
    public var profileMaxAge: Duration
    /// How old a `signed_request` may be (its `issued_at`) before it is refused (one hour).
    public var signedRequestMaxAge: Duration
    /// How long one call to the provider may take.
    public var providerTimeout: Duration
    /// How many times an idempotent provider call is tried on a transient error (the code exchange: once).
    public var providerMaxAttempts: Int
    /// The base delay of the provider retry backoff.
    public var providerRetryBase: Duration
    /// A 32-byte key (AES-GCM) that encrypts stored provider tokens; `nil` stores them as they are.
    public var tokenEncryptionKey: Secret?
    /// The largest request body accepted.
    public var maximumBodySize: Int
    /// The server's clock (MendHTTP's one clock): the time of every expiry, rate limit, signature and
    /// `signed_request` check, the waits of its provider calls' retries and the background check's period. Replace
    /// it in tests (`offsetClock.pipeline()`). The revocation feed's polling waits real time on purpose: it paces
    /// reading the database and decides nothing.
    public var clock: PipelineClock
    /// The providers whose id_tokens `POST /v1/login/id_token` accepts (none by default: the endpoint answers 400).
    public var idTokenIssuers: [IDTokenIssuer]
    /// More providers `POST /v1/login/code` logs in with (by their ``CodeLoginProvider/name``) and `DELETE /v1/me`
    /// revokes at, beside Facebook and the ``idTokenIssuers`` (none by default; set in Swift only).
    public var codeLoginProviders: [any CodeLoginProvider]

    /// Creates a configuration with the defaults for everything but the app's credentials.
    public init(
        appID: String, appSecret: Secret, host: String = "127.0.0.1", port: Int = 8080,
        graphURL: URL = GraphAPI.defaultURL, graphVersion: String = GraphAPI.defaultVersion,
        databaseURL: String = "sqlite://mend.sqlite"
    ) {
        self.host = host
        self.port = port
        self.graphURL = graphURL
        self.graphVersion = graphVersion
        self.appID = appID
        self.appSecret = appSecret
        self.requiredScopes = []
        self.allowedRedirectURIs = []
        self.databaseURL = databaseURL
        self.signingKeys = []
        self.issuer = "mend-server"
        self.audience = nil
        self.accessTokenLifetime = .seconds(900)
        self.refreshTokenLifetime = .seconds(30 * 86400)
        self.refreshReuseGrace = .seconds(60)
        self.returnsProviderToken = false
        self.exchangesForLongLivedToken = true
        self.rateLimits = RateLimits()
        self.trustedProxyCount = 0
        self.requiresPKCE = true
        self.publicURL = nil
        self.validityCheckInterval = .seconds(86400)
        self.profileMaxAge = .seconds(3600)
        self.signedRequestMaxAge = .seconds(3600)
        self.providerTimeout = .seconds(10)
        self.providerMaxAttempts = 3
        self.providerRetryBase = .milliseconds(200)
        self.tokenEncryptionKey = nil
        self.maximumBodySize = 64 * 1024
        self.clock = .system
        self.idTokenIssuers = []
        self.codeLoginProviders = []
    }
}

extension ServerConfiguration {
    /// The `aud` the session access tokens carry: ``audience``, or the app id without one.
    var accessTokenAudience: String { audience ?? appID }
}

extension ServerConfiguration {
    /// The rate limits of the login and refresh endpoints, per client address and per user.
    public struct RateLimits: Sendable, Hashable {
        /// `POST /v1/login/code` per client address.
        public var loginPerAddress: RateLimitRule?
        /// `POST /v1/login/code` per provider user (checked once the provider named the user).
        public var loginPerUser: RateLimitRule?
        /// `POST /v1/session/refresh` per client address.
        public var refreshPerAddress: RateLimitRule?
        /// `POST /v1/session/refresh` per user.
        public var refreshPerUser: RateLimitRule?

        /// Creates limits; the defaults suit one app's traffic per instance.
        public init(
            loginPerAddress: RateLimitRule? = RateLimitRule(requests: 30, per: .seconds(60)),
            loginPerUser: RateLimitRule? = RateLimitRule(requests: 10, per: .seconds(60)),
            refreshPerAddress: RateLimitRule? = RateLimitRule(requests: 120, per: .seconds(60)),
            refreshPerUser: RateLimitRule? = RateLimitRule(requests: 30, per: .seconds(60))
        ) {
            self.loginPerAddress = loginPerAddress
            self.loginPerUser = loginPerUser
            self.refreshPerAddress = refreshPerAddress
            self.refreshPerUser = refreshPerUser
        }

        /// No limits at all (benchmarks and tests that hammer one endpoint).
        public static let unlimited = RateLimits(
            loginPerAddress: nil, loginPerUser: nil, refreshPerAddress: nil, refreshPerUser: nil)
    }
}
