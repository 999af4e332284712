import Crypto
import Foundation
import MendCore
import MendJOSE
import MendServer

/// The access tokens of sessions the benchmark needs by the thousand, made as mend-server makes its own and without a
/// hook in it: the claims of a real login's token, each with a session id and a token id of its own (and `cnf.jkt`
/// for sessions bound to a proof key), signed through MendJOSE with the signing key the benchmark configured.
///
/// mend-server's check takes them as its own tokens: their signature, issuer, audience and times are the ones it
/// checks, and its revocation view knows only of sessions that ended, so it reads no session from the database for
/// them — as for the sessions of real logins, whose rows the check does not read either while the view is current.
struct SessionTokens {
    private let key: SoftwareSigningKey
    private let keyID: String
    private let verifying: JWSKeyRing
    /// The claims of the login's token.
    private let claims: [String: JSONValue]

    /// Tokens like `access` (a token mend-server issued at a login), signed with `configuration` (its signing key).
    init(like access: String, configuration: SigningKeyConfiguration) throws {
        guard let raw = Base64URL.decode(configuration.privateKey.value) else {
            throw BenchmarkFailure(description: "the signing key is not base64url")
        }
        key =
            switch configuration.algorithm {
            case .eddsa: .edDSA(try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
            case .es256: .es256(try P256.Signing.PrivateKey(rawRepresentation: raw))
            }
        keyID = configuration.keyID
        var publicKey = key.publicKey
        publicKey.keyID = keyID
        let ring = JWSKeyRing(keys: [publicKey], allowed: .session, maximumLength: 8192, type: "JWT")
        verifying = ring
        let payload = try Array(access.utf8).withUnsafeBufferPointer { try ring.verify($0) }
        guard let claims = JSONValue.parseObject(payload) else {
            throw BenchmarkFailure(description: "the login's token has no claims")
        }
        self.claims = claims
    }

    /// `count` tokens of as many sessions; bound to the key of `thumbprint` when given.
    func make(count: Int, boundTo thumbprint: String? = nil) throws -> [String] {
        try (0..<count).map { _ in
            var claims = self.claims
            claims["sid"] = .string("ses_" + Self.random())
            claims["jti"] = .string(Self.random())
            if let thumbprint { claims["cnf"] = .object(["jkt": .string(thumbprint)]) }
            return try JWSSigner.sign(claims: claims, with: key, keyID: keyID, type: "JWT")
        }
    }

    /// Whether `token` verifies with the signing key: the signature check a token never seen before costs mend-server,
    /// alone (its claims are read after it).
    func verifies(_ token: String) -> Bool {
        (try? Array(token.utf8).withUnsafeBufferPointer { try verifying.verify($0) }) != nil
    }

    private static func random() -> String {
        Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
    }
}
