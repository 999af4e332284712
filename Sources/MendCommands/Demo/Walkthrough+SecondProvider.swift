import Foundation
import MendEmulator
import MendLogin

extension Walkthrough {
    /// A login with a second provider: the emulator's Google-like OpenID Connect issuer, found by discovery, with
    /// PKCE and a validated id_token; the provider's own session, refreshed and then revoked at logout by
    /// ``OIDCSessionAuthority``. Returns the line the demo prints.
    func secondProviderLogin() async throws -> String {
        var google = try await LoginProvider.discover(
            issuer: emulator.baseURL.appendingPathComponent("google"),
            clientID: "mend-ios.apps.googleusercontent.com", transport: transport)
        google.authorizationParameters = ["access_type": "offline"]
        guard let issuer = google.issuer, let jwks = google.jwksURI else {
            throw DemoFailure(description: "the Google-like issuer's discovery document names no issuer or keys")
        }
        let validator = IDTokenValidator(issuer: issuer, clientID: google.clientID, jwksURI: jwks, transport: transport)
        let sessions = CredentialsManager(
            store: InMemoryTokenStore(),
            authority: OIDCSessionAuthority(provider: google, transport: transport, idTokenValidator: validator))
        let login = LoginManager(
            provider: google, credentials: sessions, defaultScopes: ["openid", "email", "profile"])
        let result = try await login.logIn(presenter: Self.presenter(.grantAll))
        guard let session = result.session, let user = session.user, session.refreshToken != nil else {
            throw DemoFailure(description: "the second provider's login returned no session with a refresh token")
        }
        let refreshed = try await sessions.refresh()
        let outcome = try await sessions.logout()
        let revocations = await emulator.emulator.revocations().filter { $0.issuer == "google" }
        guard refreshed.accessToken.tokenString != session.accessToken.tokenString, outcome.revoked,
            !revocations.isEmpty
        else { throw DemoFailure(description: "the second provider's session was not refreshed and revoked") }
        return "second provider: logged in as \(user.name ?? user.id) <\(user.email ?? "-")> at the Google-like OIDC "
            + "issuer (discovery, PKCE S256, id_token checked by its JWKS, iss, aud and nonce); refreshed at its token "
            + "endpoint, revoked at logout"
    }
}
