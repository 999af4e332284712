import Foundation
import MendJOSE
import Testing

@testable import MendWebAuthn

/// The WebAuthn Level 3 test vectors (§16, "Test Vectors"), extracted from the specification's source
/// (w3c/webauthn `index.bs` at 146d0db0) into `Vectors/w3c-webauthn-test-vectors.json`: registrations with their
/// challenge, client data and attestation object, and authentications by the same credentials. RP ID `example.org`,
/// origin `https://example.org`, top origin `https://example.com`.
///
/// The formats Mend verifies (`none`, `packed` self-attestation) verify; the others (packed with a certificate chain,
/// TPM, Android key, Apple, FIDO U2F) are refused as an unsupported attestation format. Every authentication whose
/// credential key is one Mend verifies (ES256, EdDSA, RS256) verifies with the key its registration attested.
@Suite("WebAuthn: the W3C's Level 3 test vectors")
struct W3CVectorTests {
    struct Ceremony: Decodable, Sendable {
        var challenge: String
        var clientDataJSON: String
        var attestationObject: String?
        var credential_id: String?
        var authenticatorData: String?
        var signature: String?
    }

    struct Vector: Decodable, Sendable {
        var title: String
        var registration: Ceremony
        var authentication: Ceremony?
    }

    static let all: [String: Vector] =
        (try? JSONDecoder().decode([String: Vector].self, from: vectors("w3c-webauthn-test-vectors"))) ?? [:]

    static let verified = [
        "none-es256", "packed-self-es256", "none-es256-crossOrigin", "none-es256-topOrigin",
        "none-es256-long-credential-id",
    ]
    static let unsupportedFormat = [
        "packed-es256", "packed-es384", "packed-es512", "packed-rs256", "packed-eddsa", "packed-ed448", "tpm-es256",
        "android-key-es256", "apple-es256", "fido-u2f-es256",
    ]

    /// The vectors' relying party: user verification and BE follow each vector's random flags, so it asks for UV
    /// only as preferred; cross-origin frames are allowed with the vectors' top origin.
    static let party = RelyingParty(
        id: "example.org", origins: ["https://example.org", "https://example.com"], userVerification: .preferred,
        allowsCrossOrigin: true)

    static func registration(_ vector: Vector) -> RegistrationResponse {
        let attestation = bytes(hex: vector.registration.attestationObject!)
        let credentialID =
            (try? AttestationObject(attestation))?.authenticatorData.attestedCredential?.credentialID
            ?? bytes(hex: vector.registration.credential_id ?? "")
        return RegistrationResponse(
            credentialID: credentialID, clientDataJSON: bytes(hex: vector.registration.clientDataJSON),
            attestationObject: attestation)
    }

    @Test("Every vector of the specification is here")
    func complete() {
        #expect(Set(Self.all.keys) == Set(Self.verified + Self.unsupportedFormat))
    }

