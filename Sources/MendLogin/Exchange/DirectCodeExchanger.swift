public import Foundation
import HTTPTypes
import Logging
public import MendCore
public import MendHTTP

/// The code exchange of a public client that logs in directly (``OIDCSessionAuthority``, MendFacebook's
/// `FacebookSessionAuthority`): it exchanges codes with the provider, proving possession with the PKCE verifier (no
/// secret: a client never holds one). Never retried.
///
/// For a Facebook-compatible provider it then reads the user (`/me`) and the permissions (`/me/permissions`) with
/// the new token, so that the session knows what was granted and declined.
///
/// With an ``idTokenValidator`` (OpenID Connect), the token response must carry an id_token that passes it — a
/// response without one is `login/309` — and the session keeps it in ``Session/idToken``. Without a validator, an
/// id_token in the response is dropped: nothing unvalidated is kept as if it had been checked.
package struct DirectCodeExchanger: Sendable {
    /// The provider.
    let provider: LoginProvider
    let transport: any HTTPTransport
    let client: APIClient
    let clock: PipelineClock
    /// Validates the id_token (OpenID Connect). When set, the token response must carry an id_token (ask for the
    /// `openid` scope) and the id_token must pass; when `nil`, an id_token in the response is ignored and not kept.
    var idTokenValidator: IDTokenValidator?

    /// Creates an exchanger that sends through `client` (the authority's one pipeline to the provider, which decodes
    /// errors with the dialect's decoder) and reads the time on its clock.
    package init(
        provider: LoginProvider, transport: any HTTPTransport, client: APIClient, idTokenValidator: IDTokenValidator?
    ) {
        self.provider = provider
        self.transport = transport
        self.client = client
        self.clock = client.configuration.clock
        self.idTokenValidator = idTokenValidator
    }

    struct TokenResponse: Decodable {
        var accessToken: String
        var expiresIn: Double?
        var idToken: String?
        var refreshToken: String?
        var scope: String?

        enum CodingKeys: String, CodingKey {
            case scope
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case idToken = "id_token"
            case refreshToken = "refresh_token"
        }
    }

    /// Exchanges the code at the provider's token endpoint.
    package func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    )
        async throws -> Session
    {
        let form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("client_id", provider.clientID), ("code", code),
            ("code_verifier", transaction.codeVerifier), ("redirect_uri", transaction.redirectURI.absoluteString),
        ]
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[.accept] = "application/json"
        let body = FormEncoding.encode(form)
        let response = try await client.send(
            APIRequest(
                method: .post, url: provider.tokenEndpoint, headers: headers, body: Data(body.utf8),
                options: RequestOptions(allowsRetry: false, attachesCredential: false)))
        let token = try response.decode(TokenResponse.self)
        let issuedAt = clock.now()
        var accessToken = AccessToken(
            tokenString: token.accessToken, appID: provider.clientID,
            permissions: Set(
                granted ?? token.scope.map { $0.split(separator: " ").map(String.init) } ?? transaction.scopes),
            declinedPermissions: Set(denied ?? []),
            expirationDate: token.expiresIn.map { issuedAt.addingTimeInterval($0) }, refreshDate: issuedAt)
        var user: Session.User?
        var validatedIDToken: String?
        if let idTokenValidator {
            guard let idToken = token.idToken else {
                throw IDTokenValidator.invalid(
                    "the token response carries none, though the exchanger validates id_tokens (ask for the openid "
                        + "scope)")
            }
            let claims = try await idTokenValidator.validate(
                idToken, nonce: transaction.nonce, accessToken: token.accessToken)
            user = Session.User(
                id: claims.subject, providerUserID: claims.subject, name: claims.name, email: claims.email)
            validatedIDToken = idToken
        }
        if let profile = try await provider.dialect.profile(
            token: token.accessToken, provider: provider, transport: transport)
        {
            user = profile.user
            accessToken.userID = profile.user.id
            if !profile.granted.isEmpty || !profile.declined.isEmpty {
                accessToken.permissions = profile.granted
                accessToken.declinedPermissions = profile.declined
                accessToken.expiredPermissions = profile.expired
            }
        } else {
            accessToken.userID = user?.id
        }
        return Session(
            issuer: .provider, accessToken: accessToken, refreshToken: token.refreshToken, user: user,
            idToken: validatedIDToken)
    }
}
