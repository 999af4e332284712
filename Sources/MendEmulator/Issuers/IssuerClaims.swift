import Crypto
import Foundation
import MendCore

/// What the emulated issuers say about a user: the id_token's claims in each issuer's shape, the stable subject, the
/// e-mail each shares, and Google's userinfo fields. Pure functions of the user and the request.
enum IssuerClaims {
    /// The claims of an id_token for `userID` (whose profile is `user`), issued at `issuedAt`.
    static func idToken(
        kind: EmulatedIssuerKind, clientID: String, user: TestUser, nonce: String?, scopes: [String], issuer: String,
        code: String?, accessToken: String?, issuedAt: Int, users: UserDirectory
    ) -> [(String, JSONValue?)] {
        var claims: [(String, JSONValue?)] = [
            ("iss", .string(issuer)), ("aud", .string(clientID)), ("exp", .int(issuedAt + 3600)),
            ("iat", .int(issuedAt)), ("sub", .string(subject(kind, userID: user.id))),
            ("nonce", .string(nonce)), ("at_hash", .string(accessToken.map(halfHash))),
        ]
        switch kind {
        case .apple:
            claims.append(("c_hash", .string(code.map(halfHash))))
            claims.append(("auth_time", .int(issuedAt)))
            claims.append(("nonce_supported", .bool(true)))
            if scopes.contains("email") || code == nil {
                let email = appleEmail(user.id, users: users)
                claims += [
                    ("email", .string(email.address)), ("email_verified", .string("true")),
                    ("is_private_email", .string(email.isPrivate ? "true" : "false")),
                ]
            }
            claims.append(("real_user_status", .int(2)))
        case .google:
            claims.append(("azp", .string(clientID)))
            claims += google(user, scopes: scopes)
        }
        return claims
    }

    /// Google's claims for the `email` and `profile` scopes (the id_token's and userinfo's): the e-mail, verified,
    /// with `hd` for a Workspace domain; the names and the picture.
    static func google(_ user: TestUser, scopes: [String]) -> [(String, JSONValue?)] {
        var claims: [(String, JSONValue?)] = []
        if scopes.contains("email") {
            let email = googleEmail(user)
            claims += [("email", .string(email)), ("email_verified", .bool(true))]
            if let domain = email.split(separator: "@").last, domain != "gmail.com" {
                claims.append(("hd", .string(String(domain))))
            }
        }
        if scopes.contains("profile") {
            claims += [
                ("name", .string(user.name)), ("given_name", .string(user.firstName)),
                ("family_name", .string(user.lastName)), ("picture", .string(user.pictureURL)),
            ]
        }
        return claims
    }

    /// The user's subject at an issuer: Apple's `000123.<hex>.0456`, Google's 21 digits; stable per user.
    static func subject(_ kind: EmulatedIssuerKind, userID: String) -> String {
        let digest = Array(SHA256.hash(data: Data("\(kind.rawValue):\(userID)".utf8)))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        switch kind {
        case .apple:
            return String(format: "%06d", Int(digest[0]) * 1000 + Int(digest[1])) + "." + hex.prefix(32) + "."
                + String(format: "%04d", Int(digest[2]) * 10 + Int(digest[3]) % 10)
        case .google:
            // 20 decimal digits from the digest's bytes, after a leading 1: 21 digits, as Google's subjects are.
            return "1" + digest.prefix(20).map { String($0 % 10) }.joined()
        }
    }

    /// The e-mail Apple shares: the first user hides theirs behind the private relay (as "Hide My Email" does), and
    /// so does a user without one; the others share their own.
    static func appleEmail(_ userID: String, users: UserDirectory) -> (address: String, isPrivate: Bool) {
        if userID != users.order.first, let email = users[userID]?.profile.email { return (email, false) }
        let digest = SHA256.hash(data: Data("relay:\(userID)".utf8)).prefix(6)
        return (digest.map { String(format: "%02x", $0) }.joined() + "@privaterelay.appleid.com", true)
    }

    /// The e-mail Google shows: the user's own (a Workspace domain gives `hd`), or a Gmail address.
    static func googleEmail(_ user: TestUser) -> String {
        user.email ?? "\(user.firstName.lowercased()).example@gmail.com"
    }

    /// The left half of a SHA-256, base64url (`at_hash`, `c_hash`).
    static func halfHash(_ value: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(value.utf8)).prefix(16)))
    }
}
