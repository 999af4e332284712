import Foundation
import MendCore
import MendJOSE

/// The claims of a session access token (a JWT signed with EdDSA or ES256, `kid` in the header). Each claim's name
/// is written once (``Name``), for the writer and the reader alike.
struct AccessTokenClaims: Sendable, Equatable {
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
    /// `nbf`, unix seconds, when a token has one (this server writes none; a token that has one is held to it).
    var notBefore: Double? = nil

    /// The `cnf` claim of a DPoP-bound token.
    struct Confirmation: Sendable, Equatable {
        /// The RFC 7638 thumbprint of the session's key.
        var jkt: String
    }

    /// The claims' names.
    enum Name {
        static let issuer = "iss", audience = "aud", subject = "sub", sessionID = "sid", scope = "scope"
        static let issuedAt = "iat", expiresAt = "exp", tokenID = "jti", confirmation = "cnf", notBefore = "nbf"
        static let thumbprint = "jkt"
    }

    var scopes: [String] { scope.split(separator: " ").map(String.init) }

    /// The times MendJOSE's rule checks.
    var times: JWTTimes {
        JWTTimes(expiresAt: Double(expiresAt), notBefore: notBefore, issuedAt: Double(issuedAt))
    }

    /// The claims as the token carries them.
    var members: [String: JSONValue] {
        var members: [String: JSONValue] = [
            Name.issuer: .string(issuer), Name.audience: .string(audience), Name.subject: .string(subject),
            Name.sessionID: .string(sessionID), Name.scope: .string(scope), Name.issuedAt: .int(Int(issuedAt)),
            Name.expiresAt: .int(Int(expiresAt)), Name.tokenID: .string(tokenID),
        ]
        if let confirmation { members[Name.confirmation] = .object([Name.thumbprint: .string(confirmation.jkt)]) }
        if let notBefore { members[Name.notBefore] = .double(notBefore) }
        return members
    }
}

extension AccessTokenClaims {
    /// The claims of a token's payload, parsed member by member by the strict reader
    /// (``JSONValue/parseObjectMembers``: each member once): every claim but `cnf` and `nbf` required, with its type
    /// (`iat` and `exp` integers, `nbf` a number); members it does not know ignored; `nil` for anything else. A bearer
    /// check that sees a token for the first time runs this.
    init?(payload: some Collection<UInt8>) {
        // Each claim read as its member comes (no dictionary of members, ``JSONValue/parseObjectMembers``).
        var issuer: String?, audience: String?, subject: String?, sessionID: String?, scope: String?
        var issuedAt: Int?, expiresAt: Int?, tokenID: String?, cnf: JSONValue?, notBefore: Double?
        func read(_ name: String, _ value: JSONValue) -> Bool {
            switch (name, value) {
            case (Name.issuer, .string(let text)): issuer = text
            case (Name.audience, .string(let text)): audience = text
            case (Name.subject, .string(let text)): subject = text
            case (Name.sessionID, .string(let text)): sessionID = text
            case (Name.scope, .string(let text)): scope = text
            case (Name.issuedAt, .int(let number)): issuedAt = number
            case (Name.expiresAt, .int(let number)): expiresAt = number
            case (Name.tokenID, .string(let text)): tokenID = text
            case (Name.confirmation, _): cnf = value
            case (Name.notBefore, .int(let number)): notBefore = Double(number)
            case (Name.notBefore, .double(let number)): notBefore = number
            case (Name.issuer, _), (Name.audience, _), (Name.subject, _), (Name.sessionID, _), (Name.scope, _),
                (Name.issuedAt, _), (Name.expiresAt, _), (Name.tokenID, _), (Name.notBefore, _):
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
            guard case .string(let jkt)? = cnf[Name.thumbprint] else { return nil }
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
        self.notBefore = notBefore
    }
}
