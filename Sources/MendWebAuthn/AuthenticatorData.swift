package import MendJOSE

/// Authenticator data (WebAuthn §6.1), parsed whole: every byte is accounted for, or it is refused.
package struct AuthenticatorData: Sendable {
    /// The flags byte's bits (WebAuthn §6.1).
    package struct Flags: OptionSet, Sendable, Hashable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// UP: a person was present.
        package static let userPresent = Flags(rawValue: 1 << 0)
        /// UV: the authenticator verified the user (PIN, biometrics).
        package static let userVerified = Flags(rawValue: 1 << 2)
        /// BE: the credential may be backed up (a synced passkey).
        package static let backupEligible = Flags(rawValue: 1 << 3)
        /// BS: the credential is backed up now.
        package static let backedUp = Flags(rawValue: 1 << 4)
        /// AT: attested credential data follows the counter.
        package static let attestedCredentialData = Flags(rawValue: 1 << 6)
        /// ED: extensions follow.
        package static let extensionData = Flags(rawValue: 1 << 7)
    }

    /// Attested credential data (WebAuthn §6.5.2): what registration adds.
    package struct AttestedCredential: Sendable {
        /// The authenticator model's AAGUID (16 bytes; zero when the browser hides it).
        package var aaguid: [UInt8]
        /// The credential ID (at most 1,023 bytes).
        package var credentialID: [UInt8]
        /// The credential public key's COSE encoding, as it came.
        package var publicKeyBytes: [UInt8]
        /// The credential public key.
        package var publicKey: JWSPublicKey
        /// Its algorithm.
        package var algorithm: COSEAlgorithm
    }

    /// The bytes, as they came (what signatures cover).
    package var bytes: [UInt8]
    /// SHA-256 of the RP ID the credential is scoped to.
    package var rpIDHash: [UInt8]
    /// The flags.
    package var flags: Flags
    /// The signature counter (0 for authenticators without one, synced passkeys included).
    package var signCount: UInt32
    /// The attested credential, when AT is set.
    package var attestedCredential: AttestedCredential?
    /// The extension outputs, when ED is set.
    package var extensions: CBORMap?

    /// The most bytes a credential ID may have (WebAuthn §5.8.3).
    package static let maximumCredentialIDLength = 1_023

    /// Parses `bytes`: refused when shorter than 37 bytes, when AT or ED do not match what follows, when the COSE
    /// key does not decode or is not a key Mend verifies, when the extensions are not a CBOR map, or when any byte
    /// is left over.
    package init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else {
            throw WebAuthnError(.malformed, "the authenticator data has \(bytes.count) bytes; it needs 37 at least")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else {
                throw WebAuthnError(.malformed, "the attested credential data ends before its credential ID's length")
            }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length >= 1, length <= Self.maximumCredentialIDLength, bytes.count >= offset + length else {
                throw WebAuthnError(
                    .malformed, "the credential ID's length (\(length)) is out of range or past the end")
            }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            let decoded: (value: CBORValue, end: Int)
            do { decoded = try CBOR.decodePrefix(bytes[offset...]) } catch {
                throw WebAuthnError(.malformed, "the credential public key is not CBOR: \(error.reason)")
            }
            guard let map = decoded.value.mapValue else {
                throw WebAuthnError(.malformed, "the credential public key is not a COSE key map")
            }
            let key: JWSPublicKey
            do { key = try COSEKey.publicKey(map) } catch {
                throw WebAuthnError(.algorithmNotAllowed, "the credential public key: \(error.reason)")
            }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID,
                publicKeyBytes: Array(bytes[offset..<offset + decoded.end]), publicKey: key,
                algorithm: COSEAlgorithm(key.algorithm))
            offset += decoded.end
        }
        if flags.contains(.extensionData) {
            guard offset < bytes.count else {
                throw WebAuthnError(.malformed, "the ED flag is set and no extensions follow")
            }
            let decoded: (value: CBORValue, end: Int)
            do { decoded = try CBOR.decodePrefix(bytes[offset...]) } catch {
                throw WebAuthnError(.malformed, "the extensions are not CBOR: \(error.reason)")
            }
            guard let map = decoded.value.mapValue else {
                throw WebAuthnError(.malformed, "the extensions are not a CBOR map")
            }
            extensions = map
            offset += decoded.end
        }
        guard offset == bytes.count else {
            throw WebAuthnError(.malformed, "\(bytes.count - offset) bytes follow the authenticator data's last part")
        }
    }

    /// Builds authenticator data (what an authenticator does): `rpIDHash ‖ flags ‖ counter ‖ credential ‖ extensions`,
    /// the AT and ED flags set from what is given.
    package static func encode(
        rpIDHash: [UInt8], flags: Flags, signCount: UInt32,
        credential: (aaguid: [UInt8], id: [UInt8], key: JWSPublicKey)?,
        extensions: CBORMap? = nil
    ) -> [UInt8] {
        var flags = flags
        if credential != nil { flags.insert(.attestedCredentialData) } else { flags.remove(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) } else { flags.remove(.extensionData) }
        var bytes = rpIDHash + [flags.rawValue]
        withUnsafeBytes(of: signCount.bigEndian) { bytes += $0 }
        if let credential {
            bytes += credential.aaguid + [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xFF)]
            bytes += credential.id + CBOR.encode(.map(COSEKey.map(of: credential.key)))
        }
        if let extensions { bytes += CBOR.encode(.map(extensions)) }
        return bytes
    }
}
