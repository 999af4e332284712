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
    /// Where a login's DPoP key is made when the provider speaks DPoP (``LoginProvider/dpopSigningAlgorithms`` lists
    /// `ES256`); `nil`: bearer sessions.
    var proofKeys: (any DPoPKeyFactory)?
    /// The authority's nonce book and session prover.
    let dpopProofs: DPoPSessionProofs

    /// Creates an exchanger that sends through `client` (the authority's one pipeline to the provider, which decodes
    /// errors with the dialect's decoder) and reads the time on its clock.
    package init(
        provider: LoginProvider, transport: any HTTPTransport, client: APIClient, idTokenValidator: IDTokenValidator?,
        proofKeys: (any DPoPKeyFactory)? = nil, dpopProofs: DPoPSessionProofs = DPoPSessionProofs()
    ) {
        self.provider = provider
        self.transport = transport
        self.client = client
        self.clock = client.configuration.clock
        self.idTokenValidator = idTokenValidator
        self.proofKeys = proofKeys
        self.dpopProofs = dpopProofs
    }

    /// A new login's key, when the provider speaks DPoP and the sessions are bound (``proofKeys``); `nil` otherwise.
    package func makeLoginKey() throws -> DPoPKey? {
        provider.speaksDPoP ? try proofKeys?.makeSessionKey() : nil
    }

    /// Exchanges the code at the provider's token endpoint, proving the key the authorization request named
    /// (``AuthorizationTransaction/proofKey``, to which the provider bound the code), else a new one when the
    /// provider speaks DPoP.
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
        var request = APIRequest(
            method: .post, url: provider.tokenEndpoint, headers: headers, body: Data(body.utf8),
            options: RequestOptions(allowsRetry: false, attachesCredential: false))
        // A provider that speaks DPoP binds the tokens to the key this request proves (RFC 9449 §5): the one the
        // authorization request named (dpop_jkt, RFC 9449 §10), which the code is bound to, else a new one.
        let key = try transaction.proofKey ?? makeLoginKey()
        request.dpop = try dpopProofs.binding(for: key)
        let answer = try ProviderTokenAnswer(try await client.send(request).json())
        var session = try await answer.login(
            at: provider, transport: transport, issuedAt: clock.now(), asked: transaction.scopes, granted: granted,
            denied: denied, idTokenValidator: idTokenValidator, nonce: transaction.nonce, what: "the token response")
        if answer.isProofBound { session.proofKey = key }
        return session
    }
}
