import Foundation
import HTTPTypes
import Logging
import MendCore
import MendGraphAPI
import MendHTTP
import MendLogin

/// The logins that open a session: a code exchanged by the provider the request names (Facebook, an issuer with a
/// token keeper, the app's own ``CodeLoginProvider``), a provider token (Facebook's device login), an id_token a
/// native SDK handed the app; then the user, its identity and the session, the same for every provider.
struct ProviderLogins: BackendPart {
    let services: BackendServices
    /// The providers' slice of the configuration.
    let providerSettings: ServerConfiguration.Providers
    /// The users and their identities.
    let identities: any IdentityStore
    /// The login codes and provider tokens, each used once.
    let codes: any CodeStore
    /// Opens the sessions (and reads the login rules of the sessions' settings: PKCE, redirect URIs, rate limits).
    let sessions: SessionAuthority
    /// Every provider `POST /v1/login/code` logs in with and `DELETE /v1/me` revokes at, by name: Facebook, the
    /// configured issuers and the app's own ``ServerConfiguration/Providers/codeLogin``.
    let providers: [String: any CodeLoginProvider]
    /// The validators of `POST /v1/login/id_token`, by provider name.
    let idTokenValidators: IDTokenValidators
    /// The configured Facebook app's calls (`nil` without one).
    let facebook: ProviderGateway?

    init(
        services: BackendServices, providerSettings: ServerConfiguration.Providers, identities: any IdentityStore,
        codes: any CodeStore, sessions: SessionAuthority, idTokenValidators: IDTokenValidators,
        facebook: ProviderGateway?
    ) {
        var providers: [String: any CodeLoginProvider] = [:]
        for (name, entry) in idTokenValidators.byName {
            providers[name] = IssuerCodeLogin(issuer: entry.issuer, validator: entry.validator)
        }
        for custom in providerSettings.codeLogin { providers[custom.name] = custom }
        if let facebook { providers["facebook"] = FacebookCodeLogin(gateway: facebook) }
        self.providers = providers
        self.services = services
        self.providerSettings = providerSettings
        self.identities = identities
        self.codes = codes
        self.sessions = sessions
        self.idTokenValidators = idTokenValidators
        self.facebook = facebook
    }

    /// What a provider is called with for one request.
    func callContext(client: SessionClient? = nil, logger: Logger) -> ProviderCallContext {
        ProviderCallContext(services: services, transport: idTokenValidators.transport, client: client, logger: logger)
    }

