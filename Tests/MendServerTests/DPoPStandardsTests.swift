import Crypto
import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import MendHandMadeTokens
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// DPoP proofs built by hand (swift-crypto, raw JSON text) for a bound session at mend-server, each breaking one rule
/// of RFC 7515 that a proof's JWS must keep.
@Suite("DPoP proofs at mend-server keep the letter of RFC 7515")
struct DPoPStandardsTests {
    /// A proof of `GET /v1/me` for `access`, with the header's members after `typ`, `alg` and `jwk` given as text.
    private static func proof(
        _ client: ProvingClient, access: String, extraHeader: String = "", padded: Bool = false
    ) throws -> String {
        let key = try P256.Signing.PrivateKey(rawRepresentation: client.key.material)
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(HandMadeJWS.jwk(of: key.publicKey))\#(extraHeader)}"#
        let ath = Base64URL.encode(Array(SHA256.hash(data: Data(access.utf8))))
        let claims =
            #"{"jti":"\#(UUID().uuidString)","htm":"GET","htu":"\#(client.publicURL.absoluteString)/v1/me","iat":\#(Int(Date().timeIntervalSince1970)),"ath":"\#(ath)"}"#
        return try HandMadeJWS.es256(header: header, claims: claims, key: key) + (padded ? "==" : "")
    }

    @Test("A proof built by hand is accepted; with crit, or with = padding, it is refused")
    func criticalAndPadding() async throws {
        try await TestStack.run { stack in
            let client = try ProvingClient(stack.server.baseURL)
            let session = try await client.login(stack.emulator)
            let access = try #require(session["access_token"]?.stringValue)
            _ = try await client.get("/v1/me", token: access, proof: try Self.proof(client, access: access))
            for (what, proof) in [
                ("crit", try Self.proof(client, access: access, extraHeader: #","crit":["urn:x"],"urn:x":1"#)),
                ("padding", try Self.proof(client, access: access, padded: true)),
            ] {
                let error = await stack.client.failure { try await client.get("/v1/me", token: access, proof: proof) }
                #expect(error?.isDPoPRefusal() == true, "\(what): \(String(describing: error))")
            }
        }
    }
}
