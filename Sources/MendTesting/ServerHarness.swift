import Foundation
import HTTPTypes
public import Logging
public import MendCore
import MendEmulator
import MendLogin
public import MendServer

extension ServerConfiguration {
    /// A configuration for a server in front of `emulator`: its app id and secret, its redirect URIs, an in-memory
    /// SQLite database, port 0 on 127.0.0.1, no validity-check timer, one try per provider call.
    public static func forEmulator(_ emulator: RunningEmulator) -> ServerConfiguration {
        let app = emulator.emulator.configuration.defaultApp
        var configuration = ServerConfiguration(
            appID: app.id, appSecret: Secret(app.secret), host: "127.0.0.1", port: 0, graphURL: emulator.baseURL,
            graphVersion: emulator.emulator.configuration.graphVersion, databaseURL: "sqlite::memory:")
        configuration.sessions.allowedRedirectURIs = app.redirectURIs
        configuration.providers.facebook?.validityCheckInterval = .zero
        configuration.providers.maxAttempts = 1
        configuration.providers.timeout = .seconds(5)
        configuration.providers.idTokenIssuers = idTokenIssuers(of: emulator)
        return configuration
    }
}

extension ServerConfiguration {
    /// The emulator's issuers as `POST /v1/login/id_token` accepts them: its Apple-like and Google-like issuers (every
    /// client the emulator has for each) and Limited Login for its default app. The Google issuer keeps the token of a
    /// native sign-in's `serverAuthCode` with the emulator's Google web client (its id and secret).
    public static func idTokenIssuers(of emulator: RunningEmulator) -> [IDTokenIssuer] {
        let configuration = emulator.emulator.configuration
        let base = emulator.baseURL.absoluteString
        func clients(_ kind: EmulatedIssuerKind) -> [String] {
            configuration.issuerClients.filter { $0.kind == kind }.map(\.id)
        }
        let google = EmulatedIssuerKind.google.issuer(baseURL: base)
        let serverClient = configuration.issuerClients.first { $0.kind == .google && $0.secret != nil }.map {
            ClientSecretTokenKeeper.google(
                clientID: $0.id, clientSecret: Secret($0.secret ?? ""), tokenEndpoint: URL(string: google + "/token")!,
                revocationEndpoint: URL(string: google + "/revoke")!)
        }
        let facebookIssuer =
            configuration.issuer == EmulatorConfiguration.baseURLIssuer ? base : configuration.issuer
        return [
            .apple(
                clientIDs: clients(.apple), issuer: EmulatedIssuerKind.apple.issuer(baseURL: base),
                jwksURI: URL(string: EmulatedIssuerKind.apple.issuer(baseURL: base) + "/auth/keys")!),
            .google(
                clientIDs: clients(.google), issuer: google, jwksURI: URL(string: google + "/oauth2/v3/certs")!,
                serverClient: serverClient),
            .limitedLogin(
                appID: configuration.defaultApp.id, issuer: facebookIssuer,
                jwksURI: URL(string: base + "/.well-known/oauth/openid/jwks/")!),
        ]
    }
}

extension ServerConfiguration {
    /// Gives the Apple issuer of `providers.idTokenIssuers` the emulator's team key (team and key id of its Apple clients),
    /// so that native Apple sign-ins keep a refresh token and account deletion revokes it at the emulated Apple.
    public mutating func useAppleCredentials(of emulator: RunningEmulator) async {
        let pem = await emulator.emulator.appleTeamKeyPEM()
        guard
            let client = emulator.emulator.configuration.issuerClients.first(where: {
                $0.kind == .apple && $0.appleTeamID != nil && $0.appleKeyID != nil
            }), let teamID = client.appleTeamID, let keyID = client.appleKeyID
        else { return }
        providers.idTokenIssuers = providers.idTokenIssuers.map { issuer in
            guard issuer.name == "apple" else { return issuer }
            var apple = issuer
            apple.appleCredentials = AppleClientCredentials(
                teamID: teamID, keyID: keyID, privateKeyPEM: Secret(pem), issuer: issuer.issuer)
            return apple
        }
    }
}

