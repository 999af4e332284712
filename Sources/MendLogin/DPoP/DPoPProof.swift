import Crypto
public import Foundation
package import MendCore
public import MendHTTP

/// A DPoP proof (RFC 9449 §4): the JWT a request carries in its `DPoP` header to show that its sender holds the
/// session's key. One proof per request: a replay or a retry gets a new one (a new `jti`, the time of the attempt).
package struct DPoPProof: Sendable {
    /// The proof's JWT.
    package var jwt: String

    /// The proof of one request.
    ///
    /// - Parameters:
    ///   - signer: The session's key.
    ///   - method: The request's method (`htm`).
    ///   - url: The request's URL: `htu` is it without query and fragment, scheme and host lowercased, the default
    ///     port dropped, an empty path as `/`.
    ///   - accessToken: The access token the request presents (`ath` is its SHA-256), `nil` at the token endpoint.
    ///   - nonce: The server's latest `DPoP-Nonce`, if it gave one.
    ///   - issuedAt: The time of the attempt (`iat`), on the server's clock as far as the client knows it.
    ///   - jti: The proof's unique id (random by default).
    package init(
        signer: any ProofSigner, method: String, url: URL, accessToken: String?, nonce: String?, issuedAt: Date,
        jti: String = Self.randomID()
    ) throws {
        var claims: [(String, String)] = [
            ("jti", Self.quoted(jti)), ("htm", Self.quoted(method.uppercased())), ("htu", Self.quoted(Self.htu(url))),
            ("iat", String(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))),
        ]
        if let accessToken { claims.append(("ath", Self.quoted(Self.ath(accessToken)))) }
        if let nonce { claims.append(("nonce", Self.quoted(nonce))) }
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(signer.publicKey.canonicalJSON)}"#
        let payload = "{" + claims.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(payload.utf8))
        let signature = try signer.signature(for: Data(signingInput.utf8))
        jwt = signingInput + "." + Base64URL.encode(signature)
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
        Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))))
    }

    /// 16 random bytes, base64url: a `jti`.
    package static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A JSON string literal.
    private static func quoted(_ text: String) -> String {
        // JSONEncoder escapes as JSON needs (a nonce is the server's text); `/` is not escaped.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? String(decoding: encoder.encode(text), as: UTF8.self)) ?? "\"\""
    }
}

/// The prover of a DPoP-bound session (MendHTTP's `RequestProver`): the session's key signs each request's proof.
package struct SessionProver: RequestProver {
    let signer: any ProofSigner

    /// The prover of `key`; `session/19` (``MendError/Code/Session/proofKeyUnavailable``) when this device cannot
    /// use it — a new login, never a crash.
    package init(key: ProofKey) throws(MendError) {
        do {
            signer = try ProofKeyring.signer(for: key)
        } catch let unavailable as ProofKeyUnavailable {
            throw MendError.login(.Session.proofKeyUnavailable, unavailable.description + " Log in again.")
        } catch {
            throw MendError.login(
                .Session.proofKeyUnavailable,
                "The session's DPoP key cannot be used (\(type(of: error))). Log in again.")
        }
    }

    package func proof(
        method: String, url: URL, accessToken: String?, nonce: String?, issuedAt: Date
    ) async throws -> String {
        try DPoPProof(
            signer: signer, method: method, url: url, accessToken: accessToken, nonce: nonce, issuedAt: issuedAt
        ).jwt
    }
}
