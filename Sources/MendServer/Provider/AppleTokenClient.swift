import Crypto
public import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendJOSE
import MendLogin

/// What the server needs to call Apple's token and revocation endpoints for the app: the client secret Apple asks
/// for is an ES256 JWT the server signs with the team's key (`iss` the team, `sub` the client id, `aud` the issuer,
/// `kid` the key id).
public struct AppleClientCredentials: Sendable, Hashable {
    /// The Apple developer team id.
    public var teamID: String
    /// The key id of the Sign in with Apple private key.
    public var keyID: String
    /// The private key, PEM (the `.p8` file Apple hands out).
    public var privateKeyPEM: Secret
    /// Apple's token endpoint (the issuer's `/auth/token`).
    public var tokenURL: URL
    /// Apple's revocation endpoint (the issuer's `/auth/revoke`).
    public var revocationURL: URL

    /// Creates the credentials; the endpoints default to the issuer's `/auth/token` and `/auth/revoke`.
    public init(
        teamID: String, keyID: String, privateKeyPEM: Secret, issuer: String = "https://appleid.apple.com",
        tokenURL: URL? = nil, revocationURL: URL? = nil
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        self.tokenURL = tokenURL ?? URL(string: issuer + "/auth/token")!
        self.revocationURL = revocationURL ?? URL(string: issuer + "/auth/revoke")!
    }

    /// Whether the key is a P-256 private key in PEM.
    var isValidKey: Bool { (try? P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM.value)) != nil }

    /// A client secret for `clientID`, valid for five minutes from `now`.
    func clientSecret(clientID: String, audience: String, now: Date) throws -> String {
        let key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM.value)
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims: [String: JSONValue] = [
            "iss": .string(teamID), "iat": .int(issuedAt), "exp": .int(issuedAt + 300), "aud": .string(audience),
            "sub": .string(clientID),
        ]
        return try JWSSigner.sign(claims: claims, with: SoftwareSigningKey.es256(key), keyID: keyID, type: nil)
    }
}

/// Apple's token endpoint (the authorization code a native sign-in returns, for a refresh token the server can
/// revoke) and revocation endpoint.
struct AppleTokenClient: Sendable {
    let credentials: AppleClientCredentials
    /// The issuer: the client secret's audience.
    let issuer: String
    let client: APIClient
    /// The time the client secrets are signed at (the request's).
    let now: Date

    init(
        credentials: AppleClientCredentials, issuer: String, transport: any HTTPTransport,
        now: Date
    ) {
        self.credentials = credentials
        self.issuer = issuer
        self.now = now
        self.client = APIClient(
            transport: transport,
            configuration: APIClient.Configuration(
                errorDecoder: OAuthErrorDecoder(), catalog: .server, observer: ServerTracing.providerObserver,
                isThirdParty: true),
            steps: .standard(retryPolicy: .never))
    }

    /// What the token endpoint gave for a native sign-in's code.
    struct Exchanged: Sendable {
        var refreshToken: String?
        var idToken: String?
    }

    /// Exchanges a native sign-in's authorization code (no redirect URI) for `clientID`.
    func exchange(code: String, clientID: String) async throws -> Exchanged {
        let secret = try credentials.clientSecret(clientID: clientID, audience: issuer, now: now)
        let json = try await client.send(
            OIDCSessionAuthority.form(
                credentials.tokenURL,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("client_id", clientID),
                    ("client_secret", secret),
                ])
        ).json()
        return Exchanged(refreshToken: json["refresh_token"]?.stringValue, idToken: json["id_token"]?.stringValue)
    }

    /// Revokes a refresh token of `clientID`; a token Apple no longer knows (`invalid_token`) counts as revoked.
    func revoke(refreshToken: String, clientID: String) async throws {
        let secret = try credentials.clientSecret(clientID: clientID, audience: issuer, now: now)
        do {
            // Apple answers 200 with an empty body.
            var request = OIDCSessionAuthority.form(
                credentials.revocationURL,
                [
                    ("client_id", clientID), ("client_secret", secret), ("token", refreshToken),
                    ("token_type_hint", "refresh_token"),
                ])
            request.options.expectsJSON = false
            _ = try await client.send(request)
        } catch let error as MendError where OAuthErrorBody.code(of: error) == "invalid_token" {
            return
        }
    }
}
