public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

/// An OpenID Connect (or plain OAuth 2.0) provider's own session, for a public client that logs in directly
/// (Google, any OIDC provider from discovery): the code exchange (PKCE, no secret), refresh with the refresh token at the token endpoint, validity by the
/// userinfo endpoint, logout by RFC 7009 revocation.
///
/// - Refresh: `grant_type=refresh_token` with the client id (a public client has no secret). A rotated refresh token
///   replaces the old one; without one in the answer the old one stays. An id_token in the answer is validated
///   (without a nonce: a refresh sends none); one that names another user ends the session (`login/304`), one that
///   does not validate is dropped (the session keeps its id_token). `invalid_grant` — the refresh token is
///   expired, revoked or unknown — ends the session (`session/16`); so does a session without a refresh token once
///   its access token expires (`session/15`). A refresh is never retried: a provider that rotates refresh tokens
///   would take a retried one, after a lost answer, as reuse.
/// - Validity: `GET userinfo` with the access token; a 401 asks the manager to refresh (`session/2`). Without a
///   userinfo endpoint only the access token's expiry is checked.
/// - Revocation: the refresh token (else the access token) at ``LoginProvider/revocationEndpoint``; a token the
///   provider calls invalid (`invalid_token`) is already dead, which counts as revoked. Without an endpoint,
///   `revoke` throws and the manager removes the session locally only.
/// - DPoP (RFC 9449): when the provider speaks it (``LoginProvider/dpopSigningAlgorithms`` lists `ES256`, as
///   discovery reads it), a login makes a key (the Secure Enclave where there is one) and proves the code exchange;
///   a provider that answers `token_type: DPoP` has bound the tokens to it, and the session keeps the key. Its
///   refreshes, validity checks and the app's requests with ``CredentialsManager/currentCredential()`` then carry a
///   proof; a `use_dpop_nonce` challenge is answered by one more request. ``binding`` `= .bearer` opts out.
public struct OIDCSessionAuthority: DPoPSessionAuthority {
    /// The provider.
    package let provider: LoginProvider
    /// Validates id_tokens that a refresh returns.
    package let idTokenValidator: IDTokenValidator?
    /// The one pipeline to the provider: reads are retried once; a refresh and a revocation are not.
    let client: APIClient
    let clock: PipelineClock
    /// The code exchange, through the same pipeline (a code is never retried).
    var exchanger: DirectCodeExchanger
    /// The nonce book and the current session's prover, shared with the exchanger and the credentials manager.
    package var dpopProofs: DPoPSessionProofs { exchanger.dpopProofs }
    /// Whether a login at a provider that speaks DPoP binds the session to a key (``SessionBinding/dpop``, the
    /// default) or opens a bearer session. A provider that does not speak DPoP gives bearer sessions either way.
    public var binding: SessionBinding {
        get { exchanger.proofKeys == nil ? .bearer : .dpop }
        set { exchanger.proofKeys = newValue == .bearer ? nil : DPoPKeyring.preferred }
    }

