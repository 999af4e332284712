import Foundation
import MendCore
import MendJOSE
import Testing

@testable import MendWebAuthn

/// Registration and sign-in ceremonies between the software authenticator and the relying party's checks, through
/// the spec's JSON serialization both ways, as a page hands them over.
@Suite("WebAuthn: ceremonies with the software authenticator")
struct CeremonyTests {
    static let origin = "https://login.example.com"
    static let party = RelyingParty(id: "example.com", origins: [origin, "android:apk-key-hash:abc"])

    static func creationOptions(challenge: [UInt8] = Array(repeating: 7, count: 32)) -> CreationOptions {
        CreationOptions(
            rpID: "example.com", rpName: "Example", userID: Array("user-handle-1".utf8), userName: "ada",
            userDisplayName: "Ada", challenge: challenge)
    }

    /// A registration through JSON both ways, verified; the stored credential and the authenticator.
    static func register(
        _ behaviour: SoftwareAuthenticator.Behaviour = .init(), party: RelyingParty = party
    ) throws -> (RelyingParty.NewCredential, SoftwareAuthenticator) {
        var authenticator = SoftwareAuthenticator(behaviour: behaviour)
        let options = try CreationOptions(json: creationOptions().json)
        let response = try authenticator.create(options, origin: origin)
        let received = try RegistrationResponse(json: roundTrip(response.json))
        return (try party.verifyRegistration(received, challenge: options.challenge), authenticator)
    }

    /// `json` as text and read back through Mend's strict reader, as a server receives it.
    static func roundTrip(_ json: JSONValue) throws -> JSONValue {
        try JSONValue.parse(Data(json.jsonText().utf8)).get()
    }

    static func stored(_ credential: RelyingParty.NewCredential) -> RelyingParty.StoredCredential {
        RelyingParty.StoredCredential(
            id: credential.id, publicKey: credential.publicKey, signCount: credential.signCount,
            backupEligible: credential.backupEligible, userHandle: Array("user-handle-1".utf8))
    }

    static func signIn(
        _ authenticator: inout SoftwareAuthenticator, _ credential: RelyingParty.StoredCredential,
        party: RelyingParty = party, allow: Bool = false
    ) throws -> RelyingParty.AssertionResult {
        let challenge = Array(repeating: UInt8(9), count: 32)
        let options = RequestOptions(
            challenge: challenge, rpID: "example.com",
            allowCredentials: allow ? [CredentialDescriptor(id: credential.id)] : [])
        let response = try authenticator.get(try RequestOptions(json: options.json), origin: origin)
        let received = try AuthenticationResponse(json: roundTrip(response.json))
        return try party.verifyAuthentication(
            received, challenge: challenge, credential: credential, allowCredentials: allow ? [credential.id] : [])
    }

    @Test(
        "A passkey of each algorithm registers and signs in, usernameless and with allowCredentials",
        arguments: COSEAlgorithm.allCases)
    func eachAlgorithm(_ algorithm: COSEAlgorithm) throws {
        var (credential, authenticator) = try Self.register(.init(preferredAlgorithm: algorithm))
        #expect(credential.algorithm == algorithm)
        #expect(credential.userVerified)
        var stored = Self.stored(credential)
        let first = try Self.signIn(&authenticator, stored)
        #expect(first.signCount == 1 && !first.counterRegressed)
        stored.signCount = first.signCount
        let second = try Self.signIn(&authenticator, stored, allow: true)
        #expect(second.signCount == 2 && !second.counterRegressed)
    }

