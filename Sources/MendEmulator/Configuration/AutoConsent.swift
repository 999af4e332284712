/// How the login dialog answers without a person, for headless use.
///
/// In JSON: `"manual"`, `"grantAll"`, `"deny"` or `{"grant": ["email"]}`.
public enum AutoConsent: Sendable, Hashable {
    /// Show the HTML consent page and wait for a person (the default).
    case manual
    /// Redirect at once, granting every requested permission.
    case grantAll
    /// Redirect at once, granting only these permissions (`public_profile` is always granted).
    case grant([String])
    /// Redirect at once with `error=access_denied`, as when the user presses Cancel.
    case deny
}

extension AutoConsent: Codable {
    private enum CodingKeys: String, CodingKey { case grant }

    /// Decodes `"manual"`, `"grantAll"`, `"deny"` or `{"grant": […]}`.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            switch text {
            case "manual": self = .manual
            case "grantAll": self = .grantAll
            case "deny": self = .deny
            default:
                throw DecodingError.dataCorruptedError(
                    in: single, debugDescription: "expected manual, grantAll, deny or {\"grant\": [...]}")
            }
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .grant(try container.decode([String].self, forKey: .grant))
    }

    /// Encodes the value in the form ``init(from:)`` reads.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .manual, .grantAll, .deny:
            var single = encoder.singleValueContainer()
            try single.encode(self == .manual ? "manual" : self == .grantAll ? "grantAll" : "deny")
        case .grant(let scopes):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(scopes, forKey: .grant)
        }
    }
}