    @Test("Registrations of the formats Mend verifies verify", arguments: verified)
    func registrationVerifies(_ name: String) throws {
        let vector = try #require(Self.all[name])
        let credential = try Self.party.verifyRegistration(
            Self.registration(vector), challenge: bytes(hex: vector.registration.challenge))
        #expect(credential.algorithm == .es256)
        if let id = vector.registration.credential_id { #expect(credential.id == bytes(hex: id)) }
    }

    @Test("A cross-origin ceremony is refused unless the relying party allows it")
    func crossOriginRefusedByDefault() throws {
        let vector = try #require(Self.all["none-es256-crossOrigin"])
        var party = Self.party
        party.allowsCrossOrigin = false
        let error = #expect(throws: WebAuthnError.self) {
            try party.verifyRegistration(
                Self.registration(vector), challenge: bytes(hex: vector.registration.challenge))
        }
        #expect(error?.kind == .originNotAllowed)

        // A top origin that is not on the allow-list is refused even where cross-origin frames are allowed.
        let framed = try #require(Self.all["none-es256-topOrigin"])
        party = RelyingParty(
            id: "example.org", origins: ["https://example.org"], userVerification: .preferred,
            allowsCrossOrigin: true)
        let topError = #expect(throws: WebAuthnError.self) {
            try party.verifyRegistration(
                Self.registration(framed), challenge: bytes(hex: framed.registration.challenge))
        }
        #expect(topError?.kind == .originNotAllowed)
    }

    @Test("Other attestation formats are refused as unsupported, not as invalid", arguments: unsupportedFormat)
    func registrationUnsupported(_ name: String) throws {
        let vector = try #require(Self.all[name])
        let error = #expect(throws: WebAuthnError.self) {
            try Self.party.verifyRegistration(
                Self.registration(vector), challenge: bytes(hex: vector.registration.challenge))
        }
        // ES384, ES512 and Ed448 credential keys are refused first, as keys Mend does not verify.
        let expected: WebAuthnError.Kind =
            ["packed-es384", "packed-es512", "packed-ed448"].contains(name)
            ? .algorithmNotAllowed : .unsupportedAttestationFormat
        #expect(error?.kind == expected)
    }

    @Test(
        "Authentications verify with the key their registration attested (ES256, RS256, EdDSA)",
        arguments: verified + [
            "packed-es256", "packed-rs256", "packed-eddsa", "tpm-es256", "android-key-es256",
            "apple-es256", "fido-u2f-es256",
        ])
    func authenticationVerifies(_ name: String) throws {
        let vector = try #require(Self.all[name])
        let authentication = try #require(vector.authentication)
        let attested = try #require(
            try AttestationObject(bytes(hex: vector.registration.attestationObject!)).authenticatorData
                .attestedCredential)
        let registered = try AuthenticatorData(
            AttestationObject(bytes(hex: vector.registration.attestationObject!)).authenticatorData.bytes)
        let stored = RelyingParty.StoredCredential(
            id: attested.credentialID, publicKey: attested.publicKeyBytes, signCount: registered.signCount,
            backupEligible: registered.flags.contains(.backupEligible), userHandle: [1])
        let response = AuthenticationResponse(
            credentialID: attested.credentialID, clientDataJSON: bytes(hex: authentication.clientDataJSON),
            authenticatorData: bytes(hex: authentication.authenticatorData!),
            signature: bytes(hex: authentication.signature!), userHandle: nil)
        let result = try Self.party.verifyAuthentication(
            response, challenge: bytes(hex: authentication.challenge), credential: stored,
            allowCredentials: [attested.credentialID])
        #expect(result.counterRegressed == false)

        // One bit of the signature changed: refused.
        var forged = response
        forged.signature[forged.signature.count - 1] ^= 1
        let error = #expect(throws: WebAuthnError.self) {
            try Self.party.verifyAuthentication(
                forged, challenge: bytes(hex: authentication.challenge), credential: stored,
                allowCredentials: [attested.credentialID])
        }
        #expect(error?.kind == .signatureInvalid)
    }

    @Test("Another challenge, origin or RP ID is refused with its own kind")
    func ceremonyBindings() throws {
        let vector = try #require(Self.all["none-es256"])
        let response = Self.registration(vector)
        let challenge = bytes(hex: vector.registration.challenge)
        var other = challenge
        other[0] ^= 1
        let cases: [(RelyingParty, [UInt8], WebAuthnError.Kind)] = [
            (Self.party, other, .challengeMismatch),
            (RelyingParty(id: "example.org", origins: ["https://example.com"]), challenge, .originNotAllowed),
            (RelyingParty(id: "example.com", origins: ["https://example.org"]), challenge, .rpIDMismatch),
        ]
        for (party, challenge, kind) in cases {
            let error = #expect(throws: WebAuthnError.self) {
                try party.verifyRegistration(response, challenge: challenge)
            }
            #expect(error?.kind == kind)
        }
    }
}
