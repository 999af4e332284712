import Crypto
public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP
import MendJOSE

/// Validates OpenID Connect id_tokens (OpenID Connect Core 1.0 §3.1.3.7).
///
/// - The token: a compact JWS read by MendJOSE, Mend's one JOSE reader — canonical base64url, header and claims each
///   member once, no `crit` (RFC 7515 §4.1.11), times as numbers (RFC 7519 §2).
/// - The signature: RS256 or ES256 only (never `none`, never HMAC), with a key from the provider's JWKS whose `kid`
///   the token names. A key whose `use` is not `sig`, or whose `alg` is not the token's, never verifies. The key set
///   is cached; an unknown `kid` fetches it again (the provider rotated its keys), but at most once per
///   `keyRefetchInterval`, and validations that need the key set at the same time share one fetch.
/// - The claims: `sub` a non-empty string; `iss` is the provider's; `aud` contains one of the accepted client ids
///   (`clientIDs`: an app's web and native clients, or a backend accepting several apps) and no audience that is not
///   one of them, and when it names several audiences `azp` must be present; a present `azp` must be an accepted client id; `exp`, `nbf` and `iat` with `leeway` for clock skew
///   (and `iat` no older than `maximumAge`); `nonce` as the `NonceRule` says: equal to the one the authorization
///   request sent, or — for Sign in with Apple and the vendor SDK's Limited Login, which put the SHA-256 of the app's
///   raw nonce in the token, in lowercase hex — equal to that hash of the raw nonce the app kept.
///
/// Every failure is `login/309` (invalid id_token), shown to users generically. A key set that cannot be fetched is
/// the transport's error (retryable), not `login/309`.
public actor IDTokenValidator {
    /// How the token's `nonce` must match.
    package enum NonceRule: Sendable, Hashable {
        /// The token's nonce equals this (the code flow: the nonce the authorization request sent; Google's native
        /// sign-in).
        case exact(String)
        /// The token's nonce is the SHA-256 of this raw nonce, in hex (Sign in with Apple, Limited Login: the app
        /// hands the provider the hash and keeps the raw value). Lowercase and uppercase hex both match.
        case sha256Hex(ofRawNonce: String)

        func matches(_ nonce: String) -> Bool {
            switch self {
            case .exact(let expected):
                return ConstantTime.equal(nonce, expected)
            case .sha256Hex(let raw):
                let hash = SHA256.hash(data: Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
                return ConstantTime.equal(nonce.lowercased(), hash)
            }
        }
    }

    /// The claims Mend reads from a valid id_token.
    public struct Claims: Sendable, Hashable {
        /// `sub`.
        public var subject: String
        /// `iss`.
        public var issuer: String
        /// `aud`.
        public var audience: [String]
        /// `exp`.
        public var expiresAt: Date
        /// `iat`.
        public var issuedAt: Date
        /// `nonce`.
        public var nonce: String?
        /// `name`, if present.
        package var name: String?
        /// `email`, if present.
        package var email: String?
        /// `email_verified`, if present: a JSON boolean (Google, OIDC) or the strings `"true"` and `"false"` (Apple).
        package var emailVerified: Bool?
        /// Apple's `is_private_email` (a string or a boolean): the e-mail is a private-relay address.
        package var isPrivateEmail: Bool?
        /// `azp`, if present.
        package var authorizedParty: String?
        /// Google's `hd`: the Workspace domain of the account, if any.
        package var hostedDomain: String?
    }

    /// The issuer id_tokens must name.
    package let issuer: String
    /// The first of ``clientIDs``.
    package var clientID: String { clientIDs[0] }
    /// The client ids one of which the audience must contain (never empty).
    package let clientIDs: [String]
    /// Where the provider publishes its keys.
    package let jwksURI: URL
    /// The tolerance for clock skew on `exp`, `nbf` and `iat`.
    package let leeway: TimeInterval
    /// The oldest `iat` accepted.
    package let maximumAge: TimeInterval
    /// The shortest time between two fetches of the key set caused by an unknown `kid`: a token naming a key the
    /// provider does not have cannot make the validator fetch the key set on every validation.
    package let keyRefetchInterval: TimeInterval
    private let client: APIClient
    private let clock: PipelineClock
    private var keys = JWKSet([])
    /// When the key set was last fetched successfully (by this validator's clock).
    private var lastFetch: Date?
    /// The fetch in flight, which every validation that needs the key set meanwhile awaits.
    private var inFlightFetch: Task<Void, any Error>?
    /// Called each time a validation starts waiting for the key set (tests observe the single flight with it).
    var onKeySetWait: (@Sendable () -> Void)?

    /// Creates a validator.
    ///
    /// - Parameters:
    ///   - issuer: The issuer id_tokens must name (`iss`).
    ///   - clientID: The client id: `aud` must contain it, and a present `azp` must be it.
    ///   - jwksURI: Where the provider publishes its keys.
    ///   - transport: How the key set is fetched.
    ///   - leeway: The tolerance for clock skew on `exp`, `nbf` and `iat`.
    ///   - maximumAge: The oldest `iat` accepted.
    ///   - keyRefetchInterval: The shortest time between two fetches of the key set caused by an unknown `kid`.
    ///   - clock: The client's one clock (token times, key refetch interval, the key fetch's waits).
    public init(
        issuer: String, clientID: String, jwksURI: URL, transport: any HTTPTransport, leeway: TimeInterval = 60,
        maximumAge: TimeInterval = 600, keyRefetchInterval: TimeInterval = 60, clock: PipelineClock = .system
    ) {
        self.init(
            issuer: issuer, clientIDs: [clientID], jwksURI: jwksURI, transport: transport, leeway: leeway,
            maximumAge: maximumAge, keyRefetchInterval: keyRefetchInterval, clock: clock)
    }

    /// Creates a validator that accepts tokens for any of several client ids (an app's web and native clients).
    ///
    /// - Parameters:
    ///   - issuer: The issuer id_tokens must name (`iss`).
    ///   - clientIDs: The accepted client ids: `aud` must contain one, and a present `azp` must be one. An empty list
    ///     accepts no token.
    ///   - jwksURI: Where the provider publishes its keys.
    ///   - transport: How the key set is fetched.
    ///   - leeway: The tolerance for clock skew on `exp`, `nbf` and `iat`.
    ///   - maximumAge: The oldest `iat` accepted.
    ///   - keyRefetchInterval: The shortest time between two fetches of the key set caused by an unknown `kid`.
    ///   - clock: The client's one clock (token times, key refetch interval, the key fetch's waits).
    package init(
        issuer: String, clientIDs: [String], jwksURI: URL, transport: any HTTPTransport, leeway: TimeInterval = 60,
        maximumAge: TimeInterval = 600, keyRefetchInterval: TimeInterval = 60, clock: PipelineClock = .system
    ) {
        self.issuer = issuer
        // An impossible client id keeps `clientID` defined and accepts nothing.
        self.clientIDs = clientIDs.isEmpty ? ["\u{0}"] : clientIDs
        self.jwksURI = jwksURI
        self.leeway = leeway
        self.maximumAge = maximumAge
        self.keyRefetchInterval = keyRefetchInterval
        self.clock = clock
        self.client = APIClient(
            transport: transport, configuration: .init(clock: clock, isThirdParty: true),
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 2)))
    }

    /// Sets ``onKeySetWait`` (tests).
    func setKeySetWaitObserver(_ observer: (@Sendable () -> Void)?) {
        onKeySetWait = observer
    }

    /// Validates `token`.
    ///
    /// - Parameters:
    ///   - token: The id_token.
    ///   - expectedNonce: The nonce the authorization request sent (`nil`: the token's nonce is not checked — only for
    ///     tokens no request of this app asked for, such as a refresh's).
    ///   - accessToken: The access token that came with the id_token: a present `at_hash` claim must be the left half
    ///     of its SHA-256 (OpenID Connect Core §3.1.3.8); `nil` when there is none (an id_token sign-in).
    public func validate(
        _ token: String, nonce expectedNonce: String?, accessToken: String? = nil
    ) async throws
        -> Claims
    {
        try await validate(token, nonceRule: expectedNonce.map(NonceRule.exact), accessToken: accessToken)
    }

    /// Validates `token`, its nonce matched by `nonceRule` (`nil`: not checked) and a present `at_hash` by
    /// `accessToken`.
    package func validate(_ token: String, nonceRule: NonceRule?, accessToken: String? = nil) async throws -> Claims {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token, maximumLength: Self.maximumLength)
        } catch {
            throw Self.invalid(error.reason)
        }
        guard JWSAlgorithms.idToken.allowed.contains(jws.header.algorithm) else {
            throw Self.invalid("its algorithm is not RS256 or ES256")
        }
        guard let keyID = jws.header.keyID else { throw Self.invalid("it names no key (kid)") }
        let key = try await key(for: keyID)
        let claims: JWTClaims
        do {
            claims = try jws.verified(with: key, allowed: .idToken).claims()
        } catch {
            throw Self.invalid(error.reason)
        }
        if let accessToken, let accessTokenHash = claims["at_hash"] {
            // RS256 and ES256 both hash with SHA-256: at_hash is the base64url of its left 128 bits.
            let expected = Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)).prefix(16))
            guard accessTokenHash.stringValue == expected else {
                throw Self.invalid("its at_hash is not the access token's")
            }
        }
        return try self.claims(claims, nonceRule: nonceRule)
    }

    func claims(_ payload: JWTClaims, nonceRule: NonceRule?) throws(MendError) -> Claims {
        let subject: String, tokenIssuer: String, audience: [String], times: JWTTimes
        do {
            subject = try payload.requiredString("sub")
            tokenIssuer = try payload.requiredString("iss")
            audience = try payload.audience()
            times = try payload.times()
        } catch {
            throw Self.invalid(error.reason)
        }
        guard tokenIssuer == issuer else { throw Self.invalid("its issuer is not the provider") }
        guard audience.contains(where: clientIDs.contains) else { throw Self.invalid("it is for another app") }
        guard audience.allSatisfy(clientIDs.contains) else {
            throw Self.invalid("its audience names a party this app does not trust")
        }
        let authorizedParty = payload["azp"]
        if audience.count > 1, authorizedParty == nil {
            throw Self.invalid("it names several audiences but no authorized party (azp)")
        }
        if let authorizedParty, !clientIDs.contains(authorizedParty.stringValue ?? "\u{0}") {
            throw Self.invalid("its authorized party (azp) is another app")
        }
        do {
            try JWTTimeRule(skew: leeway, maximumAge: maximumAge).check(times, now: clock.now().timeIntervalSince1970)
        } catch {
            throw Self.invalid(error.reason)
        }
        // `check` made both present.
        let expires = times.expiresAt ?? 0
        let issued = times.issuedAt ?? 0
        let nonce = payload["nonce"]?.stringValue
        if let nonceRule {
            guard let nonce, nonceRule.matches(nonce) else { throw Self.invalid("its nonce differs") }
        }
        return Claims(
            subject: subject, issuer: tokenIssuer, audience: audience,
            expiresAt: Date(timeIntervalSince1970: expires), issuedAt: Date(timeIntervalSince1970: issued),
            nonce: nonce,
            name: payload["name"]?.stringValue, email: payload["email"]?.stringValue,
            emailVerified: Self.flag(payload["email_verified"]), isPrivateEmail: Self.flag(payload["is_private_email"]),
            authorizedParty: authorizedParty?.stringValue, hostedDomain: payload["hd"]?.stringValue)
    }

    /// A boolean claim sent as a JSON boolean or as the string `"true"` or `"false"` (Apple); anything else is `nil`.
    static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: flag
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    private func key(for keyID: String) async throws -> JWSPublicKey {
        if let key = keys[keyID] { return key }
        if let inFlightFetch {
            // Another validation is fetching the key set: share its answer.
            onKeySetWait?()
            try await inFlightFetch.value
        } else if lastFetch.map({ clock.now().timeIntervalSince($0) >= keyRefetchInterval }) ?? true {
            onKeySetWait?()
            try await fetchKeys()
        }
        guard let key = keys[keyID] else { throw Self.invalid("its key is not in the provider's key set") }
        return key
    }

    /// Fetches the key set again now, whatever ``keyRefetchInterval`` says (a fetch already in flight is shared).
    package func refreshKeys() async throws {
        if let inFlightFetch {
            try await inFlightFetch.value
        } else {
            try await fetchKeys()
        }
    }

    /// Starts the one fetch that every concurrent caller awaits; records its time when it succeeds (a failed fetch
    /// does not hold the next one back).
    private func fetchKeys() async throws {
        let client = client
        let jwksURI = jwksURI
        let fetch = Task<Void, any Error> {
            let response = try await client.send(APIRequest(method: .get, url: jwksURI))
            let fetched: JWKSet
            do throws(JOSEError) {
                fetched = try JWKSet(document: response.body)
            } catch {
                throw MendError.login(
                    .Login.invalidIDToken, "The provider's key set cannot be read: \(error.reason).")
            }
            self.install(fetched)
        }
        inFlightFetch = fetch
        defer { inFlightFetch = nil }
        try await fetch.value
    }

    private func install(_ fetched: JWKSet) {
        keys = fetched
        lastFetch = clock.now()
    }

    /// The longest id_token read, in bytes: a provider's token with many claims (groups, roles) fits.
    static let maximumLength = 65_536

    static func invalid(_ reason: String) -> MendError {
        MendError.login(.Login.invalidIDToken, "The id_token is invalid: \(reason).")
    }
}
