import Crypto
public import Foundation
package import MendCore
package import MendHTTP
package import MendJOSE

/// The key a DPoP-bound session proves possession with (RFC 9449): a P-256 key (ES256).
///
/// It is kept in the session record itself, so that the session and its key are written, read and deleted together by
/// one store operation: two processes sharing a session file can never see a session without its key, or a key
/// without its session. What that protects against: a token copied out of a log, a HAR, a backup of the server's
/// database or a proxy is useless without the key. What it does not: someone who can read the session record reads the
/// key with it (the Keychain and the Secure Enclave, on Apple platforms, keep the key out of the record's bytes).
///
/// Its private part never appears in any rendering: `description` shows the kind and the thumbprint only.
public struct DPoPKey: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where the private key lives.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A P-256 key in memory, its raw scalar in the session record (Linux, and Apple platforms without a Secure
        /// Enclave).
        case software = "p256"
        /// A key of the Secure Enclave: the record keeps the enclave's device-bound blob, useless on another device.
        case secureEnclave = "p256-secure-enclave"
    }

    /// Where the private key lives.
    public let kind: Kind
    /// The private key as its kind keeps it: the raw scalar, or the enclave's blob. Read it only to sign.
    package let material: Data
    /// The RFC 7638 thumbprint of the public key (`jkt`): what the server binds the session's tokens to.
    public let thumbprint: String

    package init(kind: Kind, material: Data, thumbprint: String) {
        self.kind = kind
        self.material = material
        self.thumbprint = thumbprint
    }

    enum CodingKeys: String, CodingKey {
        // `private_key` is a secret name of the one vocabulary: a session file shown by mistake is redacted.
        case kind, material = "private_key", thumbprint = "jkt"
    }

    /// `DPoPKey(p256, jkt …)`: no secret.
    public var description: String { "DPoPKey(\(kind.rawValue), jkt \(thumbprint))" }

    /// Same as ``description``.
    public var debugDescription: String { description }
}

/// What signs a DPoP proof: MendJOSE's key-backend seam (``JWSSigningBackend``), an ES256 key — in memory, or in the
/// Secure Enclave.
package typealias DPoPSigner = JWSSigningBackend

/// The key-store seam of DPoP: it makes a session's key at login and turns a stored ``DPoPKey`` back into a signer.
///
/// A key that is gone or cannot be used (a Secure Enclave blob restored to another device, a record altered by hand)
/// is ``DPoPKeyUnavailable``: the session ends with its own code and asks for a new login.
package protocol DPoPKeyFactory: Sendable {
    /// A new key for a new session.
    func makeKey() throws -> DPoPKey
    /// The signer of a stored key.
    func signer(for key: DPoPKey) throws -> any JWSSigningBackend
}

extension DPoPKeyFactory {
    /// A new login's key. A key store that fails (a Secure Enclave that refuses) falls back to a software key: the
    /// session is still bound.
    package func makeSessionKey() throws -> DPoPKey {
        if let key = try? makeKey() { return key }
        return try DPoPSoftwareKeys().makeKey()
    }
}

/// A stored key cannot sign: it is of a kind this device cannot use, or its material is not a key.
package struct DPoPKeyUnavailable: Error, Sendable, CustomStringConvertible {
    /// Why, with no secret.
    package var reason: String
    package var description: String { "The session's DPoP key cannot be used: \(reason)." }
}

/// The key stores of this platform: where a new session's key is made, and which store signs with a stored key.
package enum DPoPKeyring {
    /// Where a new session's key is made: the Secure Enclave when this device has one, else software (Linux, the
    /// simulator, a Mac without one).
    package static var preferred: any DPoPKeyFactory {
        #if canImport(CryptoKit) && canImport(Security) && !os(Linux)
            if DPoPSecureEnclaveKeys.isAvailable { return DPoPSecureEnclaveKeys() }
        #endif
        return DPoPSoftwareKeys()
    }

    /// The signer of a stored key, by the store its kind names; ``DPoPKeyUnavailable`` when this device cannot use
    /// it.
    package static func signer(for key: DPoPKey) throws -> any JWSSigningBackend {
        switch key.kind {
        case .software: return try DPoPSoftwareKeys().signer(for: key)
        case .secureEnclave:
            #if canImport(CryptoKit) && canImport(Security) && !os(Linux)
                return try DPoPSecureEnclaveKeys().signer(for: key)
            #else
                throw DPoPKeyUnavailable(reason: "a Secure Enclave key cannot be used on this device")
            #endif
        }
    }
}

/// Software P-256 keys (swift-crypto): every platform. The Secure Enclave's factory is Apple-only and not built here.
package struct DPoPSoftwareKeys: DPoPKeyFactory {
    package init() {}

    package func makeKey() throws -> DPoPKey {
        let key = P256.Signing.PrivateKey()
        return DPoPKey(
            kind: .software, material: key.rawRepresentation,
            thumbprint: JWK.thumbprint(of: JWSPublicKey(.p256(key.publicKey))))
    }

    package func signer(for key: DPoPKey) throws -> any JWSSigningBackend {
        guard key.kind == .software else {
            throw DPoPKeyUnavailable(reason: "a \(key.kind.rawValue) key cannot be used on this device")
        }
        guard let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: key.material) else {
            throw DPoPKeyUnavailable(reason: "the stored key is not a P-256 private key")
        }
        let signer = SoftwareSigningKey.es256(privateKey)
        guard JWK.thumbprint(of: signer.publicKey) == key.thumbprint else {
            throw DPoPKeyUnavailable(reason: "the stored key does not match its thumbprint")
        }
        return signer
    }
}

/// Whether the sessions a client opens are bound to a key the client holds.
public enum SessionBinding: Sendable, Hashable {
    /// DPoP (RFC 9449), the default: a key is made for each login — in the Secure Enclave where the device has one,
    /// else in software, kept with the session — and every use of the session's tokens carries a proof of it, so a
    /// copied token alone is useless. A server that does not bind gives a bearer session, and the key is dropped.
    case dpop
    /// Bearer sessions: no key, no proofs; whoever holds a token can use it.
    case bearer
}

/// The key a DPoP-bound session proves possession with: renamed ``DPoPKey`` (every DPoP type has the standard's word
/// for its prefix).
@available(*, deprecated, renamed: "DPoPKey")
public typealias ProofKey = DPoPKey
