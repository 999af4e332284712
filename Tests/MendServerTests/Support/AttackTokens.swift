import Crypto
import Foundation
import MendCore
import MendHandMadeTokens
import MendJOSE
import Testing

/// A JWS as text, member by member, so that a member can come twice, in any order, of any JSON type: what a JSON
/// value cannot write. Values are raw JSON text.
struct TokenDraft: Sendable {
    var header: [(name: String, value: String)]
    var claims: [(name: String, value: String)]

    var headerText: String { Self.text(header) }
    var claimsText: String { Self.text(claims) }

    private static func text(_ members: [(name: String, value: String)]) -> String {
        "{" + members.map { #""\#($0.name)":\#($0.value)"# }.joined(separator: ",") + "}"
    }

    /// Sets `name` in `part`: its first occurrence replaced (later ones dropped), or appended.
    static func set(_ name: String, _ value: String, in part: inout [(name: String, value: String)]) {
        if let index = part.firstIndex(where: { $0.name == name }) {
            part[index].value = value
            part.removeAll { $0.name == name && $0.value != value }
        } else {
            part.append((name, value))
        }
    }

    mutating func setHeader(_ name: String, _ value: String) { Self.set(name, value, in: &header) }
    mutating func setClaim(_ name: String, _ value: String) { Self.set(name, value, in: &claims) }
    func has(claim name: String) -> Bool { claims.contains { $0.name == name } }

    /// A draft of a compact JWS's header and claims as they are (each member's value in its JSON text).
    init(token: String) throws {
        let parts = token.split(separator: ".")
        func members(_ part: Substring) throws -> [(name: String, value: String)] {
            let bytes = try #require(Base64URL.decode(part))
            let object = try #require(JSONValue.parseObject(bytes))
            return object.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonText()) }
        }
        header = try members(parts[0])
        claims = try members(parts[1])
    }

    init(header: [(name: String, value: String)], claims: [(name: String, value: String)]) {
        self.header = header
        self.claims = claims
    }
}

/// A key a test signs with by hand (MendHandMadeTokens): a surface's trusted key, or the attacker's.
enum HandKey: Sendable {
    case es256(P256.Signing.PrivateKey)
    case edDSA(Curve25519.Signing.PrivateKey)

    var algorithm: String {
        switch self {
        case .es256: "ES256"
        case .edDSA: "EdDSA"
        }
    }

    func sign(_ draft: TokenDraft) throws -> String {
        switch self {
        case .es256(let key): try HandMadeJWS.es256(header: draft.headerText, claims: draft.claimsText, key: key)
        case .edDSA(let key): try HandMadeJWS.edDSA(header: draft.headerText, claims: draft.claimsText, key: key)
        }
    }

    /// The public JWK's text, members in RFC 7638's order.
    var publicJWK: String {
        switch self {
        case .es256(let key): HandMadeJWS.jwk(of: key.publicKey)
        case .edDSA(let key):
            #"{"crv":"Ed25519","kty":"OKP","x":"\#(Base64URL.encode(key.publicKey.rawRepresentation))"}"#
        }
    }

    /// MendJOSE's view of the public key.
    var publicKey: JWSPublicKey {
        switch self {
        case .es256(let key): JWSPublicKey(.p256(key.publicKey))
        case .edDSA(let key): JWSPublicKey(.ed25519(key.publicKey))
        }
    }
}

/// What one surface that verifies a JWS trusts, and the token it accepts: what the attacks are built from.
struct AttackTarget: Sendable {
    enum Kind: Sendable { case idToken, session, dpop, clientSecret }

    var kind: Kind
    /// A new draft of a token the surface accepts (a DPoP proof needs a new `jti` each time).
    var draft: @Sendable () -> TokenDraft
    /// The key the surface trusts, when the test holds it (not the emulator's Google issuer's).
    var trusted: HandKey?
    /// The trusted key's algorithm and public JWK text (the secret of the HMAC confusion).
    var trustedAlgorithm: String
    var trustedJWK: String
    /// A token the surface accepts, signed by its issuer: the inner token of a nested JWT.
    var genuine: @Sendable () async throws -> String
    /// A token valid at another issuer (another deployment, provider, team or server).
    var otherIssuer: @Sendable () async throws -> String
    /// The audience the surface trusts, if its tokens name one.
    var audience: String?
}

/// One attack of the corpus: its name, and its token for a target (`nil`: the attack does not apply there).
struct Attack: Sendable {
    var name: String
    var build: @Sendable (AttackTarget, HandKey) async throws -> String?
}

/// What a surface did with a token.
enum Verdict: Sendable, Equatable, CustomStringConvertible {
    /// Refused, the way this surface refuses a bad token (its typed error, status and code).
    case refused
    case accepted
    /// Refused some other way (a 500, another code): a failure of the matrix too.
    case other(String)

    var description: String {
        switch self {
        case .refused: "refused"
        case .accepted: "ACCEPTED"
        case .other(let what): "other: \(what)"
        }
    }
}
