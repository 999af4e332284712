import MendCore

/// The client data a browser or platform signs over (WebAuthn §5.8.1 `CollectedClientData`), read through Mend's
/// strict JSON reader: a member named twice refuses the whole object.
package struct CollectedClientData: Sendable, Hashable {
    /// `webauthn.create` or `webauthn.get`.
    package var type: String
    /// The challenge's bytes.
    package var challenge: [UInt8]
    /// The origin of the page or app (`https://…`, `android:apk-key-hash:…`).
    package var origin: String
    /// Whether the ceremony ran in a frame of another origin than the top one.
    package var crossOrigin: Bool
    /// The top-level origin, when `crossOrigin`.
    package var topOrigin: String?

    /// The ceremony's `type`.
    package enum Ceremony: String, Sendable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// Parses `clientDataJSON`.
    package init(_ clientDataJSON: [UInt8]) throws(WebAuthnError) {
        guard clientDataJSON.count <= 4_096, let members = JSONValue.parseObject(clientDataJSON) else {
            throw WebAuthnError(.malformed, "the client data is not one JSON object (each member once, 4 KiB at most)")
        }
        guard case .string(let type)? = members["type"], case .string(let challenge)? = members["challenge"],
            case .string(let origin)? = members["origin"]
        else { throw WebAuthnError(.malformed, "the client data lacks type, challenge or origin as strings") }
        guard let bytes = Base64URL.decodeCanonical(challenge.utf8), !bytes.isEmpty else {
            throw WebAuthnError(.malformed, "the client data's challenge is not unpadded base64url")
        }
        switch members["crossOrigin"] {
        case nil, .null?: crossOrigin = false
        case .bool(let flag)?: crossOrigin = flag
        default: throw WebAuthnError(.malformed, "the client data's crossOrigin is not a boolean")
        }
        switch members["topOrigin"] {
        case nil: topOrigin = nil
        case .string(let text)?: topOrigin = text
        default: throw WebAuthnError(.malformed, "the client data's topOrigin is not a string")
        }
        self.type = type
        self.challenge = bytes
        self.origin = origin
    }
}
