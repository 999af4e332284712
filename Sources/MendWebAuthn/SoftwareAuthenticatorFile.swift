import Crypto
package import Foundation
package import MendCore
import MendJOSE

/// The software authenticator's passkeys in a file of their own (`mend`'s state folder: `passkeys.json`), for the
/// tool and tests: a development aid, not a secure authenticator.
///
/// The file is only this user's (0600, in a 0700 folder, written atomically: ``PrivateFiles``). It is JSON, each
/// passkey's private key base64url under `private_key` — a name of the one secret vocabulary, so that redaction and
/// the recorder's scans take its value for the secret it is wherever the file's text goes:
///
/// ```json
/// {"credentials": [{"credential_id": "…", "rp_id": "example.com", "user_handle": "…", "user_name": "ana",
///   "algorithm": "ES256", "private_key": "…", "sign_count": 0}]}
/// ```
///
/// ES256 and EdDSA keys are kept (what the authenticator makes for Mend's servers); an RS256 key is refused.
package struct SoftwareAuthenticatorFile: Sendable {
    /// Why the file could not be read or written, in words that name the file, never a key.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The file.
    package let url: URL

    /// The file at `url`.
    package init(url: URL) { self.url = url }

    /// The file in `directory` (`passkeys.json`).
    package init(directory: URL) { self.init(url: directory.appendingPathComponent("passkeys.json")) }

    /// The passkeys it holds; none when the file does not exist.
    package func load() throws(Failure) -> [SoftwareAuthenticator.Credential] {
        let data: Data?
        do {
            data = try PrivateFiles.read(url, maximumSize: 1 << 20, tooLarge: "a passkey file")
        } catch { throw Failure(description: "\(error)") }
        guard let data else { return [] }
        guard case .success(let json) = JSONValue.parse(data), case .array(let entries)? = json["credentials"] else {
            throw Failure(description: "\(url.lastPathComponent) is not a passkey file ({\"credentials\": [...]})")
        }
        var credentials: [SoftwareAuthenticator.Credential] = []
        for (index, entry) in entries.enumerated() {
            guard let credential = Self.credential(entry) else {
                throw Failure(description: "\(url.lastPathComponent): passkey \(index + 1) is not readable")
            }
            credentials.append(credential)
        }
        return credentials
    }

    /// Writes `credentials` over the file (0600, atomically).
    package func save(_ credentials: [SoftwareAuthenticator.Credential]) throws(Failure) {
        var entries: [JSONValue] = []
        for credential in credentials {
            guard let entry = Self.json(credential) else {
                throw Failure(description: "a \(credential.key.algorithm.rawValue) passkey cannot be kept in a file")
            }
            entries.append(entry)
        }
        do {
            try PrivateFiles.write(
                Data(JSONValue.object(["credentials": .array(entries)]).jsonText().utf8), to: url,
                what: "the passkey file")
        } catch { throw Failure(description: "\(error)") }
    }

    /// One passkey as the file keeps it; `nil` for a key it does not keep (RS256).
    static func json(_ credential: SoftwareAuthenticator.Credential) -> JSONValue? {
        let privateKey: [UInt8]
        switch credential.key {
        case .es256(let key): privateKey = Array(key.rawRepresentation)
        case .edDSA(let key): privateKey = Array(key.rawRepresentation)
        case .rs256: return nil
        }
        return .object([
            "credential_id": .string(Base64URL.encode(credential.id)), "rp_id": .string(credential.rpID),
            "user_handle": .string(Base64URL.encode(credential.userHandle)), "user_name": .string(credential.userName),
            "algorithm": .string(credential.key.algorithm.rawValue),
            "private_key": .string(Base64URL.encode(privateKey)),
            "sign_count": .int(Int(credential.signCount)),
        ])
    }

    /// One passkey of the file; `nil` when a member is missing or wrong.
    static func credential(_ entry: JSONValue) -> SoftwareAuthenticator.Credential? {
        func bytes(_ name: String) -> [UInt8]? {
            entry[name]?.stringValue.flatMap { Base64URL.decodeBytes($0.utf8) }
        }
        guard let id = bytes("credential_id"), let rpID = entry["rp_id"]?.stringValue,
            let userHandle = bytes("user_handle"), let privateKey = bytes("private_key"),
            let algorithm = entry["algorithm"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:))
        else { return nil }
        let key: SoftwareSigningKey
        switch algorithm {
        case .es256:
            guard let material = try? P256.Signing.PrivateKey(rawRepresentation: privateKey) else { return nil }
            key = .es256(material)
        case .edDSA:
            guard let material = try? Curve25519.Signing.PrivateKey(rawRepresentation: privateKey) else { return nil }
            key = .edDSA(material)
        case .rs256: return nil
        }
        return SoftwareAuthenticator.Credential(
            id: id, rpID: rpID, userHandle: userHandle, userName: entry["user_name"]?.stringValue ?? "", key: key,
            signCount: UInt32(clamping: entry["sign_count"]?.intValue ?? 0))
    }
}
