import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin

/// `IDTokenValidator.validate`, through its public API, with the provider's key set served by an in-memory transport.
///
/// Two input shapes:
/// - `<compact token>\n<JWKS JSON>`: the token as received and the key set the provider serves (the harness's own
///   key set when empty);
/// - `<header JSON>\n<payload JSON>` (starting with `{`): the harness signs them with its ES256 key (`kid`
///   `fuzz-es256`, in its key set), so that the claim checks are reached with any header and payload.
///
/// Invariants: every failure is a `MendError` (an id_token refusal is `login/309`); an accepted token names the
/// provider, is for this app, has not expired, was issued within the maximum age, and carries the nonce sent.
enum IDTokenHarness {
    static let issuer = "https://www.facebook.com"
    static let clientID = "1234567890"
    static let nonce = "fuzz-nonce-0123456789"
    static let jwksURI = URL(string: "https://www.facebook.com/.well-known/oauth/openid/jwks/")!
    static let leeway: TimeInterval = 60
    static let maximumAge: TimeInterval = 600
    static let key = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x2A, count: 32))

    static var ownKeySet: Data {
        let point = key.publicKey.rawRepresentation
        return Data(
            """
            {"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-es256","use":"sig","alg":"ES256",\
            "x":"\(SignedRequestHarness.base64URL(Data(point.prefix(32))))","y":"\(SignedRequestHarness.base64URL(Data(point.suffix(32))))"}]}
            """.utf8)
    }

    /// Serves one body for every request: 200 when it is structurally JSON, else 404 (a 200 with a broken body is
    /// retried after a random backoff, which would only slow the fuzzer down).
    struct KeySetTransport: HTTPTransport {
        let keySet: KeySet

        func send(
            _ request: HTTPRequest, body _: HTTPBody?, timeout _: Duration?
        ) async throws -> (HTTPResponse, HTTPBody) {
            let isJSON = if case .success = JSONValue.parse(keySet.body) { true } else { false }
            let status: HTTPResponse.Status = isJSON ? .ok : .notFound
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            return (HTTPResponse(status: status, headerFields: fields), HTTPBody(keySet.body))
        }
    }

    /// The key set's bytes; its deinit tells that the validator, its client and its transport were all released.
    final class KeySet: Sendable {
        let body: Data
        let released: DispatchSemaphore

        init(body: Data, released: DispatchSemaphore) {
            self.body = body
            self.released = released
        }

        deinit { released.signal() }
    }

    /// Validates `token` with a validator of its own, which is released on return.
    static func validate(_ token: String, keySet: KeySet) -> Result<IDTokenValidator.Claims, any Error> {
        let validator = IDTokenValidator(
            issuer: issuer, clientID: clientID, jwksURI: jwksURI, transport: KeySetTransport(keySet: keySet),
            leeway: leeway, maximumAge: maximumAge, clock: PipelineClock(now: { fuzzNow }))
        return runBlocking {
            do {
                return .success(try await validator.validate(token, nonce: nonce))
            } catch {
                return .failure(error)
            }
        }
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let all = Array(bytes)
        let newline = all.firstIndex(of: UInt8(ascii: "\n")) ?? all.count
        let first = all[..<newline]
        let rest = newline < all.count ? Data(all[(newline + 1)...]) : Data()
        let token: String
        let keySet: Data
        if first.first == UInt8(ascii: "{") {
            let signingInput =
                SignedRequestHarness.base64URL(Data(first)) + "." + SignedRequestHarness.base64URL(Data(rest))
            guard let signature = try? key.signature(for: Data(signingInput.utf8)) else { return }
            token = signingInput + "." + SignedRequestHarness.base64URL(Data(signature.rawRepresentation))
            keySet = ownKeySet
        } else {
            token = String(decoding: first, as: UTF8.self)
            keySet = rest.isEmpty ? ownKeySet : rest
        }
        let released = DispatchSemaphore(value: 0)
        let result = validate(token, keySet: KeySet(body: keySet, released: released))
        // The validator, its client and its transport are gone once validated (no retain cycle; nothing left running).
        invariant(released.wait(timeout: .now() + 10) == .success, "the validator was not released after 10 s")
        trace("id-token: \(result)")
        switch result {
        case .failure(let error):
            guard let error = error as? MendError else {
                invariant(false, "validate threw a \(type(of: error)), not a MendError: \(error)")
                return
            }
            if error.domain == .login {
                invariant(error.code == .Login.invalidIDToken, "a login error other than 309: \(error)")
            }
        case .success(let claims):
            let now = fuzzNow.timeIntervalSince1970
            invariant(claims.issuer == issuer, "accepted the issuer \(claims.issuer)")
            invariant(claims.audience.contains(clientID), "accepted the audience \(claims.audience)")
            invariant(claims.expiresAt.timeIntervalSince1970 + leeway > now, "accepted an expired token")
            let issued = claims.issuedAt.timeIntervalSince1970
            invariant(issued - leeway <= now && now - issued <= maximumAge + leeway, "accepted an implausible iat")
            invariant(claims.nonce == nonce, "accepted the nonce \(String(describing: claims.nonce))")
            invariant(!token.hasPrefix("eyJhbGciOiJub25lIi"), "accepted alg none")
        }
    }
}
