public import Foundation
import HTTPTypes
import MendCore
import MendDPoPCheck
import MendHTTP
import MendJOSE
import MendLogin

/// The emulated issuers' DPoP (RFC 9449), as an authorization server and a resource server that speak it (Auth0,
/// Keycloak, Okta) do. Apple and Google do not: it is off unless ``EmulatorConfiguration/issuerDPoP`` or the control
/// API (`POST /_emulator/issuers/dpop`) turns it on, so that an app's DPoP path can be tested against a provider.
///
/// When on: discovery lists `dpop_signing_alg_values_supported: ["ES256"]`; a token request with a valid proof gets
/// tokens bound to its key (`token_type: DPoP`; the refresh token too for a public client, RFC 9449 §5), whatever its
/// grant — the code, a refresh token, or (Google) RFC 8628's device code; a bound refresh token is refused without a
/// proof of its key; an authorization request's `dpop_jkt` binds the code to that key, and the token request that
/// redeems it must prove it (RFC 9449 §10); userinfo takes a bound token only as `Authorization: DPoP` with a
/// proof. A proof that does not verify — signature, `typ`, `alg`, `htm`, `htu`, `iat`, `ath`, a `jti` seen
/// before — is refused (`invalid_dpop_proof`: 400 at the token endpoint, 401 with `WWW-Authenticate: DPoP` at
/// userinfo). With nonces required, a proof without the current one is challenged (`use_dpop_nonce` with
/// `DPoP-Nonce`); rotating the nonce challenges the next proof that carries the old one. Turned off, the issuer
/// checks no proof: tokens bound before are taken as bearer ones, at the token endpoint and userinfo alike.
struct IssuerDPoP: Sendable {
    /// Whether the issuers speak DPoP.
    var enabled: Bool
    /// Whether every proof must carry ``nonce``.
    var requiresNonce = false
    /// The nonce proofs carry when one is required (a proof whose `iat` is off is asked for it either way).
    var nonce: String
    /// The proofs seen, by key and `jti`: each is used once.
    private var seen: Set<String> = []
    private let verifier = DPoPVerifier(maximumAge: 300, skew: 60)

    /// DPoP on or off, its first nonce from `seed` (the emulator's other random numbers are left as they were).
    init(enabled: Bool, seed: UInt64) {
        self.enabled = enabled
        var generator = SeededGenerator(seed: seed ^ 0x4450_6F50_4E4F_4E43)
        self.nonce = Self.newNonce(&generator)
    }

    static func newNonce(_ random: inout SeededGenerator) -> String { "eyJ7S_" + random.alphanumeric(32) }

