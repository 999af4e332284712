public import Foundation

/// One login attempt: what the app asked for and the secrets that bind the answer to it (`state`, `nonce`, the
/// PKCE verifier). Keep it until the redirect arrives; it is single-use.
public struct AuthorizationTransaction: Sendable, Hashable, Codable {
    /// The CSRF binding: a fresh random value the redirect must echo.
    public var state: String
    /// The OIDC nonce the id_token must carry.
    public var nonce: String
    /// The PKCE verifier (never logged, never in the URL).
    public var codeVerifier: String
    /// The exact redirect URI the provider will send the user back to.
    public var redirectURI: URL
    /// The scopes asked for.
    public var scopes: [String]
    /// Whether declined permissions were asked for again.
    public var isRerequest: Bool
    /// When the transaction started.
    public var createdAt: Date
    /// The DPoP key the authorization request named (`dpop_jkt`, RFC 9449 §10): the provider binds the code to it,
    /// and the code exchange proves it. `nil` for a login that proves no key. A secret, like the verifier: only its
    /// thumbprint is ever shown.
    public var proofKey: DPoPKey?

    /// Creates a transaction (a login makes a fresh one for each attempt).
    public init(
        state: String, nonce: String, codeVerifier: String, redirectURI: URL, scopes: [String], isRerequest: Bool,
        createdAt: Date, proofKey: DPoPKey? = nil
    ) {
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.isRerequest = isRerequest
        self.createdAt = createdAt
        self.proofKey = proofKey
    }

    /// A description without secrets: no state, nonce or verifier.
    package var redactedDescription: String {
        "AuthorizationTransaction(redirect: \(redirectURI.absoluteString), scopes: \(scopes.joined(separator: ",")))"
    }
}

/// Builds the authorization request URL: PKCE S256, `state` and `nonce` per transaction, scopes,
/// `response_type=code granted_scopes` for Facebook-compatible providers, `auth_type=rerequest` to ask again for
/// declined permissions, and `dpop_jkt` for a login that proves a key (RFC 9449 §10).
package struct AuthorizationRequest: Sendable {
    /// The provider.
    package var provider: LoginProvider
    /// The redirect URI (a loopback `http://127.0.0.1:<port>/callback`, or an app's `fb<appid>://authorize`).
    package var redirectURI: URL
    /// The scopes to ask for.
    package var scopes: [String]
    /// Ask again for permissions the user declined before.
    package var rerequest: Bool
    /// Extra query parameters (provider-specific).
    package var additionalParameters: [String: String]
    /// The key the login's code exchange will prove (DPoP), made before the URL so that the URL can name it: sent as
    /// `dpop_jkt` (its thumbprint), which binds the code to it at the provider (RFC 9449 §10), and kept in the
    /// transaction for the exchange. `nil`: no `dpop_jkt` (a bearer login, or a key the exchange makes itself).
    package var proofKey: DPoPKey?

    /// Creates a request.
    public init(
        provider: LoginProvider, redirectURI: URL, scopes: [String] = ["public_profile", "email"],
        rerequest: Bool = false,
        additionalParameters: [String: String] = [:]
    ) {
        self.provider = provider
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.rerequest = rerequest
        self.additionalParameters = additionalParameters
    }

    /// Starts a transaction: fresh `state`, `nonce` and PKCE verifier, the ``proofKey`` if there is one, and the URL
    /// to open.
    package func start(now: Date = Date()) -> (url: URL, transaction: AuthorizationTransaction) {
        let pkce = PKCE()
        let transaction = AuthorizationTransaction(
            state: RandomToken.make(), nonce: RandomToken.make(), codeVerifier: pkce.verifier, redirectURI: redirectURI,
            scopes: scopes, isRerequest: rerequest, createdAt: now, proofKey: proofKey)
        return (url(for: transaction, challenge: pkce.challenge), transaction)
    }

    /// The URL for an existing transaction.
    package func url(for transaction: AuthorizationTransaction) -> URL {
        url(for: transaction, challenge: PKCE(verifier: transaction.codeVerifier)?.challenge ?? "")
    }

    private func url(for transaction: AuthorizationTransaction, challenge: String) -> URL {
        var items: [URLQueryItem] = [
            URLQueryItem(name: "client_id", value: provider.clientID),
            URLQueryItem(name: "redirect_uri", value: transaction.redirectURI.absoluteString),
        ]
        items += provider.dialect.authorizationItems(scopes: transaction.scopes, isRerequest: transaction.isRerequest)
        items += [
            URLQueryItem(name: "state", value: transaction.state),
            URLQueryItem(name: "nonce", value: transaction.nonce),
            URLQueryItem(name: "code_challenge", value: challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        if let key = transaction.proofKey { items.append(URLQueryItem(name: "dpop_jkt", value: key.thumbprint)) }
        let parameters = provider.authorizationParameters.merging(additionalParameters) { _, request in request }
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            items.append(URLQueryItem(name: name, value: value))
        }
        var components = URLComponents(url: provider.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + items
        // `+` is a space in forms: encode it, and keep spaces as %20.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }
}
