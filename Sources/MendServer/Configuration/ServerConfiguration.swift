public import Foundation
public import Logging
public import MendGraphAPI
public import MendHTTP
public import MendRecording

/// Everything `mend-server` needs to run, in six values: where it listens (``listening``), where its data lives
/// (``storage``), the sessions it issues (``sessions``), the providers users log in with (``providers``, Facebook one
/// of them), the operator's admin API (``admin``) and the clock it reads (``clock``).
///
/// Build one in code, or read it from the environment and an optional JSON file with
/// ``load(environment:overrides:)``; every variable, its default and its meaning is in ``environmentVariables``
/// (`mend-server env` prints them, and `docs/server.md`'s table is the same list). Each default is written once, in
/// the group's initializer.
///
/// ```swift
/// var configuration = ServerConfiguration(appID: "111111111111111", appSecret: Secret("…"))
/// configuration.sessions.allowedRedirectURIs = ["https://app.example/callback"]
/// configuration.sessions.audience = "https://api.example"
/// let app = try await buildApplication(configuration: configuration)
/// try await app.runService()
/// ```
public struct ServerConfiguration: Sendable {
    /// Where the server listens and what it accepts on the wire.
    public var listening: Listening
    /// Where the data lives.
    public var storage: Storage
    /// The sessions the server issues: their tokens, lifetimes, the redirect URIs and rate limits of logins.
    public var sessions: Sessions
    /// The providers users log in with, and how they are called.
    public var providers: Providers
    /// The admin API: its tokens (none by default: it is off) and its rate limit.
    public var admin: Admin
    /// Passkeys (WebAuthn sign-in): off unless an RP ID is configured.
    public var passkeys: PasskeyConfiguration = PasskeyConfiguration()
    /// The server's clock (MendHTTP's one clock): the time of every expiry, rate limit, signature and
    /// `signed_request` check, the waits of its provider calls' retries and the background check's period. Replace
    /// it in tests (`offsetClock.pipeline()`). The revocation feed's polling waits real time on purpose: it paces
    /// reading the database and decides nothing.
    public var clock: PipelineClock
    /// The level `mend-server` logs at (`MEND_LOG_LEVEL`, `info` by default). The library logs through the logger
    /// it is given, at that logger's level; the executable sets its logger's level from this.
    public var logLevel: Logger.Level = .info

    /// Creates a configuration from its groups; each group's initializer holds the defaults.
    public init(
        listening: Listening = Listening(), storage: Storage = Storage(), sessions: Sessions = Sessions(),
        providers: Providers = Providers(), admin: Admin = Admin(), clock: PipelineClock = .system
    ) {
        self.listening = listening
        self.storage = storage
        self.sessions = sessions
        self.providers = providers
        self.admin = admin
        self.clock = clock
    }

    /// A Facebook app's backend: the defaults for everything but the app's credentials.
    public init(
        appID: String, appSecret: Secret, host: String = Listening().host, port: Int = Listening().port,
        graphURL: URL = GraphAPI.defaultURL, graphVersion: String = GraphAPI.defaultVersion,
        databaseURL: String = Storage().databaseURL
    ) {
        self.init(
            listening: Listening(host: host, port: port), storage: Storage(databaseURL: databaseURL),
            providers: Providers(
                facebook: FacebookApp(
                    appID: appID, appSecret: appSecret, graphURL: graphURL, graphVersion: graphVersion)
            ))
    }
}

extension ServerConfiguration {
    /// Where the server listens and what it accepts on the wire.
    public struct Listening: Sendable, Hashable {
        /// The address to listen on (`127.0.0.1` by default; `0.0.0.0` in a container).
        public var host: String
        /// The port to listen on; 0 picks a free one.
        public var port: Int
        /// How many trusted proxies (load balancers) stand in front of the server: the client address is the
        /// `X-Forwarded-For` entry that many places from the right (each proxy appends the address it saw; the
        /// entries to its left are the client's to write). Zero, the default, ignores `X-Forwarded-For`; a request
        /// with fewer entries than this did not come through the proxies and is keyed by its peer address.
        public var trustedProxyCount: Int
        /// The largest request body accepted, in bytes.
        public var maximumBodySize: Int
        /// The server's public base URL, for the data-deletion status link; by default taken from the request.
        public var publicURL: URL?
        /// How long `mend-server serve` keeps serving after SIGTERM or SIGINT while `/health/ready` answers 503 (5 s
        /// by default; zero closes the listener at once), so that a load balancer stops sending it requests before
        /// its listener closes. It must exceed the load balancer's failed checks times its check interval. Only
        /// ``LoginBackend/runUntilSignalled(onReady:)`` drains; ``LoginBackend/withRunningServer(_:)`` stops at once.
        public var drainDelay: Duration

