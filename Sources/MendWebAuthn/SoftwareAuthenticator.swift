import Crypto
import Foundation
import MendCore
package import MendJOSE

/// An authenticator in software, for development and tests: it makes passkeys (discoverable credentials) and signs
/// in with them as a platform authenticator would, client data included, so that the relying party's checks run on
/// real ceremonies. Its private keys are in memory, or in a file its owner keeps: it is not a secure authenticator.
package struct SoftwareAuthenticator: Sendable {
    /// A passkey it holds.
    package struct Credential: Sendable {
        /// The credential ID.
        package var id: [UInt8]
        /// The RP ID it is scoped to.
        package var rpID: String
        /// The user handle it was made for.
        package var userHandle: [UInt8]
        /// The account name shown when choosing.
        package var userName: String
        /// The private key.
        package var key: SoftwareSigningKey
        /// The signature counter (stays 0 when the authenticator is ``Behaviour/synced``).
        package var signCount: UInt32
    }

    /// How it answers.
    package struct Behaviour: Sendable, Hashable {
        /// Whether it verifies the user (UV), as a platform authenticator with biometrics does.
        package var verifiesUser = true
        /// Whether its credentials are synced passkeys: BE and BS set, the counter always 0.
        package var synced = false
        /// The attestation format of new credentials: `none`, or `packed` (self-attestation).
        package var attestationFormat = "none"
        /// The algorithm of new credentials: the first of the options' that is this one, or the options' first.
        package var preferredAlgorithm: COSEAlgorithm? = nil

        package init(
            verifiesUser: Bool = true, synced: Bool = false, attestationFormat: String = "none",
            preferredAlgorithm: COSEAlgorithm? = nil
        ) {
            self.verifiesUser = verifiesUser
            self.synced = synced
            self.attestationFormat = attestationFormat
            self.preferredAlgorithm = preferredAlgorithm
        }
    }

    /// A ceremony it refuses, named as the browser's `DOMException` would be.
    package enum Refusal: String, Error, Sendable, Hashable {
        /// `NotAllowedError`: no credential of this RP (or of `allowCredentials`).
        case notAllowed = "NotAllowedError"
        /// `InvalidStateError`: it already holds one of `excludeCredentials`.
        case invalidState = "InvalidStateError"
        /// `NotSupportedError`: none of the options' algorithms is one it has.
        case notSupported = "NotSupportedError"
    }

    /// Its passkeys.
    package var credentials: [Credential]
    /// How it answers.
    package var behaviour: Behaviour

    package init(credentials: [Credential] = [], behaviour: Behaviour = Behaviour()) {
        self.credentials = credentials
        self.behaviour = behaviour
    }

    /// `navigator.credentials.create()` from `origin`: a new passkey for the options' user, or a refusal.
    package mutating func create(
        _ options: CreationOptions, origin: String
    ) throws(Refusal) -> RegistrationResponse {
        let rpID = options.rpID.isEmpty ? Self.host(of: origin) : options.rpID
        let held = Set(credentials.filter { $0.rpID == rpID }.map(\.id))
        guard !options.excludeCredentials.contains(where: { held.contains($0.id) }) else { throw .invalidState }
        let algorithm =
            behaviour.preferredAlgorithm.flatMap { options.algorithms.contains($0) ? $0 : nil }
            ?? options.algorithms.first
        guard let algorithm, let key = try? SoftwareSigningKey.generate(algorithm.jwsAlgorithm) else {
            throw .notSupported
        }
        let id = Array(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        // A new credential for the same user replaces the one this authenticator had (as platforms do).
        credentials.removeAll { $0.rpID == rpID && $0.userHandle == options.userID }
        credentials.append(
            Credential(
                id: id, rpID: rpID, userHandle: options.userID, userName: options.userName, key: key, signCount: 0))
        let clientData = Self.clientData("webauthn.create", options.challenge, origin)
        let authenticatorData = AuthenticatorData.encode(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: 0,
            credential: (aaguid: [UInt8](repeating: 0, count: 16), id: id, key: key.publicKey))
        var statement: [(key: CBORValue, value: CBORValue)] = []
        if behaviour.attestationFormat == "packed" {
            let signed = authenticatorData + Array(SHA256.hash(data: clientData))
            statement = [
                (.text("alg"), .integer(algorithm.rawValue)),
                (.text("sig"), .bytes(Self.coseSignature(key, signed))),
            ]
        }
        let object = CBORMap([
            (.text("fmt"), .text(behaviour.attestationFormat)), (.text("attStmt"), .map(CBORMap(statement)!)),
            (.text("authData"), .bytes(authenticatorData)),
        ])!
        return RegistrationResponse(
            credentialID: id, clientDataJSON: clientData, attestationObject: CBOR.encode(.map(object)),
            transports: ["internal"], authenticatorAttachment: "platform", residentKey: true)
    }

    /// `navigator.credentials.get()` from `origin`: an assertion by the first credential that may answer (the most
    /// recent one of the RP for a usernameless sign-in), or ``Refusal/notAllowed``.
    package mutating func get(
        _ options: RequestOptions, origin: String
    ) throws(Refusal) -> AuthenticationResponse {
        let rpID = options.rpID.isEmpty ? Self.host(of: origin) : options.rpID
        let allowed = Set(options.allowCredentials.map(\.id))
        guard
            let index = credentials.lastIndex(where: {
                $0.rpID == rpID && (allowed.isEmpty || allowed.contains($0.id))
            })
        else { throw .notAllowed }
        if !behaviour.synced { credentials[index].signCount += 1 }
        let credential = credentials[index]
        let clientData = Self.clientData("webauthn.get", options.challenge, origin)
        let authenticatorData = AuthenticatorData.encode(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: credential.signCount,
            credential: nil)
        let signed = authenticatorData + Array(SHA256.hash(data: clientData))
        return AuthenticationResponse(
            credentialID: credential.id, clientDataJSON: clientData, authenticatorData: authenticatorData,
            signature: Self.coseSignature(credential.key, signed), userHandle: credential.userHandle)
    }

    private var flags: AuthenticatorData.Flags {
        var flags: AuthenticatorData.Flags = [.userPresent]
        if behaviour.verifiesUser { flags.insert(.userVerified) }
        if behaviour.synced { flags.formUnion([.backupEligible, .backedUp]) }
        return flags
    }

    private static func clientData(_ type: String, _ challenge: [UInt8], _ origin: String) -> [UInt8] {
        Array(
            JSONValue.object([
                "type": .string(type), "challenge": .string(Base64URL.encode(challenge)), "origin": .string(origin),
                "crossOrigin": .bool(false),
            ]).jsonText().utf8)
    }

    /// A signature in WebAuthn's form (ES256 in DER).
    private static func coseSignature(_ key: SoftwareSigningKey, _ message: [UInt8]) -> [UInt8] {
        // Signing with a key in memory does not fail.
        let signature = (try? key.signature(for: message)) ?? []
        if case .es256 = key { return DERSignature.encode(rawScalars: signature) }
        return signature
    }

    private static func host(of origin: String) -> String {
        URLComponents(string: origin)?.host ?? origin
    }
}
