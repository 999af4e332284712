import MendCore
import MendJOSE

/// WebAuthn's binary inputs, for the fuzzers (Fuzz/), which are a package of their own and cannot see `package` API.
/// `@_spi(MendFuzzing)`: not part of Mend's public API.
///
/// The first byte chooses: 0, an attestation object (the parse, then none/packed verification); 1, authenticator
/// data; 2, an assertion — client data, authenticator data and signature separated by the bytes `\n--\n` — against
/// the W3C's `none-es256` test vector credential and its authentication challenge. Invariants: every refusal is a
/// `WebAuthnError`; parsed authenticator data accounts for its flags (AT with an attested credential, ED with
/// extensions, a credential ID of 1–1,023 bytes, the key's bytes the key read); an assertion is accepted only with
/// the vector's own client data and authenticator data (its signature may differ only by ECDSA's malleability).
@_spi(MendFuzzing) public enum WebAuthnFuzzing {
    /// Runs the parsers and the relying party's checks on `input`: the broken invariant in words (or `nil` when every
    /// one held), and what the input was, for a verbose run.
    public static func check(_ input: [UInt8]) -> (broken: String?, outcome: String) {
        guard let mode = input.first else { return (nil, "empty") }
        let rest = Array(input.dropFirst())
        switch mode % 3 {
        case 0:
            guard let object = try? AttestationObject(rest) else { return (nil, "attestation: refused") }
            if let broken = check(object.authenticatorData) { return (broken, "") }
            let verified = (try? object.verify(clientDataHash: Array(repeating: 0, count: 32))) != nil
            if verified, !["none", "packed"].contains(object.format) {
                return ("a format Mend does not verify was verified", "")
            }
            return (nil, "attestation: \(object.format), \(verified ? "verified" : "not verified")")
        case 1:
            guard let data = try? AuthenticatorData(rest) else { return (nil, "authenticator data: refused") }
            return (check(data), "authenticator data: flags \(data.flags.rawValue)")
        default:
            return assertion(rest)
        }
    }

    static func check(_ data: AuthenticatorData) -> String? {
        if data.flags.contains(.attestedCredentialData) != (data.attestedCredential != nil) {
            return "AT and the attested credential disagree"
        }
        if data.flags.contains(.extensionData) != (data.extensions != nil) { return "ED and the extensions disagree" }
        if let credential = data.attestedCredential {
            if !(1...1023).contains(credential.credentialID.count) { return "a credential ID out of range" }
            let key = (try? CBOR.decode(credential.publicKeyBytes)).flatMap(\.mapValue).flatMap {
                try? COSEKey.publicKey($0)
            }
            if key.map(JWK.thumbprint(of:)) != JWK.thumbprint(of: credential.publicKey) {
                return "the credential key's bytes are not the key read"
            }
        }
        return nil
    }

    /// The W3C vector `none-es256`: its credential and its authentication.
    static let credentialID = hex("f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4")
    static let publicKey = hex(
        "a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61225820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220"
    )
    static let challenge = hex("39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408")
    static let authenticatorData = hex("bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b51900000000")
    static let clientDataJSON = Array(
        #"{"type":"webauthn.get","challenge":"OcDnUhQXulTUPo3JUXT0I97pvzzYBP9tZchXyav01Ag","origin":"https://example.org","crossOrigin":false}"#
            .utf8)
    static let party = RelyingParty(
        id: "example.org", origins: ["https://example.org"], userVerification: .preferred)
    static let separator: [UInt8] = Array("\n--\n".utf8)

    static func assertion(_ input: [UInt8]) -> (broken: String?, outcome: String) {
        let parts = split(input)
        guard parts.count == 3 else { return (nil, "assertion: not three parts") }
        let response = AuthenticationResponse(
            credentialID: credentialID, clientDataJSON: parts[0], authenticatorData: parts[1], signature: parts[2],
            userHandle: nil)
        let stored = RelyingParty.StoredCredential(
            id: credentialID, publicKey: publicKey, signCount: 0, backupEligible: true, userHandle: [1])
        let accepted =
            (try? party.verifyAuthentication(
                response, challenge: challenge, credential: stored, allowCredentials: [credentialID])) != nil
        if accepted, parts[0] != clientDataJSON || parts[1] != authenticatorData {
            return ("an assertion was accepted with other client data or authenticator data than the vector's", "")
        }
        return (nil, "assertion: \(accepted ? "accepted" : "refused")")
    }

    static func split(_ input: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < input.count {
            if index + separator.count <= input.count, Array(input[index..<index + separator.count]) == separator {
                parts.append(current)
                current = []
                index += separator.count
            } else {
                current.append(input[index])
                index += 1
            }
        }
        parts.append(current)
        return parts
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