        /// Listening settings; the defaults listen on 127.0.0.1:8080 with no proxy in front, and drain for 5 s.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, trustedProxyCount: Int = 0, maximumBodySize: Int = 64 * 1024,
            publicURL: URL? = nil, drainDelay: Duration = .seconds(5)
        ) {
            self.host = host
            self.port = port
            self.trustedProxyCount = trustedProxyCount
            self.maximumBodySize = maximumBodySize
            self.publicURL = publicURL
            self.drainDelay = drainDelay
        }
    }

    /// Where the data lives.
    public struct Storage: Sendable, Hashable {
        /// `sqlite:///path/mend.sqlite`, `sqlite::memory:`, or `postgres://user:pass@host/db`.
        public var databaseURL: String
        /// A 32-byte key (AES-GCM, base64) that encrypts stored provider tokens; `nil` stores them as they are.
        public var tokenEncryptionKey: Secret?
        /// How long the audit log keeps an event (90 days by default); older ones are pruned in the background.
        public var auditRetention: Duration

        /// Storage settings; the default is `mend.sqlite` in the working directory, unencrypted.
        public init(
            databaseURL: String = "sqlite://mend.sqlite", tokenEncryptionKey: Secret? = nil,
            auditRetention: Duration = .seconds(90 * 86400)
        ) {
            self.databaseURL = databaseURL
            self.tokenEncryptionKey = tokenEncryptionKey
            self.auditRetention = auditRetention
        }
    }

    /// The sessions the server issues.
    public struct Sessions: Sendable, Hashable {
        /// The `iss` of session access tokens.
        public var issuer: String
        /// The `aud` of session access tokens, which this server's resource checks accept (`nil`: the Facebook app
        /// id, as before this setting existed, else ``issuer``). Give it a value of its own — the API's URL — so that
        /// the tokens do not name a provider's app.
        public var audience: String?
        /// The keys that sign session access tokens; the first signs, all verify and are published in the JWKS.
        /// Empty: one Ed25519 key is generated at start (sessions do not survive a restart; one instance only).
        public var signingKeys: [SigningKeyConfiguration]
        /// How long an access token is valid (15 minutes by default).
        public var accessTokenLifetime: Duration
        /// How long a session lasts without a refresh — its refresh token's lifetime, from its last use — (30 days
        /// by default): the idle lifetime, which every refresh starts again.
        public var idleLifetime: Duration
        /// How long a session lasts at most, from its login, however often it refreshes (90 days by default): a
        /// refresh after it ends the session (session/15), and no token it issues outlives it. It applies to the
        /// sessions already open when it changes.
        public var maximumLifetime: Duration
        /// How long after a rotation the old refresh token still answers its successor again — the same refresh
        /// token, with a new access token — as long as that successor is unused, rather than being treated as stolen
        /// (60 s by default).
        ///
        /// This makes a refresh idempotent for a client whose answer was lost (a timeout, a connection dropped after
        /// the server committed) and for several processes refreshing the same token at once. It must be at least as
        /// long as a client's whole refresh attempt including its retries (a Mend client caps that at about 30 s): a
        /// client that lost the answer and retries only after the grace presents a spent token, which is reuse and
        /// ends the session (session/12). Longer is safe against that but leaves a stolen, already rotated token
        /// usable for as long, and only while its successor is unused.
        public var refreshReuseGrace: Duration
        /// Whether code logins must carry a PKCE `code_verifier` (on by default, RFC 9700 §2.1.1). Turn it off only
        /// for a server whose clients are all confidential (they hold a secret of their own and cannot use PKCE).
        public var requiresPKCE: Bool
        /// Redirect URIs accepted in `POST /v1/login/code`, compared exactly; a loopback `http` URI (`127.0.0.1`,
        /// `[::1]`, `localhost`) matches on any port (RFC 8252).
        public var allowedRedirectURIs: [String]
        /// Rate limits on login and refresh.
        public var rateLimits: RateLimits
        /// How many verified access tokens a bearer check keeps (10,000 by default, about 1 KB each; 0 turns the
        /// cache off): a token presented again skips its signature check until its `exp`. Expiry and the
        /// revocation view are still checked on every request, so a logout is refused as fast as without it.
        public var verifiedTokenCacheSize: Int
        /// Whether sessions are bound to a key the client holds (DPoP, RFC 9449): `allowed` by default — a login or
        /// refresh that carries a proof gets a bound session, whose every use must carry a proof of the same key, and
        /// bearer sessions still work (`MEND_DPOP`).
        public var dpop: DPoPMode
        /// Whether every DPoP proof must carry a nonce this server issued (`MEND_DPOP_NONCE`, off by default): a
        /// proof made in advance cannot be used, and a proof is at most two nonce steps (two minutes) old.
        public var dpopRequiresNonce: Bool

        /// Session settings with the defaults: no redirect URI (set at least one), a generated signing key.
        public init(
            issuer: String = "mend-server", audience: String? = nil, signingKeys: [SigningKeyConfiguration] = [],
            accessTokenLifetime: Duration = .seconds(900), idleLifetime: Duration = .seconds(30 * 86400),
            maximumLifetime: Duration = .seconds(90 * 86400), refreshReuseGrace: Duration = .seconds(60),
            requiresPKCE: Bool = true, allowedRedirectURIs: [String] = [],
            rateLimits: RateLimits = RateLimits(), verifiedTokenCacheSize: Int = 10_000, dpop: DPoPMode = .allowed,
            dpopRequiresNonce: Bool = false
        ) {
            self.dpop = dpop
            self.dpopRequiresNonce = dpopRequiresNonce
            self.issuer = issuer
            self.audience = audience
            self.signingKeys = signingKeys
            self.accessTokenLifetime = accessTokenLifetime
            self.idleLifetime = idleLifetime
            self.maximumLifetime = maximumLifetime
            self.refreshReuseGrace = refreshReuseGrace
            self.requiresPKCE = requiresPKCE
            self.allowedRedirectURIs = allowedRedirectURIs
            self.rateLimits = rateLimits
            self.verifiedTokenCacheSize = verifiedTokenCacheSize
        }
    }

    /// Whether sessions are bound to a key their client holds (DPoP, RFC 9449).
    public enum DPoPMode: String, Sendable, Hashable, CaseIterable {
        /// No binding: proofs are ignored and every session is a bearer session (a bound session issued before keeps
        /// working as a bearer one).
        case off
        /// A login or refresh with a proof gets a bound session, whose every use must then carry a proof of its key;
        /// a client without DPoP keeps bearer sessions. The default.
        case allowed
        /// Every login must carry a proof, and every session is bound; a bearer session issued before is refused
        /// (its client must log in again).
        case required
    }

    /// The providers users log in with, and how the server calls them.
    public struct Providers: Sendable {
        /// The Facebook app whose users log in with a code or a provider token, whose tokens are re-checked with
        /// `debug_token` and whose `signed_request` callbacks the server answers; `nil` runs the server with the
        /// other providers only.
        public var facebook: FacebookApp?
        /// The providers whose id_tokens `POST /v1/login/id_token` accepts (none by default: the endpoint answers
        /// 400).
        public var idTokenIssuers: [IDTokenIssuer]
        /// More providers `POST /v1/login/code` logs in with (by their ``CodeLoginProvider/name``) and `DELETE /v1/me`
        /// revokes at, beside Facebook and the ``idTokenIssuers`` (none by default; set in Swift only).
        public var codeLogin: [any CodeLoginProvider]
        /// Whether the login response carries the provider's (long-lived) token as `provider_token`; off by default.
        public var returnsProviderToken: Bool
        /// How long one call to a provider may take.
        public var timeout: Duration
        /// How many times an idempotent provider call is tried on a transient error (the code exchange: once).
        public var maxAttempts: Int
        /// The base delay of the provider calls' retry backoff.
        public var retryBase: Duration
        /// A HAR file the server records its provider calls into, every secret redacted (MendRecording), and how
        /// (`nil`, the default: no recording). To see what a provider answered; a replay mode answers from the file.
        public var recording: (file: URL, mode: RecordMode)?

        /// Provider settings; with no argument, no provider at all (give at least one).
        public init(
            facebook: FacebookApp? = nil, idTokenIssuers: [IDTokenIssuer] = [], codeLogin: [any CodeLoginProvider] = [],
            returnsProviderToken: Bool = false, timeout: Duration = .seconds(10), maxAttempts: Int = 3,
            retryBase: Duration = .milliseconds(200)
        ) {
            self.facebook = facebook
            self.idTokenIssuers = idTokenIssuers
            self.codeLogin = codeLogin
            self.returnsProviderToken = returnsProviderToken
            self.timeout = timeout
            self.maxAttempts = maxAttempts
            self.retryBase = retryBase
            self.recording = nil
        }

        /// Every provider name a login may carry: Facebook's, the id_token issuers' and the app's own.
        var names: [String] {
            (facebook == nil ? [] : ["facebook"]) + idTokenIssuers.map(\.name) + codeLogin.map(\.name)
        }
    }
}

