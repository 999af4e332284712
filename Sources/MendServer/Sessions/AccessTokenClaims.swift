import Foundation
import JWTKit
import MendCore

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

extension AccessTokenClaims {
    /// The claims of a token's payload, parsed without Foundation's decoder (``JSONValue/parseObjectMembers``):
    /// every claim but `cnf` required, with its type; members it does not know ignored, as the decoder ignored them;
    /// `nil` for anything else. A bearer check that sees a token for the first time runs this.
    init?(payload: some Collection<UInt8>) {
        // Each claim read as its member comes (no dictionary of members, ``JSONValue/parseObjectMembers``).
        var issuer: String?, audience: String?, subject: String?, sessionID: String?, scope: String?
        var issuedAt: Int?, expiresAt: Int?, tokenID: String?, cnf: JSONValue?
        func read(_ name: String, _ value: JSONValue) -> Bool {
            switch (name, value) {
            case ("iss", .string(let text)): issuer = text
            case ("aud", .string(let text)): audience = text
            case ("sub", .string(let text)): subject = text
            case ("sid", .string(let text)): sessionID = text
            case ("scope", .string(let text)): scope = text
            case ("iat", .int(let number)): issuedAt = number
            case ("exp", .int(let number)): expiresAt = number
            case ("jti", .string(let text)): tokenID = text
            case ("cnf", _): cnf = value
            case ("iss", _), ("aud", _), ("sub", _), ("sid", _), ("scope", _), ("iat", _), ("exp", _), ("jti", _):
                return false  // a known claim of another type
            default: break  // a member it does not know
            }
            return true
        }
        let parsed =
            payload.withContiguousStorageIfAvailable { JSONValue.parseObjectMembers($0, read) }
            ?? Array(payload).withUnsafeBufferPointer { JSONValue.parseObjectMembers($0, read) }
        guard parsed, let issuer, let audience, let subject, let sessionID, let scope, let issuedAt, let expiresAt,
            let tokenID
        else { return nil }
        switch cnf {
        case nil, .null?: confirmation = nil
        case .object(let cnf)?:
            guard case .string(let jkt)? = cnf["jkt"] else { return nil }
            confirmation = Confirmation(jkt: jkt)
        default: return nil
        }
        self.issuer = issuer
        self.audience = audience
        self.subject = subject
        self.sessionID = sessionID
        self.scope = scope
        self.issuedAt = Int64(issuedAt)
        self.expiresAt = Int64(expiresAt)
        self.tokenID = tokenID
    }
}
