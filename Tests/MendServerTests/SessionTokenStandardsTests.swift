import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendHandMadeTokens
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// Session tokens built by hand with the server's own signing key, each breaking one rule of RFC 7515 or RFC 7519,
/// presented where a client presents them (`GET /v1/session`): each is session/2, as a forged token is.
@Suite("Session tokens keep the letter of RFC 7515 and RFC 7519")
struct SessionTokenStandardsTests {
    /// Signs raw header and claims text with the server's signing key.
    private static func signed(_ stack: TestStack, header: String? = nil, claims: String) throws -> String {
        let key = stack.server.backend.configuration.sessions.signingKeys[0]
        let raw = try #require(Base64URL.decode(key.privateKey.value))
        let header = header ?? #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.keyID)","typ":"JWT"}"#
        return switch key.algorithm {
        case .eddsa:
            try HandMadeJWS.edDSA(
                header: header, claims: claims, key: try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
        case .es256:
            try HandMadeJWS.es256(
                header: header, claims: claims, key: try P256.Signing.PrivateKey(rawRepresentation: raw))
        }
    }

    /// The claims of a token for `session`'s user and session at the stack's time, `sub` and the times as given.
    private static func claims(
        _ stack: TestStack, _ session: JSONValue, sub: String? = nil, issuedAhead: Int = 0, extra: String = ""
    ) throws -> String {
        let now = Int(stack.clock.now.timeIntervalSince1970)
        let backend = stack.server.backend
        let user = try #require(session["user"]?["id"]?.stringValue)
        let sid = try #require(session["session_id"]?.stringValue)
        return
            #"{"iss":"\#(backend.configuration.sessions.issuer)","aud":"\#(backend.configuration.accessTokenAudience)","sub":"\#(sub ?? user)","sid":"\#(sid)","scope":"public_profile","iat":\#(now + issuedAhead),"exp":\#(now + 600),"jti":"j1"\#(extra)}"#
    }

    private static func expectRefused(
        _ stack: TestStack, _ token: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await stack.client.failure(
            { try await stack.client.get("/v1/session", bearer: token) }, sourceLocation: sourceLocation)
        #expect(
            error?.isSession(.Session.accessTokenInvalid) == true, "\(String(describing: error))",
            sourceLocation: sourceLocation)
    }

    @Test("A token built by hand with the server's key is accepted: the refusals below are each rule alone")
    func baseline() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            _ = try await stack.client.get(
                "/v1/session", bearer: try Self.signed(stack, claims: Self.claims(stack, session)))
        }
    }

    @Test("A signature with = padding is a second spelling of the token, refused (RFC 7515 §2)")
    func paddedSignature() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            await Self.expectRefused(stack, try Self.signed(stack, claims: Self.claims(stack, session)) + "==")
        }
    }

    @Test("nbf ten minutes ahead is refused (RFC 7519 §4.1.5); iat a day ahead is refused")
    func aheadOfTime() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let now = Int(stack.clock.now.timeIntervalSince1970)
            await Self.expectRefused(
                stack, try Self.signed(stack, claims: Self.claims(stack, session, extra: #","nbf":\#(now + 600)"#)))
            await Self.expectRefused(
                stack, try Self.signed(stack, claims: Self.claims(stack, session, issuedAhead: 86_400)))
            // Within a minute of skew, another instance's clock: accepted.
            _ = try await stack.client.get(
                "/v1/session",
                bearer: try Self.signed(
                    stack, claims: Self.claims(stack, session, issuedAhead: 30, extra: #","nbf":\#(now + 30)"#)))
        }
    }

    @Test("An empty sub names nobody, refused")
    func emptySubject() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            await Self.expectRefused(stack, try Self.signed(stack, claims: Self.claims(stack, session, sub: "")))
        }
    }

    @Test("crit, a member twice and an unknown algorithm in the header are refused")
    func header() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let key = stack.server.backend.configuration.sessions.signingKeys[0]
            let claims = try Self.claims(stack, session)
            for header in [
                #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.keyID)","crit":["exp"]}"#,
                #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.keyID)","kid":"\#(key.keyID)"}"#,
                #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.keyID)","b64":false,"crit":["b64"]}"#,
            ] {
                await Self.expectRefused(stack, try Self.signed(stack, header: header, claims: claims))
            }
        }
    }
}
