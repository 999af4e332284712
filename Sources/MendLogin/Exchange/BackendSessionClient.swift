public import Foundation
import HTTPTypes
public import Logging
public import MendCore
public import MendHTTP

/// Talks to the app's backend (`mend-server`): exchanges codes, refreshes, checks and ends sessions.
///
/// The default way to log in: the backend holds the app secret, verifies the provider's token and returns the
/// app's own session. Errors come back in the Mend error shape and keep the backend's classification (a provider
/// outage stays transient; `session/1`–`3` mean "refresh", `session/10`–`19` "the session ended, and why").
///
/// One pipeline (`APIClient`) carries every call to the backend — one retry budget, one clock:
/// - Code exchanges are never retried: a code is single-use.
/// - Refreshes are retried by the pipeline's retry step with the **same** refresh token after a transport failure
///   or a transient answer, each try bounded by `attemptTimeout`: `mend-server` answers a repeated
///   refresh token with the same successor while that successor is unused and the grace window
///   (`MEND_REFRESH_REUSE_GRACE`, 60 s) lasts, so an answer lost after the server committed is recovered, never turned
///   into a sign-out. The whole refresh (`budget`) stays inside that window.
/// - Revocation (RFC 7009) and logout are idempotent and retried like any idempotent call.
///
/// Every wait (backoff, `Retry-After`) and deadline runs on the client's `PipelineClock`.
public struct BackendSessionClient: Sendable {
    /// How a refresh is attempted.
    package struct RefreshPolicy: Sendable, Hashable {
        /// The most attempts, the first included.
        package var maximumAttempts: Int
        /// How long one attempt may take.
        package var attemptTimeout: Duration
        /// The longest pause before the second attempt; it doubles for each further one (full jitter: the pause is
        /// drawn between zero and it).
        package var retryDelay: Duration

        /// Creates a policy (3 attempts of at most 9 s each, 0.5 s apart at first: about 30 s in all, inside the
        /// server's default 60 s grace window).
        package init(
            maximumAttempts: Int = 3, attemptTimeout: Duration = .seconds(9), retryDelay: Duration = .milliseconds(500)
        ) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.attemptTimeout = attemptTimeout
            self.retryDelay = retryDelay
        }

        /// The longest a whole refresh can take: every attempt and pause. Keep it below the server's grace window.
        package var budget: Duration {
            var total = attemptTimeout * maximumAttempts
            var pause = retryDelay
            for _ in 1..<maximumAttempts {
                total += pause
                pause *= 2
            }
            return total
        }

