import Crypto
import Foundation
import MendCore
import MendHTTP
import MendHandMadeTokens
@_spi(MendFuzzing) import MendSignedRequest
import MendTesting
import Testing

@testable import MendServer

/// The same corpus where it applies to Facebook's `signed_request` (HMAC-SHA256 over base64url JSON, MendSignedRequest):
/// its own shape, so each attack is written for it; through `SignedRequest.verify` and through mend-server's
/// deauthorize callback.
@Suite("Attack corpus: signed_request")
struct SignedRequestAttackTests {
    /// The app secret of the emulator's default app, which the test stack's server holds (as CallbackTests).
    static let secret = CallbackTests.secret

    /// A signed_request of raw payload text, its HMAC over the payload part as sent.
    static func signed(_ payload: String, secret: String = secret, payloadPart: String? = nil) -> String {
        let part = payloadPart ?? Base64URL.encode(Array(payload.utf8))
        let code = HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Base64URL.encode(Array(code)) + "." + part
    }

    /// The attacks at `now` (seconds since 1970): what each is, its text, and the rejection it must meet. The first
    /// is the genuine request.
    static func cases(now: Int) throws -> [(what: String, text: String, rejection: SignedRequest.Rejection?)] {
        let issued = String(now - 10)
        func payload(_ tail: String = "", issuedAt: String = issued, user: String = #""100000000000001""#) -> String {
            #"{"algorithm":"HMAC-SHA256","issued_at":\#(issuedAt),"user_id":\#(user)\#(tail)}"#
        }
        let good = signed(payload())
        let jwt = try HandMadeJWS.es256(header: #"{"alg":"ES256"}"#, claims: payload(), key: P256.Signing.PrivateKey())
        return [
            ("genuine", good, nil),
            ("a member twice (user_id)", signed(payload(#","user_id":"100000000000002""#)), .malformed),
            (
                "a member twice (algorithm)",
                signed(#"{"algorithm":"none","algorithm":"HMAC-SHA256","issued_at":\#(issued),"user_id":"1"}"#),
                .malformed
            ),
            (
                "a member twice (algorithm, the other order)",
                signed(#"{"algorithm":"HMAC-SHA256","algorithm":"none","issued_at":\#(issued),"user_id":"1"}"#),
                .malformed
            ),
            ("= padding on the signature", good.replacingOccurrences(of: ".", with: "=."), .malformed),
            ("= padding on the payload", signed("", payloadPart: AttackCorpus.paddedPart(payload())), .malformed),
            ("issued_at a day ahead", signed(payload(issuedAt: String(now + 86_400))), .issuedInFuture),
            ("issued_at as a string", signed(payload(issuedAt: #""\#(issued)""#)), .malformed),
            ("expires as a string, past", signed(payload(#","expires":"\#(now - 1000)""#)), .malformed),
            ("expires as a string, ahead", signed(payload(#","expires":"\#(now + 3600)""#)), .malformed),
            ("an empty user_id", signed(payload(user: #""""#)), .missingUser),
            (
                "algorithm none, no signature",
                "." + Base64URL.encode(Array(#"{"algorithm":"none","issued_at":\#(issued),"user_id":"1"}"#.utf8)),
                .malformed
            ),
            (
                "algorithm none, signed",
                signed(#"{"algorithm":"none","issued_at":\#(issued),"user_id":"1"}"#), .unsupportedAlgorithm("none")
            ),
            (
                "a zero signature",
                Base64URL.encode([UInt8](repeating: 0, count: 32)) + "." + String(good.split(separator: ".")[1]),
                .badSignature
            ),
            ("a JWT", jwt, .malformed),
            ("a JWE (five parts)", "a.b.c.d.e", .malformed),
            (
                "valid for another app (its secret)", signed(payload(), secret: "another app's secret, 32 bytes!"),
                .badSignature
            ),
        ]
    }

    @Test("Every attack that applies to a signed_request is refused by SignedRequest.verify, with its rejection")
    func verify() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for (what, text, rejection) in try Self.cases(now: 1_800_000_000) {
            let result = SignedRequest.verify(text, secret: Self.secret, now: now, maximumAge: .seconds(3600))
            if let rejection {
                #expect(result == .failure(rejection), "\(what)")
            } else {
                #expect(try result.get().userID == "100000000000001", "\(what)")
            }
        }
    }

    @Test("Every attack is refused at mend-server's deauthorize callback: 401 rest/403, 400 without a user or a shape")
    func deauthorizeCallback() async throws {
        try await TestStack.run { stack in
            _ = try await stack.login()
            for (what, text, rejection) in try Self.cases(now: Int(stack.clock.now.timeIntervalSince1970)) {
                guard let rejection else {
                    let answer = try await stack.client.postForm(
                        "/v1/provider/deauthorize", form: CallbackTests.form(text)
                    ).json()
                    #expect(answer["sessions_ended"]?.intValue == 1, "\(what)")
                    continue
                }
                let error = await stack.client.failure {
                    try await stack.client.postForm("/v1/provider/deauthorize", form: CallbackTests.form(text))
                }
                // The request schema refuses what is not two base64url parts; a verified request without a user is a
                // 400; every other refusal is not authentic (401).
                let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
                let parts = text.split(separator: ".", omittingEmptySubsequences: false)
                let shaped = parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(alphabet.contains) }
                if !shaped || rejection == .missingUser {
                    #expect(
                        error?.code == .REST.badRequest && error?.httpStatus == 400,
                        "\(what): \(String(describing: error?.code))")
                } else {
                    #expect(
                        error?.code == .REST.accessDenied && error?.httpStatus == 401,
                        "\(what): \(String(describing: error?.code))")
                }
            }
        }
    }
}
