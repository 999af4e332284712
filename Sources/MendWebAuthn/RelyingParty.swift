import Crypto
package import MendJOSE

/// A WebAuthn relying party's checks (WebAuthn Level 3 §7.1 and §7.2) of a ceremony's response: pure functions of
/// the response, what was asked and what is stored. Where challenges and credentials are kept is the caller's
/// (mend-server keeps them in its database, shared by every instance).
package struct RelyingParty: Sendable {
    /// What a signature counter that did not increase means.
    package enum CounterPolicy: String, Sendable, Hashable {
        /// Accepted and reported (``AssertionResult/counterRegressed``): the server audits it. Mend's default, since
        /// synced passkeys report 0 and a counter cannot tell clones from sync.
        case report
        /// Refused for a credential that is not backup eligible (a device-bound key whose counter went back may be
        /// cloned); still only reported for a synced one.
        case refuseDeviceBound
    }

    /// The RP ID: the domain credentials are scoped to.
    package var id: String
    /// The origins a response may come from, exactly as the client data names them (`https://example.com`,
    /// `http://127.0.0.1:8080` for development, `android:apk-key-hash:…`).
    package var origins: Set<String>
    /// The user verification required.
    package var userVerification: UserVerificationRequirement
    /// What a counter regression means.
    package var counterPolicy: CounterPolicy
    /// Whether a ceremony in a cross-origin frame is accepted (its top origin must then be allowed too).
    package var allowsCrossOrigin: Bool

    package init(
        id: String, origins: Set<String>, userVerification: UserVerificationRequirement = .required,
        counterPolicy: CounterPolicy = .report, allowsCrossOrigin: Bool = false
    ) {
        self.id = id
        self.origins = origins
        self.userVerification = userVerification
        self.counterPolicy = counterPolicy
        self.allowsCrossOrigin = allowsCrossOrigin
    }

    /// A credential registration verified: what to store.
    package struct NewCredential: Sendable {
        /// The credential ID.
        package var id: [UInt8]
        /// The public key's COSE encoding, as the authenticator sent it.
        package var publicKey: [UInt8]
        /// Its algorithm.
        package var algorithm: COSEAlgorithm
        /// The counter at registration.
        package var signCount: UInt32
        /// Whether the authenticator verified the user.
        package var userVerified: Bool
        /// BE: the credential may be synced (never changes).
        package var backupEligible: Bool
        /// BS: it is backed up now.
        package var backedUp: Bool
        /// The authenticator model's AAGUID.
        package var aaguid: [UInt8]
        /// The attestation statement's format (`none` or `packed`).
        package var attestationFormat: String
    }

    /// A stored credential, as an assertion is checked against it.
    package struct StoredCredential: Sendable {
        package var id: [UInt8]
        package var publicKey: [UInt8]
        package var signCount: UInt32
        package var backupEligible: Bool
        /// The user handle it was made for.
        package var userHandle: [UInt8]

        package init(id: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool, userHandle: [UInt8]) {
            self.id = id
            self.publicKey = publicKey
            self.signCount = signCount
            self.backupEligible = backupEligible
            self.userHandle = userHandle
        }
    }

    /// An assertion verified.
    package struct AssertionResult: Sendable {
        /// The counter to store (the larger of the stored and the new one).
        package var signCount: UInt32
        /// Whether the counter did not increase where it should have (both non-zero): a signal, audited.
        package var counterRegressed: Bool
        /// Whether the authenticator verified the user.
        package var userVerified: Bool
        /// BS now.
        package var backedUp: Bool
    }

    /// Verifies a registration (§7.1) against the challenge issued and the algorithms offered.
    package func verifyRegistration(
        _ response: RegistrationResponse, challenge: [UInt8], algorithms: [COSEAlgorithm] = COSEAlgorithm.allCases
    ) throws(WebAuthnError) -> NewCredential {
        try checkClientData(response.clientDataJSON, ceremony: .create, challenge: challenge)
        let attestation = try AttestationObject(response.attestationObject)
        let data = attestation.authenticatorData
        try checkAuthenticatorData(data)
        guard let credential = data.attestedCredential else {
            throw WebAuthnError(.malformed, "the registration's authenticator data has no attested credential")
        }
        guard credential.credentialID == response.credentialID else {
            throw WebAuthnError(.malformed, "the response's credential ID is not the attested one")
        }
        guard algorithms.contains(credential.algorithm) else {
            throw WebAuthnError(.algorithmNotAllowed, "the credential's algorithm was not offered")
        }
        try attestation.verify(clientDataHash: Array(SHA256.hash(data: response.clientDataJSON)))
        return NewCredential(
            id: credential.credentialID, publicKey: credential.publicKeyBytes, algorithm: credential.algorithm,
            signCount: data.signCount, userVerified: data.flags.contains(.userVerified),
            backupEligible: data.flags.contains(.backupEligible), backedUp: data.flags.contains(.backedUp),
            aaguid: credential.aaguid, attestationFormat: attestation.format)
    }

    /// Verifies an assertion (§7.2) against the challenge issued and the stored credential it names.
    /// `allowCredentials` is what the options listed (empty for a usernameless sign-in).
    package func verifyAuthentication(
        _ response: AuthenticationResponse, challenge: [UInt8], credential: StoredCredential,
        allowCredentials: [[UInt8]] = []
    ) throws(WebAuthnError) -> AssertionResult {
        guard response.credentialID == credential.id,
            allowCredentials.isEmpty || allowCredentials.contains(response.credentialID)
        else { throw WebAuthnError(.credentialNotAllowed, "the credential is not one this sign-in allows") }
        if let handle = response.userHandle {
            guard handle == credential.userHandle else {
                throw WebAuthnError(.credentialNotAllowed, "the user handle is not the credential's user")
            }
        } else if allowCredentials.isEmpty {
            throw WebAuthnError(.credentialNotAllowed, "a usernameless sign-in's response has no user handle")
        }
        try checkClientData(response.clientDataJSON, ceremony: .get, challenge: challenge)
        let data = try AuthenticatorData(response.authenticatorData)
        guard data.attestedCredential == nil else {
            throw WebAuthnError(.malformed, "an assertion's authenticator data has attested credential data")
        }
        try checkAuthenticatorData(data)
        guard data.flags.contains(.backupEligible) == credential.backupEligible else {
            throw WebAuthnError(.backupStateInvalid, "the BE flag changed since the credential was registered")
        }
        let key: JWSPublicKey
        do {
            guard let map = try CBOR.decode(credential.publicKey).mapValue else { throw CBORError(.malformed, "") }
            key = try COSEKey.publicKey(map)
        } catch {
            throw WebAuthnError(.malformed, "the stored credential's public key does not decode")
        }
        let signed = response.authenticatorData + Array(SHA256.hash(data: response.clientDataJSON))
        guard key.isValidCOSESignature(response.signature, for: signed) else {
            throw WebAuthnError(
                .signatureInvalid, "the assertion's signature does not verify with the credential's key")
        }
        let regressed = (data.signCount != 0 || credential.signCount != 0) && data.signCount <= credential.signCount
        if regressed, counterPolicy == .refuseDeviceBound, !credential.backupEligible {
            throw WebAuthnError(.counterRegression, "the signature counter did not increase for a device-bound key")
        }
        return AssertionResult(
            signCount: max(data.signCount, credential.signCount), counterRegressed: regressed,
            userVerified: data.flags.contains(.userVerified), backedUp: data.flags.contains(.backedUp))
    }

    private func checkClientData(
        _ bytes: [UInt8], ceremony: CollectedClientData.Ceremony, challenge: [UInt8]
    ) throws(WebAuthnError) {
        let clientData = try CollectedClientData(bytes)
        guard clientData.type == ceremony.rawValue else {
            throw WebAuthnError(.wrongCeremony, "the client data's type is not \(ceremony.rawValue)")
        }
        guard clientData.challenge.count == challenge.count,
            zip(clientData.challenge, challenge).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else { throw WebAuthnError(.challengeMismatch, "the client data's challenge is not the one issued") }
        guard origins.contains(clientData.origin) else {
            throw WebAuthnError(.originNotAllowed, "the client data's origin is not on the allow-list")
        }
        if clientData.crossOrigin {
            // A Level 2 client names no top origin; a Level 3 client's must be allowed too.
            guard allowsCrossOrigin, clientData.topOrigin.map(origins.contains) ?? true else {
                throw WebAuthnError(.originNotAllowed, "the ceremony ran in a cross-origin frame")
            }
        }
    }

    private func checkAuthenticatorData(_ data: AuthenticatorData) throws(WebAuthnError) {
        guard data.rpIDHash == Array(SHA256.hash(data: Array(id.utf8))) else {
            throw WebAuthnError(.rpIDMismatch, "the authenticator data is for another RP ID")
        }
        guard data.flags.contains(.userPresent) else {
            throw WebAuthnError(.userPresenceMissing, "the authenticator did not test user presence (UP)")
        }
        if userVerification == .required, !data.flags.contains(.userVerified) {
            throw WebAuthnError(.userVerificationMissing, "the authenticator did not verify the user (UV)")
        }
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) {
            throw WebAuthnError(.backupStateInvalid, "BS is set without BE")
        }
    }
}

