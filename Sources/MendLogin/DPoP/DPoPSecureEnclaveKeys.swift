#if canImport(CryptoKit) && canImport(Security) && !os(Linux)
    import CryptoKit
    import Foundation
    import MendJOSE

    // Apple-only, and not built on the Linux machines Mend is developed and tested on: this file is small on purpose. Its
    // contract is `DPoPKeyFactory`'s, which `DPoPSoftwareKeys` implements and the tests exercise on every platform; the
    // one difference is where the private key lives.

    /// Secure Enclave P-256 keys: the record keeps the enclave's blob, which only this device's enclave can use — a
    /// session restored to another device fails with `session/19` and asks for a new login.
    package struct DPoPSecureEnclaveKeys: DPoPKeyFactory {
        /// Whether this device has a Secure Enclave.
        package static var isAvailable: Bool { SecureEnclave.isAvailable }

        package init() {}

        package func makeKey() throws -> DPoPKey {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            return DPoPKey(
                kind: .secureEnclave, material: key.dataRepresentation,
                thumbprint: JWK.thumbprint(of: DPoPEnclaveSigner(key: key).publicKey))
        }

        package func signer(for key: DPoPKey) throws -> any JWSSigningBackend {
            guard key.kind == .secureEnclave else {
                throw DPoPKeyUnavailable(reason: "a \(key.kind.rawValue) key is not a Secure Enclave key")
            }
            guard SecureEnclave.isAvailable,
                let privateKey = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: key.material)
            else {
                throw DPoPKeyUnavailable(reason: "the Secure Enclave key belongs to another device, or is gone")
            }
            let signer = DPoPEnclaveSigner(key: privateKey)
            guard JWK.thumbprint(of: signer.publicKey) == key.thumbprint else {
                throw DPoPKeyUnavailable(reason: "the stored key does not match its thumbprint")
            }
            return signer
        }
    }

    /// A Secure Enclave key's signer: MendJOSE's key-backend seam, the private key never in memory.
    struct DPoPEnclaveSigner: JWSSigningBackend {
        let key: SecureEnclave.P256.Signing.PrivateKey

        var algorithm: JWSAlgorithm { .es256 }

        /// The enclave key's public half (CryptoKit's P-256 public key, the type swift-crypto re-exports there).
        var publicKey: JWSPublicKey { JWSPublicKey(.p256(key.publicKey)) }

        func signature(for signingInput: [UInt8]) throws -> [UInt8] {
            Array(try key.signature(for: signingInput).rawRepresentation)
        }
    }
#endif
