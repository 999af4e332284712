import Foundation

/// Which redirect URIs a login may use: exactly one of the configured ones, except that a loopback `http` URI
/// (`127.0.0.1`, `[::1]`, `localhost`) matches a configured loopback URI on any port (RFC 8252 §7.3). Pure.
enum RedirectURIPolicy {
    static func allows(_ uri: String, allowed: [String]) -> Bool {
        if allowed.contains(uri) { return true }
        guard let candidate = LoopbackURI(uri) else { return false }
        return allowed.compactMap(LoopbackURI.init).contains { $0.matchesIgnoringPort(candidate) }
    }

    /// A regular expression (ECMA-262) that matches exactly what ``allows(_:allowed:)`` allows: each configured URI
    /// as it is, and a loopback one with any port (its host as written, its path `/` or empty alike).
    static func pattern(allowed: [String]) -> String {
        var alternatives: [String] = []
        for uri in allowed {
            alternatives.append(escape(uri))
            guard let loopback = LoopbackURI(uri) else { continue }
            let host = loopback.host == "::1" ? "\\[::1\\]" : escape(loopback.host)
            let path = loopback.path == "/" ? "/?" : escape(loopback.path)
            let query = loopback.query.map { "\\?" + escape($0) } ?? ""
            alternatives.append("http://\(host)(?::[0-9]{1,5})?\(path)\(query)")
        }
        // No allowed URI: a pattern nothing matches.
        return alternatives.isEmpty ? "^(?!)$" : "^(?:" + alternatives.joined(separator: "|") + ")$"
    }

    /// `text` with every regular-expression metacharacter escaped.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\^$.|?*+()[]{}/".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
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