    /// Creates an authority.
    ///
    /// - Parameters:
    ///   - provider: The provider (``LoginProvider/discover(issuer:clientID:transport:)`` fills in its endpoints).
    ///   - transport: The transport.
    ///   - idTokenValidator: Validates id_tokens that a refresh returns; `nil` drops them.
    ///   - clock: The client's one clock (waits, deadlines, token dates).
    public init(
        provider: LoginProvider, transport: any HTTPTransport, idTokenValidator: IDTokenValidator? = nil,
        clock: PipelineClock = .system
    ) {
        self.provider = provider
        self.idTokenValidator = idTokenValidator
        self.clock = clock
        client = APIClient(
            transport: transport,
            configuration: APIClient.Configuration(
                errorDecoder: provider.dialect.errorDecoder(), catalog: .login, clock: clock, isThirdParty: true),
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 2)))
        exchanger = DirectCodeExchanger(
            provider: provider, transport: transport, client: client, idTokenValidator: idTokenValidator,
            proofKeys: DPoPKeyring.preferred, dpopProofs: DPoPSessionProofs())
    }

    /// Exchanges the code at the token endpoint as a public client (the PKCE verifier, no secret). With an
    /// `idTokenValidator`, the answer must carry an id_token that passes it (ask for the `openid` scope), or the login
    /// fails with `login/309`; the session keeps it in ``Session/idToken``. Without one, an id_token is dropped.
    public func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    ) async throws -> Session {
        try await exchanger.exchange(code: code, transaction: transaction, granted: granted, denied: denied)
    }

    /// The session ends on `session/10`–`19` (an `invalid_grant` refresh is `session/16`) and on a refreshed
    /// id_token that names another user (`login/304`).
    public func endsSession(_ error: MendError) -> Bool {
        MendError.Code.Session.endsSession(error.code) || error.code == .Login.userMismatch
    }

    /// Refreshes at the token endpoint (see the type's documentation).
    public func refresh(_ session: Session) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw MendError(
                code: .Session.sessionExpired,
                developerMessage: "The provider gave no refresh token (ask for offline access): log in again.",
                catalog: .login)
        }
        var request = Self.form(
            provider.tokenEndpoint,
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", provider.clientID)])
        // A bound refresh token is used with a proof of its key (RFC 9449 §5); a key gone is session/19.
        request.dpop = try dpopProofs.binding(for: session.proofKey)
        let answer: ProviderTokenAnswer
        do {
            answer = try ProviderTokenAnswer(try await client.send(request).json())
        } catch let error as MendError where error.httpStatus == 400 || error.httpStatus == 401 {
            guard OAuthErrorBody.code(of: error) == "invalid_grant" else { throw error }
            var ended = MendError(
                code: .Session.refreshTokenUnknown,
                developerMessage: "The provider refused the refresh token (invalid_grant): it expired or was revoked.",
                catalog: .login)
            ended.httpStatus = error.httpStatus
            throw ended
        }
        return try await answer.refresh(
            of: session, at: provider, issuedAt: clock.now(), idTokenValidator: idTokenValidator)
    }

    /// `GET userinfo` with the access token (or the token's expiry without a userinfo endpoint).
    public func checkValidity(of session: Session) async throws {
        guard let userinfo = provider.userinfoEndpoint else {
            if let expiration = session.accessToken.expirationDate, expiration <= clock.now() {
                throw MendError(
                    code: .Session.accessTokenExpired, developerMessage: "The provider's access token expired.",
                    catalog: .login)
            }
            return
        }
        do {
            _ = try await client.send(
                APIRequest(
                    method: .get, url: userinfo,
                    options: RequestOptions(
                        credentialRejection: .keep, credentialOverride: try dpopProofs.credential(for: session))))
        } catch let error as MendError where error.httpStatus == 401 {
            var refresh = MendError(
                code: .Session.accessTokenInvalid,
                developerMessage: "The provider's userinfo endpoint refused the access token (401).", catalog: .login)
            refresh.httpStatus = 401
            throw refresh
        }
    }

    /// Revokes the refresh token (else the access token) at the revocation endpoint (RFC 7009).
    public func revoke(_ session: Session) async throws {
        guard let endpoint = provider.revocationEndpoint else {
            throw MendError.login(
                .Login.unknown, "The provider has no revocation endpoint: the session is removed here only.")
        }
        let (token, hint) =
            session.refreshToken.map { ($0, "refresh_token") } ?? (session.accessToken.tokenString, "access_token")
        var request = Self.form(
            endpoint, [("token", token), ("token_type_hint", hint), ("client_id", provider.clientID)])
        // A proof of the session's key where it can still sign: a provider that binds refresh tokens may ask for it.
        request.dpop = try? dpopProofs.binding(for: session.proofKey)
        do {
            _ = try await client.send(request)
        } catch let error as MendError where OAuthErrorBody.code(of: error) == "invalid_token" {
            return  // already dead: what a logout wants
        }
    }

    /// A form POST to a token or revocation endpoint (never retried, no credential attached).
    package static func form(_ url: URL, _ fields: [(String, String)]) -> APIRequest {
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[.accept] = "application/json"
        let body = FormEncoding.encode(fields)
        return APIRequest(
            method: .post, url: url, headers: headers, body: Data(body.utf8),
            options: RequestOptions(allowsRetry: false, attachesCredential: false))
    }
}

/// The `error` code of an OAuth 2.0 endpoint's error body (RFC 6749 §5.2, RFC 7009 §2.2.1: `invalid_grant`,
/// `invalid_token`…), read from the error's response excerpt.
package enum OAuthErrorBody {
    package static func code(of error: MendError) -> String? {
        error.response?.json?["error"]?.stringValue
    }
}

extension OIDCSessionAuthority {
    /// A new login's DPoP key when the provider speaks DPoP and ``binding`` is ``SessionBinding/dpop``: the login
    /// names it in the authorization request (`dpop_jkt`), and the code exchange proves it.
    package func makeLoginKey() throws -> DPoPKey? { try exchanger.makeLoginKey() }
}
