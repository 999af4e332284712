import Crypto
import Foundation
import MendCore
@_spi(MendFuzzing) import MendSignedRequest

/// `SignedRequest.verify` (the provider's deauthorize and data-deletion callbacks), twice per input: on the input as
/// the `signed_request` received, and on the input as a payload the harness signs with the app secret (so that the
/// checks after the signature are reached with any payload).
///
/// Invariants: a correctly signed payload is never refused for its signature; an accepted payload names a user and
/// was issued within the maximum age (and not beyond the clock skew in the future); `make` then `verify` gives the
/// same payload back.
enum SignedRequestHarness {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let maximumAge = Duration.seconds(3600)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        check(SignedRequest.verify(bytes.text, secret: secret, now: fuzzNow, maximumAge: maximumAge), signed: false)
        let encoded = base64URL(Data(bytes))
        let signature = HMAC<SHA256>.authenticationCode(
            for: Data(encoded.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        let signed = base64URL(Data(signature)) + "." + encoded
        check(SignedRequest.verify(signed, secret: secret, now: fuzzNow, maximumAge: maximumAge), signed: true)
    }

    static func check(_ result: Result<SignedRequest.Payload, SignedRequest.Rejection>, signed: Bool) {
        trace("signed-request (\(signed ? "signed by the harness" : "as received")): \(result)")
        switch result {
        case .failure(let rejection):
            if signed { invariant(rejection != .badSignature, "a correctly signed payload was refused") }
            _ = rejection.description
        case .success(let payload):
            let now = Int64(fuzzNow.timeIntervalSince1970)
            invariant(!payload.userID.isEmpty, "an empty user id")
            invariant(payload.issuedAt <= now + SignedRequest.clockSkew, "issued in the future")
            invariant(payload.issuedAt >= now - 3600, "older than the maximum age")
            let again = SignedRequest.verify(
                SignedRequest.make(payload: payload.json, secret: secret), secret: secret, now: fuzzNow,
                maximumAge: maximumAge)
            invariant(again == .success(payload), "make then verify gave \(again) for \(payload)")
        }
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
