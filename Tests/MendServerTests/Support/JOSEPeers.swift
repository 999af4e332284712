import Crypto
import Foundation
import JWTKit
import MendClientTesting
import MendCore
import Testing

/// joserfc (Python, through `MEND_TEST_PYTHON`) as an outside oracle: `Tests/PythonClients/jose_oracle.py`, one
/// process per call with the whole batch on stdin.
enum Joserfc {
    /// The Python with joserfc that scripts/test installs, if any.
    static var python: String? { ProcessInfo.processInfo.environment["MEND_TEST_PYTHON"] }

    /// Whether the tests that ask joserfc run.
    static var isAvailable: Bool { python != nil }

    static let skipReason: Comment = "MEND_TEST_PYTHON names no Python with joserfc (scripts/test sets it)"

    /// The oracle script, beside this file's test target.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("PythonClients/jose_oracle.py").path
    }

    /// A `verify` item: `token` against `keys` (a JWK Set), `algorithms` allowed, `claims` required (`true`: present).
    static func verify(
        _ token: String, keys: JSONValue, algorithms: [String], claims: [String: JSONValue] = [:]
    ) -> JSONValue {
        .object([
            "op": .string("verify"), "token": .string(token), "keys": keys,
            "algorithms": .array(algorithms.map(JSONValue.string)), "claims": .object(claims),
        ])
    }

    /// A `sign` item: a new `alg` key with `kid` signs `claims` — or `privateJWK`, a key of Mend's, when given.
    static func sign(
        _ alg: String, kid: String, claims: [String: JSONValue], privateJWK: JSONValue? = nil
    ) -> JSONValue {
        var item: [String: JSONValue] = [
            "op": .string("sign"), "alg": .string(alg), "kid": .string(kid), "claims": .object(claims),
        ]
        if let privateJWK { item["private_jwk"] = privateJWK }
        return .object(item)
    }

    /// The private JWK of a P-256 key (RFC 7518 §6.2.2).
    static func privateJWK(_ key: P256.Signing.PrivateKey) -> JSONValue {
        let point = key.publicKey.rawRepresentation
        return .object([
            "kty": .string("EC"), "crv": .string("P-256"), "x": .string(Base64URL.encode(point.prefix(32))),
            "y": .string(Base64URL.encode(point.suffix(32))), "d": .string(Base64URL.encode(key.rawRepresentation)),
        ])
    }

    /// The private JWK of an Ed25519 key (RFC 8037 §2).
    static func privateJWK(_ key: Curve25519.Signing.PrivateKey) -> JSONValue {
        .object([
            "kty": .string("OKP"), "crv": .string("Ed25519"),
            "x": .string(Base64URL.encode(key.publicKey.rawRepresentation)),
            "d": .string(Base64URL.encode(key.rawRepresentation)),
        ])
    }

    /// joserfc's answers to `items`, in order, at `now` (seconds since 1970).
    static func run(_ items: [JSONValue], now: Int) async throws -> [JSONValue] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(python))
        process.arguments = ["-W", "ignore", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let batch = JSONValue.object(["now": .int(now), "items": .array(items)]).jsonText()
        let writer = input.fileHandleForWriting
        await BlockingWork.run {
            writer.write(Data(batch.utf8))
            try? writer.close()
        }
        let data = await BlockingWork.run { output.fileHandleForReading.readDataToEndOfFile() }
        await process.exited()
        #expect(process.terminationStatus == 0, "jose_oracle.py failed")
        let answers = try #require(try JSONValue.parse(data).get().arrayValue)
        #expect(answers.count == items.count)
        return answers
    }
}

/// jwt-kit as an outside oracle: the verification a careful jwt-kit user writes — the key collection from the
/// issuer's JWK Set, `exp` and `nbf` checked by the payload, then `iss` and `aud` compared.
enum JWTKitPeer {
    /// An id_token's or an access token's registered claims, as jwt-kit reads them.
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim?
        var nbf: NotBeforeClaim?

        func verify(using algorithm: some JWTAlgorithm) throws {
            try exp.verifyNotExpired()
            try nbf?.verifyNotBefore()
        }
    }

    /// Whether jwt-kit accepts `token` from `issuer` for `audience`, with the keys of `jwks`.
    static func accepts(_ token: String, jwks: JSONValue, issuer: String, audience: String) async -> Bool {
        do {
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.jsonText())
            let claims = try await keys.verify(token, as: Claims.self)
            guard claims.iss.value == issuer else { return false }
            try claims.aud.verifyIntendedAudience(includes: audience)
            return true
        } catch {
            return false
        }
    }
}
