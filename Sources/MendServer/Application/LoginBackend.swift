import Foundation
public import Logging
public import MendCore
import MendGraphAPI
public import MendHTTP
import MendHTTPAsyncHTTPClient
import MendRecording
import MendServing
import PostgresKit

/// The state behind `mend-server`'s routes, in parts: the sessions (their tokens, refresh, the bearer check,
/// logout, revocation), the logins (code, provider-token and id_token), the accounts (profile, activity, account
/// deletion), the provider's callbacks, the housekeeping (the validity check, the purge) and the admin API. Each
/// part holds the stores it uses, by their protocols, and its slice of the configuration; the backend assembles them
/// and holds the whole. `buildApplication(configuration:logger:onServerRunning:)` opens one; open it
/// yourself with ``open(configuration:logger:metrics:transport:)`` to keep a reference (run the validity check,
/// read metrics) and build the application with ``buildApplication(backend:onServerRunning:)``.
///
/// It owns the database connection: ``close()`` it when the application has stopped (the application's own
/// service does so on graceful shutdown).
public final class LoginBackend: Sendable {
    /// The configuration the backend was opened with.
    public let configuration: ServerConfiguration
    /// The server's metrics.
    public var metrics: ServerMetrics { services.metrics }
    /// The logger of background work (requests log through their own, with the request id).
    public let logger: Logger

    /// What every part is lent.
    let services: BackendServices
    let database: ServerDatabase
    /// Every store, one per concern: the parts were given theirs.
    let store: ServerStore
    /// The sessions: opening, refresh, the bearer check, logout, revocation.
    let sessions: SessionAuthority
    /// The logins that open sessions.
    let logins: ProviderLogins
    /// The profile, the activity log, logout with the provider's permissions, account deletion.
    let accounts: Accounts
    /// The Facebook app's callbacks.
    let callbacks: ProviderCallbacks
    /// The validity check and the purge.
    let housekeeping: Housekeeping
    /// The admin API.
    let administration: Administration
    /// Passkeys: adding them, signing in with them, the user's list.
    let passkeys: PasskeyLogins
    /// Keeps the sessions' revocation view current (its task runs until ``close()``).
    let revocationFeed: RevocationFeed
    private let revocationFeedTask: Task<Void, Never>
    /// Whether `mend-server serve` is draining before it stops (`/health/ready` then answers 503); only
    /// ``runUntilSignalled(onReady:)`` sets it.
    let drain: ServerDrain

    /// Whether the server is draining before it stops (``drain`` has begun).
    var isDraining: Bool { drain.isDraining }

    /// The current time, as unix seconds (the configuration's clock).
    var now: Int64 { Int64(configuration.clock.now().timeIntervalSince1970) }

    /// Redacts the app secret (and the usual token shapes) from anything logged.
    var redactor: Redactor { services.redactor }

    private init(
        configuration: ServerConfiguration, services: BackendServices, logger: Logger, database: ServerDatabase,
        store: ServerStore, revocationFeed: RevocationFeed, sessions: SessionAuthority, logins: ProviderLogins
    ) {
        self.configuration = configuration
        self.services = services
        self.drain = ServerDrain(delay: configuration.listening.drainDelay)
        self.logger = logger
        self.database = database
        self.store = store
        self.sessions = sessions
        self.logins = logins
        let accounts = Accounts(
            services: services, sessions: sessions, identities: store.identities, logins: logins)
        self.accounts = accounts
        self.callbacks = ProviderCallbacks(
            services: services, facebook: logins.facebook, codes: store.codes, identities: store.identities,
            sessionRecords: store.sessions)
        self.housekeeping = Housekeeping(
            services: services, identities: store.identities, sessionRecords: store.sessions,
            rateLimits: store.rateLimits, auditRetention: configuration.storage.auditRetention,
            revocationRetention: Self.revocationRetention(configuration), accounts: accounts, logger: logger)
        self.administration = Administration(
            services: services, settings: configuration.admin,
            maximumSessionLifetime: Int64(configuration.sessions.maximumLifetime.seconds),
            directory: store.directory, identities: store.identities, sessionRecords: store.sessions,
            accounts: accounts)
        self.passkeys = PasskeyLogins(
            services: services, settings: configuration.passkeys, store: store.passkeys,
            identities: store.identities, sessions: sessions)
        self.revocationFeed = revocationFeed
        self.revocationFeedTask = Task { await revocationFeed.run() }
    }

    /// How long the revocation view keeps an ending: the access-token lifetime plus five minutes of clock skew.
    static func revocationRetention(_ configuration: ServerConfiguration) -> Int64 {
        Int64(configuration.sessions.accessTokenLifetime.seconds) + 300
    }

