import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin

/// Every call the server makes to the provider, through MendGraphAPI's `GraphClient` (so failures come back
/// classified), with the app secret applied here: in the code and long-lived exchanges, in the app token of
/// `debug_token`, and as `appsecret_proof` on every call made with a user token.
///
/// The code exchange is never retried (a code is single-use: a retry after a lost answer would be a replay);
/// idempotent reads are retried on transient errors within the client's budget.
struct ProviderGateway: Sendable {
    /// The Facebook app these calls are made for.
    let app: FacebookApp
    var appID: String { app.appID }
    var appSecret: Secret { app.appSecret }
    private let exchangeClient: GraphClient
    private let readClient: GraphClient

    init(app: FacebookApp, providers: ServerConfiguration.Providers, clock: PipelineClock, transport: any HTTPTransport)
    {
        self.app = app
        let secret = app.appSecret
        let proof: @Sendable (String) -> String = { token in AppSecretProof.make(token: token, secret: secret) }
        let retries = RetryPolicy(
            maximumAttempts: providers.maxAttempts, backoff: Backoff(base: providers.retryBase, cap: .seconds(5)),
            maximumHintedWait: .seconds(5))
        let graph = GraphClient.Configuration(
            graphURL: app.graphURL, version: app.graphVersion, appID: app.appID, appSecretProof: proof, clock: clock,
            observer: ServerTracing.providerObserver)
        // Code exchanges are never retried (a code is single-use); reads retry transient failures.
        self.exchangeClient = GraphClient(
            transport: transport, configuration: graph, steps: .graph(for: graph, credentials: nil, retryPolicy: .never)
        )
        self.readClient = GraphClient(
            transport: transport, configuration: graph,
            steps: .graph(for: graph, credentials: nil, retryPolicy: retries))
    }

    /// The app access token (`app_id|app_secret`), accepted by `debug_token`.
    private var appToken: String { "\(appID)|\(appSecret.value)" }

    /// Exchanges an authorization code (with the secret, and the PKCE verifier when the app used one).
    func exchangeCode(_ code: String, redirectURI: String, codeVerifier: String?) async throws -> ProviderToken {
        var parameters = [
            "client_id": appID, "client_secret": appSecret.value, "redirect_uri": redirectURI, "code": code,
        ]
        if let codeVerifier { parameters["code_verifier"] = codeVerifier }
        // POST: the secret, the code and the verifier travel in the body, never in a URL that proxies log.
        let json = try await exchangeClient.send(
            GraphRequest(path: "oauth/access_token", parameters: parameters, method: .post, onTokenError: .invalidate)
        ).json()
        return try token(from: json, operation: "code exchange")
    }

    /// Exchanges a short-lived user token for a long-lived one (about 60 days).
    func exchangeForLongLived(_ token: String) async throws -> ProviderToken {
        let parameters = [
            "grant_type": "fb_exchange_token", "client_id": appID, "client_secret": appSecret.value,
            "fb_exchange_token": token,
        ]
        let json = try await exchangeClient.send(
            GraphRequest(path: "oauth/access_token", parameters: parameters, method: .post, onTokenError: .invalidate)
        ).json()
        return try self.token(from: json, operation: "long-lived exchange")
    }

    /// `debug_token` for a user token, with the app token.
    func inspect(_ token: String) async throws -> TokenInspection {
        let request = GraphRequest(
            path: "debug_token", parameters: ["input_token": token], tokenOverride: appToken, onTokenError: .invalidate)
        let json = try await readClient.send(request).json()
        guard let inspection = TokenInspection(json: json) else {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "debug_token answered without data.",
                catalog: .server)
        }
        return inspection
    }

    /// The user's profile, with `appsecret_proof`.
    func profile(_ token: String) async throws -> ProviderProfile {
        let request = GraphRequest(
            path: "me", fields: ["id", "name", "email", "picture"], tokenOverride: token, onTokenError: .invalidate)
        guard let profile = ProviderProfile(json: try await readClient.send(request).json()) else {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "The profile has no id.", catalog: .server)
        }
        return profile
    }

    /// The user's granted and declined permissions, with `appsecret_proof`.
    func permissions(_ token: String) async throws -> ProviderPermissions {
        let request = GraphRequest(path: "me/permissions", tokenOverride: token, onTokenError: .invalidate)
        return ProviderPermissions(json: try await readClient.send(request).json())
    }

    /// Revokes every permission: the user removes the app (`DELETE /me/permissions`), with `appsecret_proof`.
    func revokePermissions(_ token: String) async throws {
        let request = GraphRequest(
            path: "me/permissions", method: .delete, tokenOverride: token, onTokenError: .invalidate)
        _ = try await readClient.send(request)
    }

    private func token(from json: JSONValue, operation: String) throws -> ProviderToken {
        guard let value = json["access_token"]?.stringValue, !value.isEmpty else {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "The \(operation) answered without access_token.",
                catalog: .server)
        }
        return ProviderToken(value: value, expiresIn: json["expires_in"]?.intValue)
    }
}
