/// Why a WebAuthn ceremony's response was refused. The ``reason`` names the rule that failed, never a credential, a
/// challenge or a signature, so that it can go into an error message or a log as it is.
public struct WebAuthnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed: each kind is one catalog code of the passkey error space.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The response is not what the spec's JSON serialization, CBOR, authenticator data or client data allow.
        case malformed
        /// The client data's `type` is not the ceremony's (`webauthn.create`, `webauthn.get`).
        case wrongCeremony
        /// The client data's challenge is not the one issued for this ceremony.
        case challengeMismatch
        /// The client data's origin is not on the relying party's allow-list, or the ceremony ran in a cross-origin
        /// frame that is not allowed.
        case originNotAllowed
        /// The authenticator data is for another RP ID (its `rpIdHash`).
        case rpIDMismatch
        /// The authenticator did not test that a person was present (the UP flag).
        case userPresenceMissing
        /// The authenticator did not verify the user (the UV flag) and the policy requires it.
        case userVerificationMissing
        /// The credential's key type or algorithm is not one the options offered (ES256, EdDSA, RS256).
        case algorithmNotAllowed
        /// The attestation statement's format is not one Mend verifies (`none`, `packed` self-attestation).
        case unsupportedAttestationFormat
        /// The attestation statement does not verify.
        case attestationInvalid
        /// The assertion's signature does not verify with the credential's key.
        case signatureInvalid
        /// The credential is not one the ceremony allows: not in `allowCredentials`, or another user's.
        case credentialNotAllowed
        /// The backup flags are inconsistent (BS without BE) or BE changed since registration.
        case backupStateInvalid
        /// The signature counter did not increase and the policy refuses that for this credential.
        case counterRegression
    }

    /// What failed.
    public var kind: Kind
    /// The rule that failed, in words, without any of the input.
    public var reason: String

    /// A refusal of `kind` for `reason`.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The kind and the reason, for logs and developers.
    /// The kind and the reason, for logs and developers.
    public var description: String { "WebAuthn \(kind.rawValue): \(reason)" }
}
