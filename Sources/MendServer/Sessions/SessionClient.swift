import HTTPTypes

/// Who opens or refreshes a session, as the devices list shows it: the client's address (keyed as the rate limits
/// key it) and what its `Mend-Client: <name>/<version> (<platform>)` header says (MendLogin's clients and `mend`
/// send one; any client may).
struct SessionClient: Sendable, Hashable {
    /// The `Mend-Client` request header.
    static let header = HTTPField.Name("Mend-Client")!

    /// The address the request came from (the peer, or the trusted proxies' entry).
    var address: String
    /// `name/version`, as the header named it; `nil` without a readable header.
    var name: String?
    /// The platform in the header's parentheses (`iOS 18.1`, `Linux`).
    var platform: String?
    /// The key the request's DPoP proof proved (its RFC 7638 thumbprint), checked before the request reaches the
    /// sessions: a login with one opens a bound session, a refresh of a bound session must carry its key.
    var proofKey: String?

    /// The address as the rate limits key it (an IPv6 address by its /64, no port).
    var addressKey: String { RateLimiter.addressKey(address) }

    /// A client at `address` whose `Mend-Client` header is `header`; a header that is not printable ASCII, or longer
    /// than 200 bytes, is ignored (the session is then listed without a name).
    init(address: String, header: String?, proofKey: String? = nil) {
        self.address = address
        self.proofKey = proofKey
        guard let header, let (name, platform) = Self.parse(header) else { return }
        self.name = name
        self.platform = platform
    }

    /// `name/version (platform)` → its parts; `nil` for a header that is empty, too long or not printable ASCII.
    static func parse(_ header: String) -> (name: String, platform: String?)? {
        let bytes = header.utf8
        guard bytes.count <= 200, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let text = header.trimmingPrefix(while: { $0 == " " })
        guard let first = text.split(separator: " ", maxSplits: 1).first, first.count <= 64 else { return nil }
        var platform: String?
        if let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close {
            let inside = text[text.index(after: open)..<close].trimmingPrefix(while: { $0 == " " })
            let trimmed = String(inside.reversed().drop(while: { $0 == " " }).reversed())
            if !trimmed.isEmpty, trimmed.count <= 64 { platform = trimmed }
        }
        return (String(first), platform)
    }
}