    /// `POST /v1/login/code`: the provider the body names (Facebook by default) exchanges the code and says who logged
    /// in; then the user is stored and a session opened, the same for every provider (see ``CodeLoginProvider``).
    func login(_ body: LoginRequestBody, client: SessionClient, logger: Logger) async throws -> SessionBody {
        try validate(body)
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "login")
        let name = body.provider ?? "facebook"
        guard let provider = providers[name] else {
            throw ServerFailure.badRequest(
                "provider \(name) does not take code logins here (these do: "
                    + "\(RequestSchema.codeLoginProviders(providerSettings).joined(separator: ", ")))."
            )
        }
        let context = callContext(client: client, logger: logger)
        let codeHash = OpaqueToken.hash(body.code)
        guard try await codes.claimLoginCode(hash: codeHash, now: now) else {
            throw try await replayedCode(hash: codeHash, provider: name, client: client, logger: logger)
        }
        let grant: ProviderGrant?
        do {
            grant = try await upstream("\(name) code exchange", logger: logger) {
                try await provider.exchange(
                    CodeLoginRequest(code: body.code, redirectURI: body.redirectURI, codeVerifier: body.codeVerifier),
                    context: context)
            }
        } catch let failure as ServerFailure {
            // Only a code the provider certainly did not use is released for the app to try again; after a timeout
            // or a dropped connection the provider may have used it, and sending it twice is what RFC 9700 forbids.
            if Self.exchangeCertainlyUnused(failure.error) { try? await codes.releaseLoginCode(hash: codeHash) }
            await refused("code_exchange_failed", provider: name, client: client, error: failure.error, logger: logger)
            throw failure
        }
        guard let grant else {
            try? await codes.releaseLoginCode(hash: codeHash)
            throw ServerFailure.badRequest("provider \(name) does not take code logins here.")
        }
        return try await completeLogin(grant: grant, provider: provider, codeHash: codeHash, context: context)
    }

    /// `POST /v1/login/provider-token`: a user access token the app got from the provider by itself (device login),
    /// checked with `debug_token` — this app's, valid, a user's, with the required scopes — then the same steps and
    /// the same session as a code login. A token issued to another app is refused (401), so a token from another
    /// app's login cannot open a session here.
    func login(providerToken: String, client: SessionClient, logger: Logger) async throws -> SessionBody {
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "login")
        guard let app = facebook?.app, let facebook = providers["facebook"] else {
            throw ServerFailure.badRequest(
                "No Facebook app is configured here (MEND_APP_ID): it takes no provider token.")
        }
        return try await completeLogin(
            grant: ProviderGrant(clientID: app.appID, accessToken: providerToken), provider: facebook,
            codeHash: nil, context: callContext(client: client, logger: logger))
    }

    /// What follows the exchange for every provider: who logged in, the per-user rate limit, then the user, its
    /// identity (with the kept token) and the session, as for every login by an identity.
    private func completeLogin(
        grant: ProviderGrant, provider: any CodeLoginProvider, codeHash: String?, context: ProviderCallContext
    ) async throws -> SessionBody {
        let logger = context.logger
        do {
            let identity = try await upstream("\(provider.name) login", logger: logger) {
                try await provider.identify(grant, context: context)
            }
            if let rule = sessions.settings.rateLimits.loginPerUser {
                try await enforce(rule, key: Self.userRateKey(provider.name, identity.subject), scope: "login per user")
            }
            return try await completeIdentityLogin(
                identity, provider: provider.name, flow: codeHash == nil ? "provider_token" : "code", linkingTo: nil,
                hash: codeHash, client: context.client, logger: logger)
        } catch {
            await refused(
                "rejected", provider: provider.name, client: context.client,
                error: (error as? ServerFailure)?.error ?? (error as? MendError), logger: logger)
            throw error
        }
    }

    /// A login refused: the metric, and the audit log's `login_refused` event with the outcome and the error's code
    /// (never its message, which may quote what the client sent).
    func refused(
        _ outcome: String, provider: String, client: SessionClient?, error: MendError?, logger: Logger
    ) async {
        metrics.login(outcome: outcome)
        await audit(
            .loginRefused,
            AuditRecord(
                at: now, event: "", provider: provider,
                detail: error.map { "\(outcome): \($0.shortDescription)" } ?? outcome, address: client?.addressKey,
                client: client?.name),
            logger: logger)
    }

    /// The per-user rate-limit key: Facebook's keeps its first form (`login:user:<id>`), so buckets survive updates.
    static func userRateKey(_ provider: String, _ subject: String) -> String {
        provider == "facebook" ? "login:user:\(subject)" : "login:\(provider):\(subject)"
    }

    /// Whether a failed code exchange certainly left the code unused, so that the app may send it again: a
    /// transient failure where the request never reached the provider (no connection, no address), or where
    /// the provider answered with its own error (a Graph or OAuth error: a token endpoint that answers an error issued
    /// no token). A timeout,
    /// a dropped connection, an unreadable answer or a gateway's page is ambiguous: the code stays claimed.
    static func exchangeCertainlyUnused(_ error: MendError) -> Bool {
        guard error.category == .transient else { return false }
        switch error.domain {
        case .transport:
            return [.Transport.cannotConnect, .Transport.cannotFindHost, .Transport.notConnected].contains(error.code)
        case .graph, .oauth:
            return true
        default:
            return false
        }
    }

    private func validate(_ body: LoginRequestBody) throws {
        guard !body.code.isEmpty, body.code.utf8.count <= 4096 else {
            throw ServerFailure.badRequest("code is missing or too long.")
        }
        guard RedirectURIPolicy.allows(body.redirectURI, allowed: sessions.settings.allowedRedirectURIs) else {
            throw ServerFailure.badRequest("redirect_uri is not one of the server's allowed redirect URIs.")
        }
        guard body.codeVerifier != nil || !sessions.settings.requiresPKCE else {
            throw ServerFailure.badRequest(
                "code_verifier is required: log in with PKCE (RFC 7636, S256). A server for confidential clients only "
                    + "can allow logins without it (MEND_REQUIRE_PKCE=false).")
        }
        if let verifier = body.codeVerifier, !CodeVerifierRule.isValid(verifier) {
            throw ServerFailure.badRequest("code_verifier must be 43–128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636).")
        }
    }

    /// A code seen before: revoke the session it issued (RFC 9700 §4.2.4), and refuse as the provider does.
    func replayedCode(
        hash: String, provider: String, client: SessionClient, logger: Logger
    ) async throws -> ServerFailure {
        await refused("code_replayed", provider: provider, client: client, error: nil, logger: logger)
        if let sessionID = try await codes.sessionIssued(byCodeHash: hash) {
            let reason = SessionEndReason.codeReplayed
            let revoked = try await sessions.records.revokeSession(id: sessionID, reason: reason, now: now)
            if revoked { metrics.sessionsEnded(reason: reason.metricsLabel, count: 1) }
            logger.warning(
                "authorization code replayed: the session it issued is revoked",
                metadata: ["session_id": .string(sessionID)])
        } else {
            logger.warning("authorization code replayed")
        }
        return ServerFailure(
            MendError(
                code: .Graph.invalidParameter, subcode: MendError.Subcode(rawValue: 36009),
                developerMessage: "This authorization code has been used.", catalog: .server))
    }
}