    /// Whether `value` can be a JWK SHA-256 thumbprint (RFC 7638) as `dpop_jkt` carries it: 43 base64url characters,
    /// no padding (RFC 9449 §10).
    static func isThumbprint(_ value: String) -> Bool {
        value.utf8.count == 43
            && value.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// The key (its RFC 7638 thumbprint) that `request`'s proof proves, for `url` (the endpoint's public URL)
    /// presenting `accessToken` (`nil` at the token endpoint); `nil` without a proof or with DPoP off.
    mutating func check(
        _ request: EmulatorRequest, url: String, accessToken: String?, now: Date
    ) -> Result<String?, DPoPVerifier.Refusal> {
        guard enabled else { return .success(nil) }
        let proofs = request.headers[values: .dpop]
        guard let proof = proofs.first else { return .success(nil) }
        guard proofs.count == 1 else { return .failure(.invalid("more than one DPoP header")) }
        guard let target = URL(string: url) else { return .failure(.invalid("htu is not the request's URL")) }
        let verified: DPoPVerifier.Verified
        do {
            let current = nonce
            verified = try verifier.verify(
                proof, method: request.method.rawValue, url: target, accessToken: accessToken,
                now: Int64(now.timeIntervalSince1970), nonceIsValid: { ConstantTime.equal($0, current) },
                requiresNonce: requiresNonce)
        } catch {
            return .failure(error)
        }
        if seen.count >= 100_000 { seen.removeAll() }
        guard seen.insert(verified.thumbprint + " " + verified.jti).inserted else {
            return .failure(.invalid("the proof was used before (its jti is not new)"))
        }
        return .success(verified.thumbprint)
    }

    /// The token endpoint's refusal (RFC 9449 §5): 400 with `invalid_dpop_proof` or `use_dpop_nonce` and the nonce.
    func tokenEndpointRefusal(_ refusal: DPoPVerifier.Refusal) -> EmulatorResponse {
        let (error, description) = Self.wire(refusal)
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if refusal == .nonceRequired || requiresNonce { headers[.dpopNonce] = nonce }
        return .json(
            .object(["error": .string(error), "error_description": .string(description)]), status: .badRequest,
            headers: headers)
    }

    /// A resource's refusal (RFC 9449 §7.1): 401 with `WWW-Authenticate: DPoP error=…` and, for a nonce, the nonce.
    func resourceRefusal(_ refusal: DPoPVerifier.Refusal) -> EmulatorResponse {
        let (error, description) = Self.wire(refusal)
        var headers: HTTPFields = [
            .wwwAuthenticate: #"DPoP error="\#(error)", error_description="\#(description)", algs="ES256""#
        ]
        if refusal == .nonceRequired || requiresNonce { headers[.dpopNonce] = nonce }
        return .json(.object(["error": .string(error)]), status: .unauthorized, headers: headers)
    }

    /// `response` with the nonce to use next, when nonces are required (RFC 9449 §8.2: any answer may carry one).
    func answer(_ response: EmulatorResponse) -> EmulatorResponse {
        guard enabled, requiresNonce else { return response }
        var answered = response
        answered.headers[.dpopNonce] = nonce
        return answered
    }

    private static func wire(_ refusal: DPoPVerifier.Refusal) -> (String, String) {
        switch refusal {
        case .invalid(let reason): ("invalid_dpop_proof", reason.replacingOccurrences(of: "\"", with: "'"))
        case .nonceRequired: ("use_dpop_nonce", "Authorization server requires nonce in DPoP proof")
        }
    }
}

/// `GET` and `POST /_emulator/issuers/dpop`: whether the issuers speak DPoP, whether they require a nonce, and the
/// nonce. A `POST` sets what it names; `rotateNonce: true` makes a new nonce (the next proof with the old one is
/// challenged).
public struct IssuerDPoPStatus: Sendable, Hashable, Codable {
    /// Whether the issuers speak DPoP.
    public var enabled: Bool
    /// Whether every proof must carry the current nonce.
    public var requireNonce: Bool
    /// The current nonce.
    public var nonce: String
}

/// The body of `POST /_emulator/issuers/dpop`: every field optional.
struct IssuerDPoPBody: Codable {
    var enabled: Bool?
    var requireNonce: Bool?
    var rotateNonce: Bool?
}

extension Emulator {
    /// Turns the issuers' DPoP on or off, requires a nonce or not, and rotates the nonce (test mode's control API,
    /// `POST /_emulator/issuers/dpop`); `nil` leaves a setting as it is. Returns the settings now.
    @discardableResult
    public func setIssuerDPoP(
        enabled: Bool? = nil, requireNonce: Bool? = nil, rotateNonce: Bool = false
    ) -> IssuerDPoPStatus {
        state.setIssuerDPoP(enabled: enabled, requireNonce: requireNonce, rotateNonce: rotateNonce)
    }
}

extension EmulatorState {
    mutating func setIssuerDPoP(enabled: Bool?, requireNonce: Bool?, rotateNonce: Bool) -> IssuerDPoPStatus {
        if let enabled { issuers.dpop.enabled = enabled }
        if let requireNonce { issuers.dpop.requiresNonce = requireNonce }
        if rotateNonce { issuers.dpop.nonce = IssuerDPoP.newNonce(&context.random) }
        return IssuerDPoPStatus(
            enabled: issuers.dpop.enabled, requireNonce: issuers.dpop.requiresNonce, nonce: issuers.dpop.nonce)
    }
}