/// An attestation object (WebAuthn §6.5.4): `{fmt, attStmt, authData}` in CBOR, of the formats Mend verifies.
package struct AttestationObject: Sendable {
    /// The statement's format.
    package var format: String
    /// The statement.
    package var statement: CBORMap
    /// The authenticator data.
    package var authenticatorData: AuthenticatorData

    /// Parses `bytes`: a CBOR map of exactly `fmt` (text), `attStmt` (map) and `authData` (bytes).
    package init(_ bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBOR.decode(bytes) } catch {
            throw WebAuthnError(.malformed, "the attestation object is not CBOR: \(error.reason)")
        }
        guard let map = value.mapValue, map.entries.count == 3, let format = map["fmt"]?.textString,
            let statement = map["attStmt"]?.mapValue, let authData = map["authData"]?.byteString
        else { throw WebAuthnError(.malformed, "the attestation object is not a map of fmt, attStmt and authData") }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(authData)
    }

    /// Verifies the statement (§8.2 packed self-attestation, §8.7 none). Any other format, and packed with a
    /// certificate chain (`x5c`), is refused as unsupported: Mend does not judge authenticator models.
    package func verify(clientDataHash: [UInt8]) throws(WebAuthnError) {
        switch format {
        case "none":
            guard statement.entries.isEmpty else {
                throw WebAuthnError(.attestationInvalid, "a none attestation's statement is not empty")
            }
        case "packed":
            guard statement["x5c"] == nil else {
                throw WebAuthnError(
                    .unsupportedAttestationFormat, "packed attestation with a certificate chain (x5c) is not verified")
            }
            guard let credential = authenticatorData.attestedCredential,
                let alg = statement["alg"]?.integer, let signature = statement["sig"]?.byteString,
                statement.entries.count == 2
            else { throw WebAuthnError(.attestationInvalid, "a packed self-attestation is not exactly alg and sig") }
            guard alg == credential.algorithm.rawValue else {
                throw WebAuthnError(.attestationInvalid, "the self-attestation's alg is not the credential key's")
            }
            guard
                credential.publicKey.isValidCOSESignature(signature, for: authenticatorData.bytes + clientDataHash)
            else { throw WebAuthnError(.attestationInvalid, "the self-attestation's signature does not verify") }
        default:
            throw WebAuthnError(.unsupportedAttestationFormat, "the attestation format is not none or packed")
        }
    }
}