/// Runs `mend-server` live on 127.0.0.1 at a free port for the duration of `body`, and always shuts it down.
///
/// ```swift
/// try await withEmulator { emulator in
///     try await withMendServer(configuration: .forEmulator(emulator)) { server in
///         // POST server.url("/v1/login/code") with a code from emulator.authorizationCode()
///     }
/// }
/// ```
public func withMendServer<T>(
    configuration: ServerConfiguration, logger: Logger? = nil, _ body: (RunningMendServer) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.listening.host = "127.0.0.1"
    configuration.listening.port = 0
    let logger = logger ?? Logger(label: "mend.server", factory: { _ in SwiftLogNoOpLogHandler() })
    let backend = try await LoginBackend.open(configuration: configuration, logger: logger)
    return try await backend.withRunningServer(body)
}

extension RunningEmulator {
    /// Runs the login dialog headlessly (granting `scopes`, or every requested one) and returns the authorization
    /// code of the redirect, as an app would receive it.
    ///
    /// - Parameters:
    ///   - scopes: The permissions to request.
    ///   - grant: The permissions the user grants (`nil`: all of `scopes`).
    ///   - redirectURI: One of the app's redirect URIs.
    ///   - codeChallenge: The PKCE S256 challenge, if the app uses PKCE.
    ///   - userID: The user who logs in (the default user unless given).
    public func authorizationCode(
        scopes: [String] = ["public_profile", "email"], grant: [String]? = nil,
        redirectURI: String = "https://app.example/callback", codeChallenge: String? = nil, userID: String? = nil
    ) async throws -> String {
        await emulator.setAutoConsent(grant.map(AutoConsent.grant) ?? .grantAll, userID: userID)
        var query = [
            "client_id": emulator.configuration.defaultApp.id, "redirect_uri": redirectURI,
            "response_type": "code granted_scopes", "scope": scopes.joined(separator: ","), "state": "state-1",
        ]
        if let codeChallenge {
            query["code_challenge"] = codeChallenge
            query["code_challenge_method"] = "S256"
        }
        var components = URLComponents()
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let target = "/\(emulator.configuration.graphVersion)/dialog/oauth?\(components.percentEncodedQuery ?? "")"
        let response = await emulator.handle(EmulatorRequest(method: .get, target: target))
        guard let location = response.headers[.location],
            let code = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw AuthorizationCodeFailure(status: response.status.code) }
        return code
    }
}

extension RunningEmulator {
    /// What an app sends to mend-server's `POST /v1/login/code` after a login with PKCE (which mend-server requires
    /// by default): a fresh code from the headless dialog, issued for an S256 challenge, with its verifier.
    ///
    /// - Parameters:
    ///   - scopes: The permissions to request.
    ///   - grant: The permissions the user grants (`nil`: all of `scopes`).
    ///   - redirectURI: One of the app's redirect URIs.
    ///   - userID: The user who logs in (the default user unless given).
    public func loginCodeBody(
        scopes: [String] = ["public_profile", "email"], grant: [String]? = nil,
        redirectURI: String = "https://app.example/callback", userID: String? = nil
    ) async throws -> JSONValue {
        let pkce = PKCE()
        let code = try await authorizationCode(
            scopes: scopes, grant: grant, redirectURI: redirectURI, codeChallenge: pkce.challenge, userID: userID)
        return .object([
            "code": .string(code), "code_verifier": .string(pkce.verifier), "redirect_uri": .string(redirectURI),
        ])
    }
}

/// The headless dialog did not redirect with a code.
public struct AuthorizationCodeFailure: Error, CustomStringConvertible {
    /// The dialog's status.
    public var status: Int
    /// What went wrong.
    public var description: String { "the login dialog answered \(status) without a code" }
}
