import Foundation
import MendCore
@_spi(MendFuzzing) import MendSignedRequest
import Testing

/// Inputs the fuzzers (`Fuzz/`, `scripts/fuzz`) found, each pinned by the fix it led to.
@Suite("Fuzz regressions: signed_request")
struct FuzzRegressionTests {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// signed-request: `issued_at` at Int64.min (as a number or as text) made the age computation overflow — a trap
    /// that took the server down. Reaching it takes a valid signature, so only the secret's holder could, but a
    /// callback must refuse, not crash. (A time as text is refused as malformed since: times are JSON integers.)
    @Test(
        "An issued_at far in the past is expired, not an overflow",
        arguments: [
            JSONValue.int(Int.min), .int(Int.min + 1), .string("-9223372036854775808"),
            .int(-9_000_000_000_000_000_000),
        ])
    func issuedAtNearInt64Minimum(issuedAt: JSONValue) {
        let payload = JSONValue.object([
            "algorithm": .string("HMAC-SHA256"), "issued_at": issuedAt, "user_id": .string("100000000000001"),
        ])
        let signed = SignedRequest.make(payload: payload, secret: Self.secret)
        #expect(
            SignedRequest.verify(signed, secret: Self.secret, now: Self.now, maximumAge: .seconds(3600))
                == .failure(issuedAt.stringValue == nil ? .expired : .malformed))
    }
}
