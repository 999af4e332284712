import Crypto
import Foundation
import MendCore
import MendSignedRequest

/// A key that signs session access tokens: its key id (`kid`), algorithm, private key and state.
///
/// In the environment (`MEND_SIGNING_KEYS`), a comma-separated list of `kid:ALG:key[:state]`, where `ALG` is `EdDSA`
/// (Ed25519; the key is the base64url 32-byte seed) or `ES256` (P-256; the base64url 32-byte private scalar) and the
/// state is `next`, `current` or `retired` (``State``). One key is current: the one marked so, else the first
/// unmarked one; the other unmarked keys are retired. Rotate in three steps, each rolled out to every instance before
/// the next: add the new key as `next`; make it `current` and the old one `retired`; once the old key's last tokens
/// have expired (`MEND_ACCESS_TOKEN_TTL`), remove it. `mend-server generate-key` prints a new key, and
/// `mend-server keys` the states.
public struct SigningKeyConfiguration: Sendable, Hashable {
    /// A JWS algorithm the server signs with.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        /// Ed25519 (RFC 8037).
        case eddsa = "EdDSA"
        /// ECDSA P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// The key id, published in the JWKS and set as `kid` in every token's header.
    public var keyID: String
    /// The algorithm.
    public var algorithm: Algorithm
    /// The private key, base64url (32 bytes for either algorithm).
    public var privateKey: Secret
    /// What the key does: sign (``State/current``), or only verify, before (``State/next``) or after
    /// (``State/retired``) it signs. In a list, the first current key signs; the others verify.
    public var state: State

    /// Where a key stands in its rotation.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Published in the JWKS and accepted, not used to sign: every instance learns it before any signs with it.
        case next
        /// Signs the new tokens (and is published and accepted).
        case current
        /// Published and accepted until the tokens it signed have expired (then remove it), no longer signs.
        case retired
    }

    /// Creates a key configuration (current by default).
    public init(keyID: String, algorithm: Algorithm, privateKey: Secret, state: State = .current) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.state = state
    }

    /// A new random key.
    public static func generate(keyID: String, algorithm: Algorithm = .eddsa) -> SigningKeyConfiguration {
        let raw: Data =
            switch algorithm {
            case .eddsa: Curve25519.Signing.PrivateKey().rawRepresentation
            case .es256: P256.Signing.PrivateKey().rawRepresentation
            }
        return SigningKeyConfiguration(keyID: keyID, algorithm: algorithm, privateKey: Secret(Base64URL.encode(raw)))
    }

    /// `kid:ALG:key`, with `:next` or `:retired` after it for those states (the form `parse(list:)` reads); it
    /// contains the private key.
    public var environmentValue: String {
        "\(keyID):\(algorithm.rawValue):\(privateKey.value)" + (state == .current ? "" : ":\(state.rawValue)")
    }

    /// Parses `kid:ALG:key[:state][,kid:ALG:key[:state]…]`: one key is current, the one marked so or else the first
    /// unmarked one; the other unmarked keys are retired.
    static func parse(list: String) throws(ConfigurationError) -> [SigningKeyConfiguration] {
        var keys: [SigningKeyConfiguration] = []
        var marked: [Bool] = []
        for item in list.split(separator: ",") {
            var parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":").map(String.init)
            var state: State?
            if parts.count == 4 {
                guard let named = State.allCases.first(where: { $0.rawValue == parts[3].lowercased() }) else {
                    throw ConfigurationError(
                        "MEND_SIGNING_KEYS: key '\(parts[0])' has an unknown state '\(parts[3])' (next, current, retired)"
                    )
                }
                state = named
                parts.removeLast()
            }
            guard parts.count == 3, !parts[0].isEmpty else {
                throw ConfigurationError("MEND_SIGNING_KEYS: each key is kid:ALG:base64url-key[:state]")
            }
            guard let algorithm = Algorithm.allCases.first(where: { $0.rawValue.lowercased() == parts[1].lowercased() })
            else {
                throw ConfigurationError("MEND_SIGNING_KEYS: key '\(parts[0])' has an unknown algorithm (EdDSA, ES256)")
            }
            guard Base64URL.decode(parts[2])?.count == 32 else {
                throw ConfigurationError("MEND_SIGNING_KEYS: key '\(parts[0])' is not 32 base64url-encoded bytes")
            }
            keys.append(
                SigningKeyConfiguration(
                    keyID: parts[0], algorithm: algorithm, privateKey: Secret(parts[2]), state: state ?? .retired))
            marked.append(state != nil)
        }
        guard Set(keys.map(\.keyID)).count == keys.count else {
            throw ConfigurationError("MEND_SIGNING_KEYS: key ids must be unique")
        }
        if !keys.contains(where: { $0.state == .current }), let first = marked.firstIndex(of: false) {
            keys[first].state = .current
        }
        try checkStates(keys)
        return keys
    }

    /// Refuses a non-empty list without exactly one current key.
    static func checkStates(_ keys: [SigningKeyConfiguration]) throws(ConfigurationError) {
        guard !keys.isEmpty else { return }
        let current = keys.filter { $0.state == .current }
        guard !current.isEmpty else {
            throw ConfigurationError(
                "MEND_SIGNING_KEYS: no key is current (one must sign): mark one `current`, or leave one unmarked")
        }
        guard current.count == 1 else {
            throw ConfigurationError(
                "MEND_SIGNING_KEYS: only one key is current (it signs); "
                    + current.map(\.keyID).joined(separator: " and ") + " are")
        }
    }
}