/// The Facebook app a `mend-server` logs its users in with: its credentials, where its Graph API is, what a login
/// must grant, and the app-specific checks (the long-lived exchange, the validity check, the profile's age, the
/// `signed_request` callbacks' age).
public struct FacebookApp: Sendable, Hashable {
    /// The app id that tokens must belong to (`debug_token`'s `app_id`).
    public var appID: String
    /// The app secret: exchanges codes, signs `appsecret_proof`, verifies `signed_request`. Never logged.
    public var appSecret: Secret
    /// The Graph API base URL, without the version (`https://graph.facebook.com`; the emulator's in tests).
    public var graphURL: URL
    /// The Graph API version (`v25.0`).
    public var graphVersion: String
    /// Scopes a login must have granted; a token missing any is refused with the missing permissions.
    public var requiredScopes: [String]
    /// Whether the short-lived token is exchanged for a long-lived one (on by default).
    public var exchangesForLongLivedToken: Bool
    /// How often stored tokens are re-checked with `debug_token` (daily); zero turns the check off.
    public var validityCheckInterval: Duration
    /// How old the stored profile may be before `GET /v1/me` refreshes it from the Graph API (one hour).
    public var profileMaxAge: Duration
    /// How old a `signed_request` may be (its `issued_at`) before it is refused (one hour).
    public var signedRequestMaxAge: Duration

    /// The app with its credentials; the defaults for everything else.
    public init(
        appID: String, appSecret: Secret, graphURL: URL = GraphAPI.defaultURL,
        graphVersion: String = GraphAPI.defaultVersion, requiredScopes: [String] = [],
        exchangesForLongLivedToken: Bool = true, validityCheckInterval: Duration = .seconds(86400),
        profileMaxAge: Duration = .seconds(3600), signedRequestMaxAge: Duration = .seconds(3600)
    ) {
        self.appID = appID
        self.appSecret = appSecret
        self.graphURL = graphURL
        self.graphVersion = graphVersion
        self.requiredScopes = requiredScopes
        self.exchangesForLongLivedToken = exchangesForLongLivedToken
        self.validityCheckInterval = validityCheckInterval
        self.profileMaxAge = profileMaxAge
        self.signedRequestMaxAge = signedRequestMaxAge
    }
}

extension ServerConfiguration {
    /// The `aud` the session access tokens carry: the sessions' audience, else the Facebook app id, else the issuer.
    var accessTokenAudience: String { sessions.audience ?? providers.facebook?.appID ?? sessions.issuer }
}

extension ServerConfiguration.Sessions {
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
