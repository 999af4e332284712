import Foundation

/// Which redirect URIs a login may use: exactly one of the configured ones, except that a loopback `http` URI
/// (`127.0.0.1`, `[::1]`, `localhost`) matches a configured loopback URI on any port (RFC 8252 §7.3). Pure.
enum RedirectURIPolicy {
    static func allows(_ uri: String, allowed: [String]) -> Bool {
        if allowed.contains(uri) { return true }
        guard let candidate = LoopbackURI(uri) else { return false }
        return allowed.compactMap(LoopbackURI.init).contains { $0.matchesIgnoringPort(candidate) }
    }

    private struct LoopbackURI {
        var host: String
        var path: String
        var query: String?

        init?(_ text: String) {
            guard let components = URLComponents(string: text), components.scheme == "http",
                let host = components.host?.lowercased(), ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host),
                components.user == nil, components.fragment == nil
            else { return nil }
            self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            self.path = components.path.isEmpty ? "/" : components.path
            self.query = components.query
        }

        func matchesIgnoringPort(_ other: LoopbackURI) -> Bool {
            host == other.host && path == other.path && query == other.query
        }
    }
}

/// RFC 7636 §4.1: 43–128 characters of `A-Z a-z 0-9 - . _ ~`.
enum CodeVerifierRule {
    static func isValid(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    true
                default: false
                }
            }
    }
}
