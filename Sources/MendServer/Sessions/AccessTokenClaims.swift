import Foundation
import JWTKit

/// The claims of a session access token (a JWT signed with EdDSA or ES256, `kid` in the header).
struct AccessTokenClaims: JWTPayload, Sendable, Equatable {
    /// `iss`: the server (``ServerConfiguration/Sessions/issuer``).
    var issuer: String
    /// `aud`: the sessions' audience (`MEND_AUDIENCE`; the Facebook app id without one).
    var audience: String
    /// `sub`: the app user id.
    var subject: String
    /// `sid`: the session (refresh-token family) id.
    var sessionID: String
    /// `scope`: the granted scopes, space-separated.
    var scope: String
    /// `iat`, unix seconds.
    var issuedAt: Int64
    /// `exp`, unix seconds.
    var expiresAt: Int64
    /// `jti`: a unique id.
    var tokenID: String
    /// `cnf`: the key the token is bound to (`jkt`, RFC 9449 §6.1), for a DPoP-bound session; `nil` for a bearer one.
    var confirmation: Confirmation? = nil

    /// The `cnf` claim of a DPoP-bound token.
    struct Confirmation: Codable, Sendable, Equatable {
        /// The RFC 7638 thumbprint of the session's key.
        var jkt: String
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", audience = "aud", subject = "sub", sessionID = "sid", scope, issuedAt = "iat"
        case expiresAt = "exp", tokenID = "jti", confirmation = "cnf"
    }

    var scopes: [String] { scope.split(separator: " ").map(String.init) }

    /// The signature is checked by the key collection; time and audience by ``SessionSigner`` with the server's
    /// clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
