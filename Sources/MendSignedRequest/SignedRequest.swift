import Crypto
public import Foundation
public import MendCore

/// The provider's `signed_request` (deauthorize and data-deletion callbacks): base64url(signature) "." base64url(JSON
/// payload), the signature being HMAC-SHA256 of the *encoded* payload keyed by the app secret.
///
/// ``verify(_:secret:now:maximumAge:)`` is a pure function: it checks the shape, the algorithm (HMAC-SHA256 only),
/// the signature (constant-time), `issued_at` (not older than the maximum age, not in the future beyond a minute of
/// clock skew) and `expires` when present, and returns the payload.
///
/// MendServer's callbacks use it; it is a module of its own so that the fuzzers (`Fuzz/`) reach it without the
/// server stack. `@_spi(MendFuzzing)`: not part of Mend's public API.
@_spi(MendFuzzing) public enum SignedRequest {
    /// A verified payload.
    public struct Payload: Sendable, Hashable {
        /// `user_id` (a string, or an integer as text).
        public var userID: String
        /// `issued_at`, in seconds since 1970.
        public var issuedAt: Int64
        /// The whole payload.
        public var json: JSONValue
    }

    /// Why a `signed_request` was refused.
    public enum Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not base64url(signature).base64url(JSON object) — base64url without padding, a JSON object naming each
        /// member once —, or no integer `issued_at`.
        case malformed
        /// `algorithm` is not HMAC-SHA256.
        case unsupportedAlgorithm(String?)
        /// The signature does not match.
        case badSignature
        /// Older than the maximum age, or past `expires`.
        case expired
        /// Issued more than the clock skew in the future.
        case issuedInFuture
        /// No `user_id`.
        case missingUser

        /// A stable, readable rendering.
        public var description: String {
            switch self {
            case .malformed: "signed_request is not base64url(signature).base64url(JSON payload)"
            case .unsupportedAlgorithm(let algorithm):
                "signed_request algorithm \(algorithm ?? "(none)") is not HMAC-SHA256"
            case .badSignature: "signed_request signature does not match"
            case .expired: "signed_request has expired"
            case .issuedInFuture: "signed_request was issued in the future"
            case .missingUser: "signed_request names no user_id"
            }
        }
    }

    /// The tolerance, in seconds, for an `issued_at` in the future.
    public static let clockSkew: Int64 = 60

    /// Verifies `signedRequest` with the app secret, at `now`, refusing payloads older than `maximumAge`.
    public static func verify(
        _ signedRequest: String, secret: String, now: Date, maximumAge: Duration
    ) -> Result<Payload, Rejection> {
        let parts = signedRequest.split(separator: ".", omittingEmptySubsequences: false)
        // Base64url as JWS writes it (no padding, one spelling of the bytes) and the strict reader (a member named
        // twice refused): a signed payload is read one way only.
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            let signature = Base64URL.decodeCanonical(parts[0].utf8),
            let payloadBytes = Base64URL.decodeCanonical(parts[1].utf8)
        else { return .failure(.malformed) }
        guard case .success(let json) = JSONValue.parse(Data(payloadBytes), maxBytes: 64 * 1024),
            json.objectValue != nil
        else { return .failure(.malformed) }
        let algorithm = json["algorithm"]?.stringValue
        guard algorithm?.uppercased() == "HMAC-SHA256" else { return .failure(.unsupportedAlgorithm(algorithm)) }
        let key = SymmetricKey(data: Data(secret.utf8))
        // Constant time: swift-crypto compares the codes without an early exit.
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(parts[1].utf8), using: key) else {
            return .failure(.badSignature)
        }
        let current = Int64(now.timeIntervalSince1970)
        guard let issuedAt = json["issued_at"]?.intValue.map(Int64.init) else { return .failure(.malformed) }
        guard issuedAt <= current + clockSkew else { return .failure(.issuedInFuture) }
        // An `issued_at` near Int64.min would overflow the age (a trap): it is as expired as a payload gets.
        let (age, overflow) = current.subtractingReportingOverflow(issuedAt)
        guard !overflow, age <= Int64(maximumAge.seconds) else { return .failure(.expired) }
        if let expires = json["expires"]?.intValue, expires > 0, Int64(expires) <= current { return .failure(.expired) }
        guard let userID = json["user_id"]?.stringValue ?? json["user_id"]?.intValue.map(String.init), !userID.isEmpty
        else { return .failure(.missingUser) }
        return .success(Payload(userID: userID, issuedAt: issuedAt, json: json))
    }

    /// Makes a `signed_request` as the provider does (for tests and tools).
    public static func make(payload: JSONValue, secret: String) -> String {
        let encoded = Base64URL.encode(Data(payload.jsonText().utf8))
        let signature = HMAC<SHA256>.authenticationCode(
            for: Data(encoded.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Base64URL.encode(Data(signature)) + "." + encoded
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
