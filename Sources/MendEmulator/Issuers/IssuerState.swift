import Crypto
public import Foundation
import MendCore

/// The emulated OpenID Connect issuers' state: their signing keys, Apple's team key, pending consents, codes,
/// tokens and the revocations a test reads back.
struct IssuerState: Sendable {
    /// An authorization code.
    struct Code: Sendable, Hashable {
        var kind: EmulatedIssuerKind
        var clientID: String
        var userID: String
        /// `nil` for a native sign-in's code (it was never redirected).
        var redirectURI: String?
        var challenge: String?
        var challengeMethod: String?
        var nonce: String?
        var scopes: [String]
        var offline: Bool
        var expiresAt: Date
        var used = false
        var issuedTokens: [String] = []
    }

    /// An access or refresh token.
    struct Token: Sendable, Hashable {
        enum Kind: String, Sendable { case access, refresh }
        var kind: Kind
        var issuer: EmulatedIssuerKind
        var clientID: String
        var userID: String
        var scopes: [String]
        var expiresAt: Date?
        /// The refresh token an access token came from (revoking it revokes them).
        var refreshToken: String?
        var revoked = false
    }

    /// A consent waiting for the user (manual consent).
    struct PendingConsent: Sendable, Hashable {
        var kind: EmulatedIssuerKind
        var client: EmulatedIssuerClient
        var redirectURI: String
        var responseTypes: Set<String>
        var responseMode: String
        var scopes: [String]
        var state: String?
        var nonce: String?
        var challenge: String?
        var challengeMethod: String?
        var offline: Bool
    }

    var signingKeys: [EmulatedIssuerKind: SigningKeyRing] = [:]
    var codes: [String: Code] = [:]
    var tokens: [String: Token] = [:]
    var consents: [String: PendingConsent] = [:]
    /// Apple: the users that authorized each client before (Apple sends the user's name only the first time).
    var appleAuthorized: Set<String> = []
    /// Every revocation, in order (`GET /_emulator/issuers/revocations`).
    var revocations: [IssuerRevocation] = []
    /// Apple's team signing key (P-256), from the seed: clients sign their client secrets with it.
    let appleTeamKey: P256.Signing.PrivateKey

    init(seed: UInt64) {
        var generator = SeededGenerator(seed: seed ^ 0x4150_504C_454B_4559)
        var bytes = [UInt8]()
        while bytes.count < 32 {
            withUnsafeBytes(of: generator.next().bigEndian) { bytes.append(contentsOf: $0) }
        }
        // A P-256 scalar from 32 seeded bytes; the one-in-2^32 that is out of range falls back to a random key.
        appleTeamKey = (try? P256.Signing.PrivateKey(rawRepresentation: bytes)) ?? P256.Signing.PrivateKey()
    }
}

/// A revocation an emulated issuer (or the Facebook-compatible provider) received.
public struct IssuerRevocation: Sendable, Hashable, Codable {
    /// `apple`, `google` or `facebook`.
    public var issuer: String
    /// The client (app) that revoked.
    public var clientID: String
    /// The user whose grant ended.
    public var userID: String
    /// `access` or `refresh` (Facebook: `permissions`, the whole grant).
    public var tokenKind: String
    /// When, by the emulator's clock.
    public var at: Date
}
