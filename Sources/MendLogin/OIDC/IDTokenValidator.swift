public import Crypto
public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP
import _CryptoExtras

/// Validates OpenID Connect id_tokens (OpenID Connect Core 1.0 §3.1.3.7).
///
/// - The signature: RS256 or ES256 only (never `none`, never HMAC), with a key from the provider's JWKS whose `kid`
///   the token names. A key whose `use` is not `sig`, or whose `alg` is not the token's, never verifies. The key set
///   is cached; an unknown `kid` fetches it again (the provider rotated its keys), but at most once per
///   `keyRefetchInterval`, and validations that need the key set at the same time share one fetch.
/// - The claims: `iss` is the provider's; `aud` contains one of the accepted client ids (`clientIDs`: an app's web
///   and native clients, or a backend accepting several apps), and when it names several audiences `azp` must be
///   present; a present `azp` must be an accepted client id; `exp`, `nbf` and `iat` with `leeway` for clock skew
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
    private var keys: [String: VerificationKey] = [:]
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

    /// A key from the key set, with the algorithm it is restricted to (the JWK's `alg`), if any.
    struct VerificationKey: Sendable {
        enum Material: Sendable {
            case rsa(_RSA.Signing.PublicKey)
            case p256(P256.Signing.PublicKey)
        }

        var material: Material
        var algorithm: String?
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
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case .success(let header) = JSONValue.parse(headerData, maxBytes: 8192),
            case .success(let payload) = JSONValue.parse(payloadData, maxBytes: 65536)
        else { throw Self.invalid("it is not a JSON Web Token") }
        guard let algorithm = header["alg"]?.stringValue, algorithm == "RS256" || algorithm == "ES256" else {
            throw Self.invalid("its algorithm is not RS256 or ES256")
        }
        guard let keyID = header["kid"]?.stringValue else { throw Self.invalid("it names no key (kid)") }
        let key = try await key(for: keyID)
        if let keyAlgorithm = key.algorithm, keyAlgorithm != algorithm {
            throw Self.invalid("its algorithm is not the one its key is for")
        }
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        let digest = SHA256.hash(data: signingInput)
        let valid: Bool
        switch (algorithm, key.material) {
        case ("RS256", .rsa(let publicKey)):
            valid = publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: digest, padding: .insecurePKCS1v1_5)
        case ("ES256", .p256(let publicKey)):
            valid =
                (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map {
                    publicKey.isValidSignature($0, for: digest)
                } ?? false
        default:
            valid = false
        }
        guard valid else { throw Self.invalid("its signature does not verify") }
        if let accessToken, let accessTokenHash = payload["at_hash"] {
            // RS256 and ES256 both hash with SHA-256: at_hash is the base64url of its left 128 bits.
            let expected = Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)).prefix(16))
            guard accessTokenHash.stringValue == expected else {
                throw Self.invalid("its at_hash is not the access token's")
            }
        }
        return try claims(payload, nonceRule: nonceRule)
    }

    func claims(_ payload: JSONValue, nonce expectedNonce: String?) throws(MendError) -> Claims {
        try claims(payload, nonceRule: expectedNonce.map(NonceRule.exact))
    }

    func claims(_ payload: JSONValue, nonceRule: NonceRule?) throws(MendError) -> Claims {
        guard let subject = payload["sub"]?.stringValue, let tokenIssuer = payload["iss"]?.stringValue,
            let expires = payload["exp"]?.doubleValue, let issued = payload["iat"]?.doubleValue
        else { throw Self.invalid("it lacks sub, iss, exp or iat") }
        let audience =
            payload["aud"]?.arrayValue?.compactMap(\.stringValue) ?? [payload["aud"]?.stringValue].compactMap { $0 }
        let current = clock.now().timeIntervalSince1970
        guard tokenIssuer == issuer else { throw Self.invalid("its issuer is not the provider") }
        guard audience.contains(where: clientIDs.contains) else { throw Self.invalid("it is for another app") }
        let authorizedParty = payload["azp"]
        if audience.count > 1, authorizedParty == nil {
            throw Self.invalid("it names several audiences but no authorized party (azp)")
        }
        if let authorizedParty, !clientIDs.contains(authorizedParty.stringValue ?? "\u{0}") {
            throw Self.invalid("its authorized party (azp) is another app")
        }
        guard expires + leeway > current else { throw Self.invalid("it has expired") }
        if let notBefore = payload["nbf"] {
            guard let notBefore = notBefore.doubleValue else { throw Self.invalid("its nbf is not a time") }
            guard notBefore - leeway <= current else { throw Self.invalid("it is not valid yet (nbf)") }
        }
        guard issued - leeway <= current, current - issued <= maximumAge + leeway else {
            throw Self.invalid("it was issued at an implausible time")
        }
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

    private func key(for keyID: String) async throws -> VerificationKey {
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
            let fetched = Self.keys(from: try response.json())
            self.install(fetched)
        }
        inFlightFetch = fetch
        defer { inFlightFetch = nil }
        try await fetch.value
    }

    private func install(_ fetched: [String: VerificationKey]) {
        keys = fetched
        lastFetch = clock.now()
    }

    /// The signing keys of a JWK Set: RSA and P-256 keys with a `kid`, whose `use` (if any) is `sig`.
    static func keys(from jwks: JSONValue) -> [String: VerificationKey] {
        var fetched: [String: VerificationKey] = [:]
        for jwk in jwks["keys"]?.arrayValue ?? [] {
            guard let keyID = jwk["kid"]?.stringValue else { continue }
            if let use = jwk["use"], use.stringValue != "sig" { continue }
            if let operations = jwk["key_ops"], operations.arrayValue?.contains(.string("verify")) != true {
                continue
            }
            let algorithm = jwk["alg"].map { $0.stringValue ?? "" }
            switch jwk["kty"]?.stringValue {
            case "RSA":
                guard let modulus = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                    let exponent = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                    let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
                else { continue }
                fetched[keyID] = VerificationKey(material: .rsa(key), algorithm: algorithm)
            case "EC" where jwk["crv"]?.stringValue == "P-256":
                guard let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode),
                    let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode),
                    let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
                else { continue }
                fetched[keyID] = VerificationKey(material: .p256(key), algorithm: algorithm)
            default:
                continue
            }
        }
        return fetched
    }

    static func invalid(_ reason: String) -> MendError {
        MendError.login(.Login.invalidIDToken, "The id_token is invalid: \(reason).")
    }
}
