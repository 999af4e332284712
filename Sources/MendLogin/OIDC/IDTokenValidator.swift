public import Crypto
public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP
import _CryptoExtras

/// Validates OpenID Connect id_tokens: RS256 or ES256 signatures only (never `none`, never HMAC), through the
/// provider's JWKS (cached, re-fetched once on an unknown `kid`), then `iss`, `aud`, `exp`/`iat` with a leeway,
/// and `nonce`. Every failure is `login/309` (invalid id_token), shown to users generically.
public actor IDTokenValidator {
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
        public var name: String?
        /// `email`, if present.
        public var email: String?
    }

    /// The issuer id_tokens must name.
    public let issuer: String
    /// The client id the audience must contain.
    public let clientID: String
    /// Where the provider publishes its keys.
    public let jwksURI: URL
    /// The tolerance for clock skew on `exp` and `iat`.
    public let leeway: TimeInterval
    /// The oldest `iat` accepted.
    public let maximumAge: TimeInterval
    private let client: APIClient
    private let now: @Sendable () -> Date
    private var keys: [String: VerificationKey] = [:]

    /// Creates a validator.
    public init(
        issuer: String, clientID: String, jwksURI: URL, transport: any HTTPTransport, leeway: TimeInterval = 60,
        maximumAge: TimeInterval = 600, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.jwksURI = jwksURI
        self.leeway = leeway
        self.maximumAge = maximumAge
        self.now = now
        self.client = APIClient(
            transport: transport, configuration: .init(retryPolicy: RetryPolicy(maximumAttempts: 2)))
    }

    enum VerificationKey: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    /// Validates `token`; `nonce` is the one the authorization request sent.
    public func validate(_ token: String, nonce expectedNonce: String?) async throws -> Claims {
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
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        let digest = SHA256.hash(data: signingInput)
        let valid: Bool
        switch (algorithm, key) {
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
        return try claims(payload, nonce: expectedNonce)
    }

    func claims(_ payload: JSONValue, nonce expectedNonce: String?) throws(MendError) -> Claims {
        guard let subject = payload["sub"]?.stringValue, let tokenIssuer = payload["iss"]?.stringValue,
            let expires = payload["exp"]?.doubleValue, let issued = payload["iat"]?.doubleValue
        else { throw Self.invalid("it lacks sub, iss, exp or iat") }
        let audience =
            payload["aud"]?.arrayValue?.compactMap(\.stringValue) ?? [payload["aud"]?.stringValue].compactMap { $0 }
        let current = now().timeIntervalSince1970
        guard tokenIssuer == issuer else { throw Self.invalid("its issuer is not the provider") }
        guard audience.contains(clientID) else { throw Self.invalid("it is for another app") }
        guard expires + leeway > current else { throw Self.invalid("it has expired") }
        guard issued - leeway <= current, current - issued <= maximumAge + leeway else {
            throw Self.invalid("it was issued at an implausible time")
        }
        let nonce = payload["nonce"]?.stringValue
        if let expectedNonce {
            guard let nonce, ConstantTime.equal(nonce, expectedNonce) else { throw Self.invalid("its nonce differs") }
        }
        return Claims(
            subject: subject, issuer: tokenIssuer, audience: audience,
            expiresAt: Date(timeIntervalSince1970: expires), issuedAt: Date(timeIntervalSince1970: issued),
            nonce: nonce,
            name: payload["name"]?.stringValue, email: payload["email"]?.stringValue)
    }

    private func key(for keyID: String) async throws -> VerificationKey {
        if let key = keys[keyID] { return key }
        try await refreshKeys()
        guard let key = keys[keyID] else { throw Self.invalid("its key is not in the provider's key set") }
        return key
    }

    /// Fetches the key set again (on an unknown `kid`: the provider rotated its keys).
    public func refreshKeys() async throws {
        let response = try await client.send(APIRequest(method: .get, url: jwksURI))
        var fetched: [String: VerificationKey] = [:]
        for jwk in try response.json()["keys"]?.arrayValue ?? [] {
            guard let keyID = jwk["kid"]?.stringValue else { continue }
            switch jwk["kty"]?.stringValue {
            case "RSA":
                guard let modulus = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                    let exponent = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                    let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
                else { continue }
                fetched[keyID] = .rsa(key)
            case "EC" where jwk["crv"]?.stringValue == "P-256":
                guard let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode),
                    let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode),
                    let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
                else { continue }
                fetched[keyID] = .p256(key)
            default:
                continue
            }
        }
        keys = fetched
    }

    static func invalid(_ reason: String) -> MendError {
        MendError.login(.Login.invalidIDToken, "The id_token is invalid: \(reason).")
    }
}
