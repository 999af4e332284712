#if canImport(CryptoKit) && canImport(Security) && !os(Linux)
    import CryptoKit
    import Foundation

    // Apple-only, and not built on the Linux machines Mend is developed and tested on: this file is small on purpose. Its
    // contract is `ProofKeyFactory`'s, which `SoftwareProofKeys` implements and the tests exercise on every platform; the
    // one difference is where the private key lives.

    /// Secure Enclave P-256 keys: the record keeps the enclave's blob, which only this device's enclave can use — a
    /// session restored to another device fails with `session/19` and asks for a new login.
    package struct SecureEnclaveProofKeys: ProofKeyFactory {
        /// Whether this device has a Secure Enclave.
        package static var isAvailable: Bool { SecureEnclave.isAvailable }

        package init() {}

        package func makeKey() throws -> ProofKey {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            let publicKey = ProofPublicKey(raw: key.publicKey.rawRepresentation)
            return ProofKey(kind: .secureEnclave, material: key.dataRepresentation, thumbprint: publicKey.thumbprint)
        }

        package func signer(for key: ProofKey) throws -> any ProofSigner {
            guard key.kind == .secureEnclave else {
                throw ProofKeyUnavailable(reason: "a \(key.kind.rawValue) key is not a Secure Enclave key")
            }
            guard SecureEnclave.isAvailable,
                let privateKey = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: key.material)
            else {
                throw ProofKeyUnavailable(reason: "the Secure Enclave key belongs to another device, or is gone")
            }
            let signer = EnclaveProofSigner(key: privateKey)
            guard signer.publicKey.thumbprint == key.thumbprint else {
                throw ProofKeyUnavailable(reason: "the stored key does not match its thumbprint")
            }
            return signer
        }
    }

    /// A Secure Enclave key's signer.
    struct EnclaveProofSigner: ProofSigner {
        let key: SecureEnclave.P256.Signing.PrivateKey
        let publicKey: ProofPublicKey

        init(key: SecureEnclave.P256.Signing.PrivateKey) {
            self.key = key
            self.publicKey = ProofPublicKey(raw: key.publicKey.rawRepresentation)
        }

        func signature(for message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
    }
#endif
