import Crypto
package import Foundation
package import MendCore

/// A DPoP proof (RFC 9449 §4): the JWT a request carries in its `DPoP` header to show that its sender holds the
/// session's key. One proof per request: a replay or a retry gets a new one (a new `jti`, the time of the attempt).
///
/// Made here, on the client's side of the line, by MendJOSE's one signer; the proof's *check* is the servers'
/// (mend-server's and the emulator's), in a module no client links.
package struct DPoPProof: Sendable {
    /// The proof's JWT.
    package var jwt: String

    /// The `typ` of a DPoP proof's header.
    package static let type = "dpop+jwt"

    /// The proof of one request.
    ///
    /// - Parameters:
    ///   - signer: The session's key (ES256).
    ///   - method: The request's method (`htm`).
    ///   - url: The request's URL: `htu` is it without query and fragment, scheme and host lowercased, the default
    ///     port dropped, an empty path as `/`.
    ///   - accessToken: The access token the request presents (`ath` is its SHA-256), `nil` at the token endpoint.
    ///   - nonce: The server's latest `DPoP-Nonce`, if it gave one.
    ///   - issuedAt: The time of the attempt (`iat`), on the server's clock as far as the client knows it.
    ///   - jti: The proof's unique id (random by default).
    package init(
        signer: any JWSSigningBackend, method: String, url: URL, accessToken: String?, nonce: String?,
        issuedAt: Date, jti: String = Self.randomID()
    ) throws {
        var claims: [String: JSONValue] = [
            "jti": .string(jti), "htm": .string(method.uppercased()), "htu": .string(Self.htu(url)),
            "iat": .int(Int(issuedAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let accessToken { claims["ath"] = .string(Self.ath(accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        jwt = try JWSSigner.sign(
            claims: claims, with: signer, keyID: nil, type: Self.type,
            extraHeader: ["jwk": .object(JWK.requiredMembers(of: signer.publicKey))])
    }

    /// `htu` of a URL (RFC 9449 §4.2, compared per RFC 3986 §6.2.2–6.2.3): without query and fragment, scheme and
    /// host lowercased, the scheme's default port dropped, an empty path as `/`. The server normalises its side the
    /// same way.
    package static func htu(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) {
            components.port = nil
        }
        if components.path.isEmpty { components.path = "/" }
        return components.string ?? url.absoluteString
    }

    /// `ath`: base64url(SHA-256(the access token's ASCII)).
    package static func ath(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(accessToken.utf8)))
    }

    /// 16 random bytes, base64url: a `jti`.
    package static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