    /// Opens the database, runs the migrations, and prepares the signing keys and the provider client.
    ///
    /// - Parameters:
    ///   - configuration: The server's configuration (validated here).
    ///   - logger: Where the server logs.
    ///   - metrics: Where metrics go (a private registry by default).
    ///   - transport: How the provider is reached (AsyncHTTPClient, with the configured timeout, by default).
    public static func open(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "mend.server"),
        metrics: ServerMetrics = ServerMetrics(), transport: (any HTTPTransport)? = nil
    ) async throws -> LoginBackend {
        var configuration = configuration
        try configuration.validate()
        if configuration.sessions.signingKeys.isEmpty {
            logger.warning(
                "MEND_SIGNING_KEYS is not set: using a new random signing key; sessions end when the server stops")
            configuration.sessions.signingKeys = [
                .generate(keyID: "ephemeral-\(OpaqueToken.alphanumeric(8).lowercased())")
            ]
        }
        let location = try DatabaseLocation.parse(configuration.storage.databaseURL)
        let database = try await ServerDatabase.open(location, logger: logger)
        do {
            let applied = try await MigrationRunner.run(on: database, now: configuration.clock.now())
            logger.info(
                "database ready",
                metadata: [
                    "database": .string(location.redactedDescription),
                    "migrations_applied": .string(applied.map(String.init).joined(separator: ",")),
                ])
            let signer = try SessionSigner(
                configuration: configuration.sessions.signingKeys, issuer: configuration.sessions.issuer,
                audience: configuration.accessTokenAudience,
                cacheCapacity: configuration.sessions.verifiedTokenCacheSize)
            var transport: any HTTPTransport =
                transport ?? AsyncHTTPClientTransport(defaultTimeout: configuration.providers.timeout)
            if let recording = configuration.providers.recording {
                transport = try RecordingTransport(
                    wrapping: transport, file: recording.file, mode: recording.mode,
                    errorDecoder: ProviderErrorDecoder(),
                    catalog: .graph)
                logger.notice(
                    "recording provider calls", metadata: ["file": .string(recording.file.path)])
            }
            let facebook = configuration.providers.facebook.map {
                ProviderGateway(
                    app: $0, providers: configuration.providers, clock: configuration.clock, transport: transport)
            }
            let validators = IDTokenValidators(
                issuers: configuration.providers.idTokenIssuers, transport: transport, clock: configuration.clock)
            let source: RevocationFeed.Source
            if case .postgres(let url) = location {
                source = .postgres(try SQLPostgresConfiguration(url: url).coreConfiguration)
            } else {
                source = .inProcess
            }
            let view = RevocationView(
                retention: revocationRetention(configuration),
                freshness: database.kind == .sqlite ? .always : .stale)
            let store = ServerStore(
                connection: StoreConnection(
                    database: database, cipher: TokenCipher(key: configuration.storage.tokenEncryptionKey?.value),
                    revocations: view, auditLogger: logger))
            let feed = RevocationFeed(
                view: view, store: store.sessions, source: source, logger: logger, clock: configuration.clock)
            // SQLite: the view is current from the start, so it must hold the log before the first request.
            if source.isInProcess { try await feed.catchUp(full: true) }
            let services = BackendServices(
                clock: configuration.clock, metrics: metrics,
                redactor: Redactor.standard.adding(
                    secrets: configuration.providers.facebook.map { [$0.appSecret.value] } ?? []),
                auditLog: store.audit, sharedRateLimits: database.kind == .postgres ? store.rateLimits : nil)
            let sessions = SessionAuthority(
                services: services, settings: configuration.sessions, audience: configuration.accessTokenAudience,
                records: store.sessions, users: store.identities, signer: signer, revocations: view,
                dpop: DPoPCheck(
                    mode: configuration.sessions.dpop, requiresNonce: configuration.sessions.dpopRequiresNonce,
                    secrets: DPoPCheck.nonceSecrets(of: configuration.sessions.signingKeys),
                    shared: database.kind == .postgres ? store.proofs : nil))
            return LoginBackend(
                configuration: configuration, services: services, logger: logger, database: database, store: store,
                revocationFeed: feed, sessions: sessions,
                logins: ProviderLogins(
                    services: services, providerSettings: configuration.providers, identities: store.identities,
                    codes: store.codes, sessions: sessions, idTokenValidators: validators, facebook: facebook))
        } catch {
            await database.close()
            throw error
        }
    }

    /// Stops the revocation feed and closes the database.
    public func close() async {
        revocationFeedTask.cancel()
        await revocationFeedTask.value
        await database.close()
    }

    /// The public keys of the session signing keys (`GET /.well-known/jwks.json`).
    public var jwks: JSONValue { sessions.signer.jwks }

    /// Whether the database answers (readiness).
    public func isReady() async -> Bool { await database.ping() }

    /// Re-checks every stored provider token not checked within half the interval (all of them when `force`) with
    /// `debug_token`; an invalid one ends the user's sessions, with the provider's reason. Also purges expired
    /// tokens, sessions, old login codes and the audit events older than `MEND_AUDIT_RETENTION`.
    @discardableResult
    public func checkProviderTokens(force: Bool = false) async -> ValidityCheckReport {
        await housekeeping.checkProviderTokens(force: force)
    }
}