        /// The pipeline's retry policy for these attempts and pauses.
        var retryPolicy: RetryPolicy {
            RetryPolicy(
                maximumAttempts: maximumAttempts,
                backoff: Backoff(base: retryDelay, cap: retryDelay * (1 << max(0, min(maximumAttempts - 2, 30)))),
                maximumHintedWait: budget)
        }
    }

    /// Which provider the app logged in with, sent as `provider` with the code (`nil`: the server's default,
    /// Facebook). mend-server exchanges a code of another provider (`google`, or any OpenID Connect issuer it is
    /// configured for) with that provider's client secret.
    public var provider: String?
    /// What this client calls itself in its `Mend-Client` header (`name/version (platform)`), which the backend
    /// records on the sessions it opens for the user's list of devices; `MendLogin/<version> (<platform>)` by
    /// default, `nil` to send none. An app sets its own (`MyApp/2.3 (iOS 18.1)`: `MendVersion.clientIdentifier(name:version:)` (MendCore)).
    public var clientIdentifier: String?
    /// Whether the sessions this client opens are bound to a key (``SessionBinding/dpop``, the default) or bearer
    /// sessions. A backend that does not bind (mend-server with `MEND_DPOP=off`) gives bearer sessions either way.
    public var binding: SessionBinding {
        get { proofKeys == nil ? .bearer : .dpop }
        set { proofKeys = newValue == .bearer ? nil : DPoPKeyring.preferred }
    }
    /// Where a login's key is made; `nil` for bearer sessions.
    package var proofKeys: (any DPoPKeyFactory)?
    /// The backend's base URL (`https://api.example.com`).
    package let baseURL: URL
    /// How refreshes are attempted.
    package let refreshPolicy: RefreshPolicy
    /// The time one call other than a refresh may take (a validity check, a revocation with its retries).
    package let requestTimeout: Duration
    /// The one pipeline to the backend.
    let client: APIClient
    /// The nonce book and the current session's prover, shared by the copies of this client and handed by the
    /// credentials manager to the app's clients.
    package let dpopProofs: DPoPSessionProofs

    /// Creates a client for the backend at `baseURL`.
    ///
    /// A refresh is tried up to three times, 9 seconds each, about 30 seconds in all: inside the 60 seconds
    /// mend-server keeps a rotated refresh token valid. Any other call may take 30 seconds.
    ///
    /// - Parameters:
    ///   - baseURL: The backend (`https://login.example.com`).
    ///   - transport: The transport.
    ///   - logger: Where the pipeline's logging goes.
    ///   - clock: The clock every wait and deadline runs on, and session times are read from.
    public init(
        baseURL: URL, transport: any HTTPTransport,
        logger: Logger = Logger(label: "mend.login", factory: { _ in SwiftLogNoOpLogHandler() }),
        clock: PipelineClock = .system
    ) {
        self.init(
            baseURL: baseURL, transport: transport, refreshPolicy: RefreshPolicy(), requestTimeout: .seconds(30),
            logger: logger, clock: clock)
    }

    /// Creates a client with its own refresh policy and request timeout (tests, tools).
    package init(
        baseURL: URL, transport: any HTTPTransport, refreshPolicy: RefreshPolicy = RefreshPolicy(),
        requestTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "mend.login", factory: { _ in SwiftLogNoOpLogHandler() }),
        clock: PipelineClock = .system, dpopNonces: DPoPNonceBook = DPoPNonceBook()
    ) {
        self.baseURL = baseURL
        self.dpopProofs = DPoPSessionProofs(nonces: dpopNonces)
        self.provider = nil
        self.proofKeys = DPoPKeyring.preferred
        self.clientIdentifier = MendVersion.clientIdentifier(name: "MendLogin")
        self.refreshPolicy = refreshPolicy
        self.requestTimeout = requestTimeout
        self.client = APIClient(
            transport: transport,
            configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .login, clock: clock),
            steps: .standard(retryPolicy: refreshPolicy.retryPolicy, rateLimitKey: Self.endpoint), logger: logger)
    }

    /// The rate-limit bucket of a request: its endpoint (the path without the query). mend-server limits logins and
    /// refreshes separately, so a 429 on a login must not hold the session's refresh or logout.
    static func endpoint(_ request: APIRequest) -> String {
        let path = request.head.path ?? "/"
        return (request.head.authority ?? "") + path.prefix { $0 != "?" }
    }

    private func now() -> Date { client.configuration.clock.now() }

    /// `POST /v1/login/code`: the code, the PKCE verifier and the redirect URI, for the backend's session.
    public func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    )
        async throws -> Session
    {
        var fields: [String: JSONValue] = [
            "code": .string(code), "code_verifier": .string(transaction.codeVerifier),
            "redirect_uri": .string(transaction.redirectURI.absoluteString),
        ]
        if let provider { fields["provider"] = .string(provider) }
        let body: JSONValue = .object(fields)
        let key = try newKey()
        let response = try await post(
            "v1/login/code", body: body, retryable: false, dpop: try dpopProofs.binding(for: key),
            timeout: requestTimeout)
        return try response.decode(BackendSessionResponse.self).session(now: now(), generation: 0, key: key)
    }

    /// A new login's key, or `nil` for a bearer session.
    private func newKey() throws -> DPoPKey? { try proofKeys?.makeSessionKey() }

    /// `POST /v1/login/provider-token`: the backend checks a provider access token the app got by itself (a device
    /// login's) with `debug_token` — this app's, valid, a user's — and opens the same session as a code login. Never
    /// retried.
    public func exchange(providerToken: String) async throws -> Session {
        let key = try newKey()
        let response = try await post(
            "v1/login/provider-token", body: .object(["provider_token": .string(providerToken)]), retryable: false,
            dpop: try dpopProofs.binding(for: key), timeout: requestTimeout)
        return try response.decode(BackendSessionResponse.self).session(now: now(), generation: 0, key: key)
    }

    /// `POST /v1/session/refresh`: a rotated refresh token and a new access token. The pipeline retries it with the
    /// same refresh token after transport failures and transient answers (see `RefreshPolicy`). A bound session's
    /// refresh carries a proof of its key (its refresh token is bound too); a key this device cannot use is
    /// `session/19`, which ends the session.
    public func refresh(_ session: Session) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw MendError.login(.Session.notRefreshable, "The session has no refresh token.")
        }
        let response = try await post(
            "v1/session/refresh", body: .object(["refresh_token": .string(refreshToken)]), retryable: true,
            dpop: try dpopProofs.binding(for: session.proofKey), timeout: refreshPolicy.budget,
            attemptTimeout: refreshPolicy.attemptTimeout)
        var refreshed = try response.decode(BackendSessionResponse.self).session(
            now: now(), generation: session.generation + 1, key: session.proofKey)
        if refreshed.user == nil { refreshed.user = session.user }
        if refreshed.familyID == nil { refreshed.familyID = session.familyID }
        return refreshed
    }

    /// `POST /v1/session/revoke` (RFC 7009): ends the session that `token` — a refresh token or an access token,
    /// however old — belongs to. Succeeds for a token that is unknown or already revoked; retried on transient
    /// failures (it is idempotent).
    package func revoke(token: String, dpop: DPoPBinding? = nil) async throws {
        var headers = identifyingHeaders
        headers[.contentType] = "application/x-www-form-urlencoded"
        let encoded = FormEncoding.encode([("token", token)])
        var request = APIRequest(
            method: .post, url: baseURL.appendingPathComponent("v1/session/revoke"), headers: headers,
            body: Data(encoded.utf8),
            options: RequestOptions(
                allowsRetry: true, credentialRejection: .keep, attachesCredential: false, timeout: requestTimeout,
                expectsJSON: false, urlTemplate: "/v1/session/revoke"))
        request.dpop = dpop
        _ = try await client.send(request)
    }

    /// `POST /v1/session/logout`: ends what `scope` names — this session, the user's other sessions, or all of them —
    /// at the backend, with the session's refresh token (so an expired access token does not stop it) and, when
    /// asked, revokes the provider's permissions, which ends every session of the user. Idempotent, so retried on
    /// transient failures. It leaves the stored session alone: ``CredentialsManager/logout(revoke:)`` ends and
    /// forgets this one.
    public func logout(
        _ session: Session, scope: LogoutScope = .local, revokeProviderPermissions: Bool = false
    ) async throws {
        var body: [String: JSONValue] = [
            "revoke_provider_permissions": .bool(revokeProviderPermissions), "scope": .string(scope.rawValue),
        ]
        if let refreshToken = session.refreshToken { body["refresh_token"] = .string(refreshToken) }
        // A bound session proves its key with the access token, or — expired — with the refresh token alone.
        let credential = session.accessToken.isExpired(at: now()) ? nil : try dpopProofs.credential(for: session)
        _ = try await post(
            "v1/session/logout", body: .object(body), retryable: true, credential: credential,
            dpop: credential == nil ? try dpopProofs.binding(for: session.proofKey) : nil,
            timeout: requestTimeout, expectsJSON: false)
    }

    private func post(
        _ path: String, body: JSONValue, retryable: Bool, credential: Credential? = nil,
        dpop: DPoPBinding? = nil, timeout: Duration, attemptTimeout: Duration? = nil,
        expectsJSON: Bool = true
    ) async throws -> APIResponse {
        var headers = identifyingHeaders
        headers[.contentType] = "application/json"
        headers[.accept] = "application/json"
        var request = APIRequest(
            method: .post, url: baseURL.appendingPathComponent(path), headers: headers,
            body: Data(body.jsonText().utf8),
            options: RequestOptions(
                allowsRetry: retryable, credentialRejection: .keep, attachesCredential: credential != nil,
                credentialOverride: credential, timeout: timeout, attemptTimeout: attemptTimeout,
                expectsJSON: expectsJSON, urlTemplate: "/" + path))
        request.dpop = dpop
        return try await client.send(request)
    }
}
