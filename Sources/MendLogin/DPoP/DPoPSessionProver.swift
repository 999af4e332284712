package import Foundation
package import MendCore
package import MendHTTP
import MendJOSE

/// The prover of a DPoP-bound session (MendHTTP's `DPoPProver`): the session's key signs each request's proof.
package struct DPoPSessionProver: DPoPProver {
    let signer: any JWSSigningBackend
    /// The public key's JWK members, read once: every proof's header carries them.
    let jwk: [String: JSONValue]

    /// The prover of `key`; `session/19` (``MendError/Code/Session/proofKeyUnavailable``) when this device cannot
    /// use it — a new login, never a crash.
    package init(key: DPoPKey) throws(MendError) {
        do {
            signer = try DPoPKeyring.signer(for: key)
            jwk = JWK.requiredMembers(of: signer.publicKey)
        } catch let unavailable as DPoPKeyUnavailable {
            throw MendError.login(.Session.proofKeyUnavailable, unavailable.description + " Log in again.")
        } catch {
            throw MendError.login(
                .Session.proofKeyUnavailable,
                "The session's DPoP key cannot be used (\(type(of: error))). Log in again.")
        }
    }

    package func proof(
        method: String, url: URL, accessToken: String?, nonce: String?, issuedAt: Date
    ) async throws -> String {
        try DPoPProof(
            signer: signer, method: method, url: url, accessToken: accessToken, nonce: nonce, issuedAt: issuedAt,
            jwk: jwk
        ).jwt
    }
}
