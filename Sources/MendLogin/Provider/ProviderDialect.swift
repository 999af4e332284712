public import Foundation
public import MendCore
public import MendHTTP

/// What one kind of provider does its own way: the parts of its authorization request that differ, how its error
/// bodies decode (its error space), who the user is once a token arrives, how device login talks to it, how a public
/// client keeps its sessions (check, refresh, revoke, and which answers end them), and how its id_tokens validate.
///
/// A ``LoginProvider`` is a value: its endpoints and client id, and its ``LoginProvider/dialect``. Mend has two
/// dialects: MendFacebook's `FacebookDialect` (Facebook and Mend's emulator) and ``OpenIDConnectDialect`` (Google, and any issuer
/// ``LoginProvider/discover(issuer:clientID:transport:)`` reads). A provider that speaks neither is one more type that
/// conforms; the authorization request, the code exchange, ``DeviceLogin`` and `mend login` then use it without
/// a change to theirs or to another provider's code.
///
/// ```swift
/// struct ExampleDialect: ProviderDialect {
///     let name = "example"
///     func authorizationItems(scopes: [String], isRerequest: Bool) -> [URLQueryItem] {
///         [URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "scope", value: scopes.joined(separator: ","))]
///     }
///     func errorDecoder() -> any ErrorDecoder { HTTPStatusErrorDecoder() }
///     func profile(token: String, provider: LoginProvider, transport: any HTTPTransport) async throws -> ProviderProfile? {
///         // GET the provider's user endpoint with `token` …
///     }
///     // deviceLoginWire, sessionAuthority and idTokenValidator have defaults: no device login, sessions kept by
///     // OIDCSessionAuthority's refresh and RFC 7009 revocation, no id_token.
/// }
/// let provider = LoginProvider(
///     authorizationEndpoint: …, tokenEndpoint: …, clientID: "…", dialect: ExampleDialect())
/// ```
public protocol ProviderDialect: Sendable {
    /// A short, stable name (`facebook`, `oidc`): in logs, and to tell dialects apart (two providers are equal only
    /// when their dialects have the same name).
    var name: String { get }

    /// The authorization request's items that differ between providers: `response_type`, `scope` (joined the
    /// provider's way) and, for `isRerequest`, what asks again for declined permissions. The request adds the
    /// standard ones itself: `client_id`, `redirect_uri`, `state`, `nonce` and PKCE.
    func authorizationItems(scopes: [String], isRerequest: Bool) -> [URLQueryItem]

    /// Decodes the provider's error bodies into its error space: at its token endpoint, its device login and its
    /// session endpoints.
    func errorDecoder() -> any ErrorDecoder

    /// Who the user is and what they granted, read with `token` right after a code exchange or a device login; `nil`
    /// when the token answer (its id_token) already says all there is.
    func profile(token: String, provider: LoginProvider, transport: any HTTPTransport) async throws -> ProviderProfile?

    /// Where device login asks for a code and polls, with the client credential each request carries.
    ///
    /// - Throws: `login/unknown` with the reason when the provider cannot do device login as configured (no client
    ///   token, no device authorization endpoint).
    func deviceLoginWire(
        for provider: LoginProvider, clientToken: String?, clientSecret: String?
    ) throws
        -> DeviceLoginWire

    /// Keeps the sessions that a public client got from the provider directly: checks, refreshes and revokes them,
    /// and says which answers end them.
    func sessionAuthority(
        for provider: LoginProvider, transport: any HTTPTransport, idTokenValidator: IDTokenValidator?
    ) -> any SessionAuthority

    /// The validator of the provider's id_tokens after a code flow or a device login, or `nil` when its logins are
    /// not checked by id_token.
    func idTokenValidator(for provider: LoginProvider, transport: any HTTPTransport) -> IDTokenValidator?
}

extension ProviderDialect {
    /// No device login.
    public func deviceLoginWire(
        for provider: LoginProvider, clientToken: String?, clientSecret: String?
    ) throws
        -> DeviceLoginWire
    {
        throw MendError.login(.Login.unknown, "The \(name) provider has no device login.")
    }

    /// ``OIDCSessionAuthority``: refresh at the token endpoint, validity at the userinfo endpoint, RFC 7009
    /// revocation.
    public func sessionAuthority(
        for provider: LoginProvider, transport: any HTTPTransport, idTokenValidator: IDTokenValidator?
    ) -> any SessionAuthority {
        OIDCSessionAuthority(provider: provider, transport: transport, idTokenValidator: idTokenValidator)
    }

    /// None: the provider's logins are not checked by id_token.
    public func idTokenValidator(for provider: LoginProvider, transport: any HTTPTransport) -> IDTokenValidator? {
        nil
    }
}

/// Who logged in, and what they granted, as the provider tells it.
public struct ProviderProfile: Sendable, Equatable {
    /// The user.
    public var user: Session.User
    /// The permissions granted; empty when the provider does not say (the token answer's `scope` then counts).
    public var granted: Set<String>
    /// The permissions the user declined.
    public var declined: Set<String>
    /// The permissions that were granted once and expired.
    public var expired: Set<String>

    /// A profile.
    public init(user: Session.User, granted: Set<String> = [], declined: Set<String> = [], expired: Set<String> = []) {
        self.user = user
        self.granted = granted
        self.declined = declined
        self.expired = expired
    }
}

/// How device login talks to a provider: where it asks for a code, where it polls, and what every request carries.
public struct DeviceLoginWire: Sendable {
    /// Where the code is asked for (`POST`, a form with `scope`).
    public var codeEndpoint: URL
    /// Where the device polls (`POST`, a form with ``pollFields``).
    public var pollEndpoint: URL
    /// The client credential every request carries (`access_token=app|client_token`, or `client_id` and
    /// `client_secret`).
    public var credential: [URLQueryItem]
    /// How the `scope` field joins scopes.
    public var scopeSeparator: String
    /// The poll's fields for a device code.
    public var pollFields: @Sendable (_ deviceCode: String) -> [URLQueryItem]
    /// The device-login answer (`login/330`–`333`: pending, slow down, declined, expired) that an error of the poll
    /// stands for, when the provider answers in its own words; RFC 8628's `error` values are understood without it.
    public var pollAnswer: (@Sendable (MendError) -> MendError.Code?)?

    /// A device-login wire.
    public init(
        codeEndpoint: URL, pollEndpoint: URL, credential: [URLQueryItem], scopeSeparator: String,
        pollFields: @escaping @Sendable (_ deviceCode: String) -> [URLQueryItem]
    ) {
        self.codeEndpoint = codeEndpoint
        self.pollEndpoint = pollEndpoint
        self.credential = credential
        self.scopeSeparator = scopeSeparator
        self.pollFields = pollFields
        self.pollAnswer = nil
    }
}
