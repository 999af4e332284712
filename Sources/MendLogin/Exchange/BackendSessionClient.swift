public import Foundation
import HTTPTypes
public import Logging
public import MendCore
public import MendHTTP

/// Talks to the app's backend (`mend-server`): exchanges codes, refreshes and ends sessions.
///
/// The default way to log in: the backend holds the app secret, verifies the provider's token and returns the
/// app's own session. Errors come back in the Mend error shape and keep the backend's classification (a provider
/// outage stays transient). Code exchanges are never retried; refreshes are retried only when the server proves it
/// did not process them.
public struct BackendSessionClient: CodeExchanger, Sendable {
    /// The backend's base URL (`https://api.example.com`).
    public let baseURL: URL
    let client: APIClient
    /// The code exchange's own pipeline: never retried (a code is single-use).
    let exchangeClient: APIClient
    let now: @Sendable () -> Date

    /// Creates a client for the backend at `baseURL`.
    public init(
        baseURL: URL, transport: any HTTPTransport,
        logger: Logger = Logger(label: "mend.login", factory: { _ in SwiftLogNoOpLogHandler() }),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.baseURL = baseURL
        self.now = now
        self.client = APIClient(
            transport: transport,
            configuration: .init(
                errorDecoder: MendServiceErrorDecoder(), retryPolicy: RetryPolicy(maximumAttempts: 2),
                reauthenticationEnabled: false),
            logger: logger)
        self.exchangeClient = APIClient(
            transport: transport,
            configuration: .init(
                errorDecoder: MendServiceErrorDecoder(), retryPolicy: .never, reauthenticationEnabled: false),
            logger: logger)
    }

    /// `POST /v1/login/code`: the code, the PKCE verifier and the redirect URI, for the backend's session.
    public func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    )
        async throws -> Session
    {
        let body: JSONValue = .object([
            "code": .string(code), "code_verifier": .string(transaction.codeVerifier),
            "redirect_uri": .string(transaction.redirectURI.absoluteString),
        ])
        let response = try await post("v1/login/code", body: body, retryable: false, via: exchangeClient)
        return try response.decode(BackendSessionResponse.self).session(now: now(), generation: 0)
    }

    /// `POST /v1/session/refresh`: a rotated refresh token and a new access token.
    public func refresh(_ session: Session) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw MendError.login(.Login.missingAccessToken, "The session has no refresh token.")
        }
        let response = try await post(
            "v1/session/refresh", body: .object(["refresh_token": .string(refreshToken)]), retryable: false)
        var refreshed = try response.decode(BackendSessionResponse.self).session(
            now: now(), generation: session.generation + 1)
        if refreshed.user == nil { refreshed.user = session.user }
        return refreshed
    }

    /// `POST /v1/session/logout`: ends the session at the backend (and, when asked, revokes the provider's
    /// permissions).
    public func logout(_ session: Session, revokeProviderPermissions: Bool = false) async throws {
        var body: [String: JSONValue] = ["revoke_provider_permissions": .bool(revokeProviderPermissions)]
        if let refreshToken = session.refreshToken { body["refresh_token"] = .string(refreshToken) }
        _ = try await post(
            "v1/session/logout", body: .object(body), retryable: true,
            credential: Credential(token: session.accessToken.tokenString), expectsJSON: false)
    }

    private func post(
        _ path: String, body: JSONValue, retryable: Bool, credential: Credential? = nil, expectsJSON: Bool = true,
        via pipeline: APIClient? = nil
    ) async throws -> APIResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.accept] = "application/json"
        let request = APIRequest(
            method: .post, url: baseURL.appendingPathComponent(path), headers: headers,
            body: Data(body.jsonText().utf8),
            options: RequestOptions(
                allowsRetry: retryable, allowsReauthentication: false, credentialOverride: credential,
                expectsJSON: expectsJSON))
        return try await (pipeline ?? client).send(request)
    }
}
