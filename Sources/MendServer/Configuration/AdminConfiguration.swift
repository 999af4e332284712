import Crypto
public import Foundation
import MendCore

extension ServerConfiguration {
    /// The admin API (`/v1/admin/…`): the operator's own tools list users, end sessions, delete accounts and read the
    /// audit log with a bearer token. Off — its routes answer 404 and are not in `/openapi.json` — unless at least one
    /// token is configured.
    public struct Admin: Sendable, Hashable {
        /// The tokens the admin API accepts, by their SHA-256 only (the tokens themselves are never configured or
        /// stored); several at once, to rotate one without a gap. `mend-server admin new-token ID` makes one.
        public var tokens: [AdminToken]
        /// The admin API's own rate limit per client address, taken before the token is checked (600 a minute by
        /// default; `nil`: none).
        public var rateLimit: RateLimitRule?

        /// Admin settings; with no token the admin API is off.
        public init(
            tokens: [AdminToken] = [], rateLimit: RateLimitRule? = RateLimitRule(requests: 600, per: .seconds(60))
        ) {
            self.tokens = tokens
            self.rateLimit = rateLimit
        }

        /// Whether the admin API is served.
        public var isEnabled: Bool { !tokens.isEmpty }
    }
}

/// A token of the admin API, as configured: its id — which the audit log records as the actor of what it does — and
/// the SHA-256 of the token. The token itself is only ever known to the operator who made it.
///
/// In the environment (`MEND_ADMIN_TOKENS`), a comma-separated list of `id:sha256:<64 hex digits>`.
public struct AdminToken: Sendable, Hashable, CustomStringConvertible {
    /// The id the audit log names (`ops`, `support-2026`): letters, digits, `.`, `_` and `-`, at most 64.
    public var id: String
    /// The SHA-256 of the token.
    public var sha256: Data

    /// A configured token: its id and the SHA-256 of the token (32 bytes).
    public init(id: String, sha256: Data) {
        self.id = id
        self.sha256 = sha256
    }

    /// A new random token with its configuration: `token` is what the operator's tools send (`mend_admin_` and 43
    /// base64url characters, 256 bits), `configuration` what the server is given.
    public static func generate(id: String) -> (token: String, configuration: AdminToken) {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = "mend_admin_" + Base64URL.encode(Data(bytes))
        return (token, AdminToken(id: id, sha256: digest(of: token)))
    }

    /// The SHA-256 of a presented token.
    static func digest(of token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// `id:sha256:<hex>` (the form `MEND_ADMIN_TOKENS` takes); it holds no secret.
    public var environmentValue: String { "\(id):sha256:\(sha256.map { String(format: "%02x", $0) }.joined())" }

    /// The id and the digest's kind only.
    public var description: String { "AdminToken(\(id), sha256)" }

    /// Whether `id` is a valid token id.
    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-")].contains(byte)
            }
    }

    /// Parses `id:sha256:<hex>[,id:sha256:<hex>…]`.
    static func parse(list: String) throws(ConfigurationError) -> [AdminToken] {
        var tokens: [AdminToken] = []
        for item in list.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":").map(String.init)
            guard parts.count == 3, parts[1].lowercased() == "sha256", isValidID(parts[0]) else {
                throw ConfigurationError(
                    "MEND_ADMIN_TOKENS: each token is id:sha256:<64 hex digits> (`mend-server admin new-token ID` "
                        + "prints one); a token itself is never configured")
            }
            guard let digest = hexBytes(parts[2]), digest.count == 32 else {
                throw ConfigurationError("MEND_ADMIN_TOKENS: token '\(parts[0])' has no 64-digit SHA-256 in hex")
            }
            tokens.append(AdminToken(id: parts[0], sha256: digest))
        }
        return tokens
    }

    private static func hexBytes(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes = Data()
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension [AdminToken] {
    /// The id of the configured token whose digest is the presented token's, compared in constant time: every
    /// configured digest is compared whole, whichever matches, so the time says nothing of which or how much.
    func match(_ presented: String) -> String? {
        let digest = [UInt8](AdminToken.digest(of: presented))
        var found: String?
        for token in self {
            var difference: UInt8 = token.sha256.count == digest.count ? 0 : 1
            for (index, byte) in token.sha256.enumerated() where index < digest.count {
                difference |= byte ^ digest[index]
            }
            if difference == 0 { found = token.id }
        }
        return found
    }
}