    @Test("Packed self-attestation verifies; a forged one is refused")
    func packedSelfAttestation() throws {
        let (credential, _) = try Self.register(.init(attestationFormat: "packed"))
        #expect(credential.attestationFormat == "packed")

        var authenticator = SoftwareAuthenticator(behaviour: .init(attestationFormat: "packed"))
        var response = try authenticator.create(Self.creationOptions(), origin: Self.origin)
        // The client data changed after the authenticator signed: the self-attestation no longer verifies.
        response.clientDataJSON = Array(
            String(decoding: response.clientDataJSON, as: UTF8.self)
                .replacingOccurrences(of: "\"crossOrigin\":false", with: "\"crossOrigin\":false ").utf8)
        let error = #expect(throws: WebAuthnError.self) {
            try Self.party.verifyRegistration(response, challenge: Self.creationOptions().challenge)
        }
        #expect(error?.kind == .attestationInvalid)
    }

    @Test("A synced passkey (BE, BS, counter 0) signs in again and again: a zero counter is no regression")
    func syncedPasskey() throws {
        var (credential, authenticator) = try Self.register(.init(synced: true))
        #expect(credential.backupEligible && credential.backedUp && credential.signCount == 0)
        let stored = Self.stored(credential)
        for _ in 0..<3 {
            let result = try Self.signIn(&authenticator, stored)
            #expect(result.signCount == 0 && !result.counterRegressed && result.backedUp)
        }
    }

    @Test("A counter that goes back is reported; refused only by the device-bound policy, and never for a synced key")
    func counterRegression() throws {
        var (credential, authenticator) = try Self.register()
        var stored = Self.stored(credential)
        stored.signCount = 10
        #expect(try Self.signIn(&authenticator, stored).counterRegressed)
        var strict = Self.party
        strict.counterPolicy = .refuseDeviceBound
        let error = #expect(throws: WebAuthnError.self) { try Self.signIn(&authenticator, stored, party: strict) }
        #expect(error?.kind == .counterRegression)

        // A synced credential whose stored counter is ahead: reported, not refused.
        (credential, authenticator) = try Self.register(.init(synced: true))
        stored = Self.stored(credential)
        stored.signCount = 10
        #expect(try Self.signIn(&authenticator, stored, party: strict).counterRegressed)
    }

    @Test("User verification: required by default, and a policy can make it preferred")
    func userVerification() throws {
        let error = #expect(throws: WebAuthnError.self) { try Self.register(.init(verifiesUser: false)) }
        #expect(error?.kind == .userVerificationMissing)
        var preferred = Self.party
        preferred.userVerification = .preferred
        let (credential, _) = try Self.register(.init(verifiesUser: false), party: preferred)
        #expect(!credential.userVerified)
    }

    @Test("An authenticator holding an excluded credential refuses to make another (InvalidStateError)")
    func excludedCredential() throws {
        var (credential, authenticator) = try Self.register()
        var options = Self.creationOptions()
        options.excludeCredentials = [CredentialDescriptor(id: credential.id)]
        #expect(throws: SoftwareAuthenticator.Refusal.invalidState) {
            try authenticator.create(options, origin: Self.origin)
        }
        credential.id[0] ^= 1
        _ = credential
    }

    @Test("A sign-in by another user's credential, or a usernameless one without a user handle, is refused")
    func credentialBindings() throws {
        var (credential, authenticator) = try Self.register()
        var stored = Self.stored(credential)
        stored.userHandle = Array("someone-else".utf8)
        let error = #expect(throws: WebAuthnError.self) { try Self.signIn(&authenticator, stored) }
        #expect(error?.kind == .credentialNotAllowed)

        let challenge = Array(repeating: UInt8(9), count: 32)
        var response = try authenticator.get(
            RequestOptions(challenge: challenge, rpID: "example.com"), origin: Self.origin)
        response.userHandle = nil
        let missing = #expect(throws: WebAuthnError.self) {
            try Self.party.verifyAuthentication(response, challenge: challenge, credential: Self.stored(credential))
        }
        #expect(missing?.kind == .credentialNotAllowed)
    }

    @Test("An authenticator with no credential for the RP answers NotAllowedError")
    func noCredential() {
        var authenticator = SoftwareAuthenticator()
        #expect(throws: SoftwareAuthenticator.Refusal.notAllowed) {
            try authenticator.get(RequestOptions(challenge: [1], rpID: "example.com"), origin: Self.origin)
        }
    }

    @Test("Standard base64 where base64url belongs is refused with a reason that says so")
    func base64NotBase64URL() throws {
        var authenticator = SoftwareAuthenticator()
        let response = try authenticator.create(Self.creationOptions(), origin: Self.origin)
        guard case .object(var members) = response.json, case .object(var inner)? = members["response"] else {
            Issue.record("not an object")
            return
        }
        inner["attestationObject"] = .string(Data(response.attestationObject).base64EncodedString())
        members["response"] = .object(inner)
        let error = #expect(throws: WebAuthnError.self) { try RegistrationResponse(json: .object(members)) }
        #expect(error?.kind == .malformed)
        #expect(error?.reason.contains("base64url") == true)
    }

    @Test("BS without BE, or BE changed since registration, is refused")
    func backupFlags() throws {
        var (credential, authenticator) = try Self.register()
        var stored = Self.stored(credential)
        stored.backupEligible = true
        let error = #expect(throws: WebAuthnError.self) { try Self.signIn(&authenticator, stored) }
        #expect(error?.kind == .backupStateInvalid)
        credential.backupEligible = false
    }

    @Test("Authenticator data: every byte accounted for")
    func authenticatorDataRules() throws {
        let (_, authenticator) = try Self.register()
        let key = try #require(authenticator.credentials.first).key.publicKey
        let valid = AuthenticatorData.encode(
            rpIDHash: Array(repeating: 1, count: 32), flags: [.userPresent], signCount: 5,
            credential: (aaguid: Array(repeating: 0, count: 16), id: [1, 2, 3], key: key))
        let parsed = try AuthenticatorData(valid)
        #expect(parsed.signCount == 5 && parsed.attestedCredential?.credentialID == [1, 2, 3])
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(valid + [0]) }
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(Array(valid.dropLast())) }
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(Array(valid.prefix(36))) }
        var flagged = valid
        flagged[32] |= AuthenticatorData.Flags.extensionData.rawValue
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(flagged) }
    }
}
