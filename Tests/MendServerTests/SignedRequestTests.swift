import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
@_spi(MendFuzzing) import MendSignedRequest
import MendTesting
import Testing

@testable import MendServer

/// signed_request verification, without I/O: tampering, algorithm, expiry.
@Suite struct SignedRequestTests {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func payload(
        algorithm: String = "HMAC-SHA256", issuedAt: Int = 1_800_000_000 - 60,
        userID: JSONValue = .string("100000000000001"),
        expires: Int? = nil
    ) -> JSONValue {
        var members: [String: JSONValue] = [
            "algorithm": .string(algorithm), "issued_at": .int(issuedAt), "user_id": userID,
        ]
        if let expires { members["expires"] = .int(expires) }
        return .object(members)
    }

    func verify(
        _ signed: String, maxAge: Duration = .seconds(3600)
    ) -> Result<SignedRequest.Payload, SignedRequest.Rejection> {
        SignedRequest.verify(signed, secret: Self.secret, now: Self.now, maximumAge: maxAge)
    }

    @Test func acceptsAValidRequest() throws {
        let signed = SignedRequest.make(payload: Self.payload(), secret: Self.secret)
        let payload = try verify(signed).get()
        #expect(payload.userID == "100000000000001")
        #expect(payload.issuedAt == 1_800_000_000 - 60)
    }

    @Test func acceptsANumericUserID() throws {
        let signed = SignedRequest.make(payload: Self.payload(userID: .int(42)), secret: Self.secret)
        #expect(try verify(signed).get().userID == "42")
    }

    @Test func refusesAnotherSecret() {
        let signed = SignedRequest.make(payload: Self.payload(), secret: "another secret of the same size!")
        #expect(verify(signed) == .failure(.badSignature))
    }

    @Test func refusesATamperedPayload() {
        let signed = SignedRequest.make(payload: Self.payload(), secret: Self.secret)
        let signature = signed.split(separator: ".")[0]
        let forged = Base64URL.encode(Data(Self.payload(userID: .string("100000000000002")).jsonText().utf8))
        #expect(verify("\(signature).\(forged)") == .failure(.badSignature))
    }

    @Test func refusesATamperedSignature() {
        let signed = SignedRequest.make(payload: Self.payload(), secret: Self.secret)
        var bytes = Array(Base64URL.decode(signed.split(separator: ".")[0])!)
        bytes[0] ^= 0x01
        let tampered = Base64URL.encode(Data(bytes)) + "." + signed.split(separator: ".")[1]
        #expect(verify(tampered) == .failure(.badSignature))
    }

    @Test(arguments: ["none", "HMAC-SHA1", "RS256", ""])
    func refusesOtherAlgorithms(_ algorithm: String) {
        let signed = SignedRequest.make(payload: Self.payload(algorithm: algorithm), secret: Self.secret)
        #expect(verify(signed) == .failure(.unsupportedAlgorithm(algorithm)))
    }

    @Test func refusesAnExpiredRequest() {
        let old = SignedRequest.make(payload: Self.payload(issuedAt: 1_800_000_000 - 3601), secret: Self.secret)
        #expect(verify(old) == .failure(.expired))
        let pastExpiry = SignedRequest.make(
            payload: Self.payload(expires: 1_800_000_000 - 1), secret: Self.secret)
        #expect(verify(pastExpiry) == .failure(.expired))
    }

    @Test func refusesARequestFromTheFuture() {
        let future = SignedRequest.make(payload: Self.payload(issuedAt: 1_800_000_000 + 120), secret: Self.secret)
        #expect(verify(future) == .failure(.issuedInFuture))
    }

    @Test(arguments: ["", "abc", "abc.", ".abc", "a.b.c", "!!!.???", "YWJj.bm90IGpzb24"])
    func refusesMalformedInput(_ text: String) {
        #expect(verify(text) == .failure(.malformed))
    }

    @Test func refusesAMissingUser() {
        let signed = SignedRequest.make(payload: Self.payload(userID: .null), secret: Self.secret)
        #expect(verify(signed) == .failure(.missingUser))
    }

    /// A `signed_request` over `payload`, exactly these bytes, signed with the app secret.
    static func signed(rawPayload payload: String) -> String {
        let encoded = Base64URL.encode(Data(payload.utf8))
        let signature = HMAC<SHA256>.authenticationCode(
            for: Data(encoded.utf8), using: SymmetricKey(data: Data(Self.secret.utf8)))
        return Base64URL.encode(Data(signature)) + "." + encoded
    }

    @Test("A payload naming a member twice is refused, though signed: one signed text, one reading")
    func refusesDuplicateMembers() {
        let shadowed = #"{"algorithm":"HMAC-SHA256","issued_at":1799999940,"user_id":"1","user_id":"2"}"#
        #expect(verify(Self.signed(rawPayload: shadowed)) == .failure(.malformed))
        let algorithmTwice = #"{"algorithm":"none","algorithm":"HMAC-SHA256","issued_at":1799999940,"user_id":"1"}"#
        #expect(verify(Self.signed(rawPayload: algorithmTwice)) == .failure(.malformed))
    }

    @Test("Base64url with padding, or a second spelling of the same bytes, is refused")
    func refusesSecondSpellings() throws {
        let signed = SignedRequest.make(payload: Self.payload(), secret: Self.secret)
        let parts = signed.split(separator: ".").map(String.init)
        // 32 bytes of HMAC: 43 characters, the last carrying two bits that must be zero.
        #expect(verify(parts[0] + "=." + parts[1]) == .failure(.malformed))
        let last = try #require(parts[0].last)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let index = try #require(alphabet.firstIndex(of: last))
        let sameBytes = String(parts[0].dropLast()) + String(alphabet[index | 1])
        #expect(verify(sameBytes + "." + parts[1]) == .failure(.malformed))
    }
}
