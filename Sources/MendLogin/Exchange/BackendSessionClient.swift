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
/// - Code exchanges are never retried: a code is single-use.
/// - Refreshes are retried with the **same** refresh token after a transport failure or a transient answer, each
///   attempt bounded by ``RefreshPolicy/attemptTimeout``: `mend-server` answers a repeated refresh token with the
///   same successor while that successor is unused and the grace window (`MEND_REFRESH_REUSE_GRACE`, 60 s) lasts,
///   so an answer lost after the server committed is recovered, never turned into a sign-out. The whole refresh
///   (``RefreshPolicy/budget``) stays inside that window.
/// - Revocation (RFC 7009) is idempotent and retried like any idempotent call.
public struct BackendSessionClient: CodeExchanger, Sendable {
    /// How a refresh is attempted.
    public struct RefreshPolicy: Sendable, Hashable {
        /// The most attempts, the first included.
        public var maximumAttempts: Int
        /// How long one attempt may take.
        public var attemptTimeout: Duration
        /// The pause before the second attempt; it doubles for each further one (with jitter).
        public var retryDelay: Duration

        /// Creates a policy (3 attempts of at most 9 s each, 0.5 s apart at first: about 30 s in all, inside the
        /// server's default 60 s grace window).
        public init(
            maximumAttempts: Int = 3, attemptTimeout: Duration = .seconds(9), retryDelay: Duration = .milliseconds(500)
        ) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.attemptTimeout = attemptTimeout
            self.retryDelay = retryDelay
        }

        /// The longest a whole refresh can take: every attempt and pause. Keep it below the server's grace window.
        public var budget: Duration {
            var total = attemptTimeout * maximumAttempts
            var pause = retryDelay
            for _ in 1..<maximumAttempts {
                total += pause
                pause *= 2
            }
            return total
        }
    }

    /// Which provider the app logged in with, sent as `provider` with the code (`nil`: the server's default,
    /// Facebook). mend-server exchanges a code of another provider (`google`, or any OpenID Connect issuer it is
    /// configured for) with that provider's client secret.
    public var provider: String?
    /// The backend's base URL (`https://api.example.com`).
    public let baseURL: URL
    /// How refreshes are attempted.
    public let refreshPolicy: RefreshPolicy
    /// The time one call other than a refresh may take (a validity check, a revocation with its retries).
    public let requestTimeout: Duration
    let client: APIClient
    /// The code exchange's and the refresh's own pipeline: never retried by the pipeline (a code is single-use; a
    /// refresh retries itself, with the same token, under ``refreshPolicy``).
    let exchangeClient: APIClient
    let now: @Sendable () -> Date

    /// Creates a client for the backend at `baseURL`.
    public init(
        baseURL: URL, transport: any HTTPTransport, refreshPolicy: RefreshPolicy = RefreshPolicy(),
        requestTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "mend.login", factory: { _ in SwiftLogNoOpLogHandler() }),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.baseURL = baseURL
        self.provider = nil
        self.refreshPolicy = refreshPolicy
        self.requestTimeout = requestTimeout
        self.now = now
        self.client = APIClient(
            transport: transport,
            configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .login),
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 3)), logger: logger)
        self.exchangeClient = APIClient(
            transport: transport,
            configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .login),
            steps: .standard(retryPolicy: .never), logger: logger)
    }

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
        let response = try await post("v1/login/code", body: body, via: exchangeClient, timeout: requestTimeout)
        return try response.decode(BackendSessionResponse.self).session(now: now(), generation: 0)
    }

    /// `POST /v1/login/provider-token`: the backend checks a provider access token the app got by itself (a device
    /// login's) with `debug_token` — this app's, valid, a user's — and opens the same session as a code login. Never
    /// retried.
    public func exchange(providerToken: String) async throws -> Session {
        let response = try await post(
            "v1/login/provider-token", body: .object(["provider_token": .string(providerToken)]), via: exchangeClient,
            timeout: requestTimeout)
        return try response.decode(BackendSessionResponse.self).session(now: now(), generation: 0)
    }

    /// `POST /v1/session/refresh`: a rotated refresh token and a new access token. Retried with the same refresh
    /// token after transport failures and transient answers (see ``RefreshPolicy``).
    public func refresh(_ session: Session) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw MendError.login(.Login.missingAccessToken, "The session has no refresh token.")
        }
        var attempt = 1
        var pause = refreshPolicy.retryDelay
        while true {
            do {
                let response = try await post(
                    "v1/session/refresh", body: .object(["refresh_token": .string(refreshToken)]),
                    via: exchangeClient, timeout: refreshPolicy.attemptTimeout)
                var refreshed = try response.decode(BackendSessionResponse.self).session(
                    now: now(), generation: session.generation + 1)
                if refreshed.user == nil { refreshed.user = session.user }
                if refreshed.familyID == nil { refreshed.familyID = session.familyID }
                return refreshed
            } catch let error as MendError
                where error.category == .transient && error.isAutomaticallyRetryable
                && attempt < refreshPolicy.maximumAttempts
            {
                attempt += 1
                try await Task.sleep(for: pause * Double.random(in: 0.5...1.0))
                pause *= 2
            }
        }
    }

    /// `POST /v1/session/revoke` (RFC 7009): ends the session that `token` — a refresh token or an access token,
    /// however old — belongs to. Succeeds for a token that is unknown or already revoked; retried on transient
    /// failures (it is idempotent).
    public func revoke(token: String) async throws {
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        let encoded = "token=" + (token.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
        let request = APIRequest(
            method: .post, url: baseURL.appendingPathComponent("v1/session/revoke"), headers: headers,
            body: Data(encoded.utf8),
            options: RequestOptions(
                allowsRetry: true, credentialRejection: .keep, attachesCredential: false, timeout: requestTimeout,
                expectsJSON: false))
        _ = try await client.send(request)
    }

    /// `POST /v1/session/logout`: ends the session at the backend with its refresh token (so an expired access token
    /// does not stop it) and, when asked, revokes the provider's permissions — which ends every session of the user.
    public func logout(_ session: Session, revokeProviderPermissions: Bool = false) async throws {
        var body: [String: JSONValue] = ["revoke_provider_permissions": .bool(revokeProviderPermissions)]
        if let refreshToken = session.refreshToken { body["refresh_token"] = .string(refreshToken) }
        let credential =
            session.accessToken.isExpired(at: now()) ? nil : Credential(token: session.accessToken.tokenString)
        _ = try await post(
            "v1/session/logout", body: .object(body), via: client, retryable: true, credential: credential,
            timeout: requestTimeout, expectsJSON: false)
    }

    private func post(
        _ path: String, body: JSONValue, via pipeline: APIClient, retryable: Bool = false,
        credential: Credential? = nil, timeout: Duration, expectsJSON: Bool = true
    ) async throws -> APIResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.accept] = "application/json"
        let request = APIRequest(
            method: .post, url: baseURL.appendingPathComponent(path), headers: headers,
            body: Data(body.jsonText().utf8),
            options: RequestOptions(
                allowsRetry: retryable, credentialRejection: .keep, attachesCredential: credential != nil,
                credentialOverride: credential, timeout: timeout, expectsJSON: expectsJSON))
        return try await pipeline.send(request)
    }
}
