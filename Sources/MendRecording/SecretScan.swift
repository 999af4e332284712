import Foundation
import MendCore

/// The fail-closed scan every write runs on a redacted recording: a token-shaped or high-entropy string that
/// survived redaction — or any secret the redaction replaced, raw, base64 or URL-encoded — stops the write with an
/// error naming where it sits.
struct SecretScan: Sendable {
    let rules: RedactionRules
    /// The secrets the redaction replaced: none may appear anywhere, in any encoding.
    let knownSecrets: [String]

    /// One finding: where, and what kind of string (never the string itself).
    struct Finding: Sendable, CustomStringConvertible {
        var location: String
        var reason: String
        var description: String { "\(location): \(reason)" }
    }

    /// The findings in `entries` (HAR entries), in order.
    func findings(in entries: [JSONValue]) -> [Finding] {
        var findings: [Finding] = []
        for (index, entry) in entries.enumerated() {
            let at = "entries[\(index)]"
            for side in ["request", "response"] {
                guard let message = entry[side] else { continue }
                if let url = message["url"]?.stringValue { scan(url: url, at: "\(at).request.url", into: &findings) }
                if let location = message["redirectURL"]?.stringValue, !location.isEmpty {
                    scan(url: location, at: "\(at).response.redirectURL", into: &findings)
                }
                for header in message["headers"]?.arrayValue ?? [] {
                    guard let name = header["name"]?.stringValue, let value = header["value"]?.stringValue else {
                        continue
                    }
                    scan(value: value, name: name, at: "\(at).\(side).headers[\(name)]", into: &findings)
                }
                let body = side == "request" ? message["postData"]?["text"] : message["content"]?["text"]
                if let text = body?.stringValue {
                    let place = "\(at).\(side).\(side == "request" ? "postData" : "content").text"
                    scan(body: text, at: place, into: &findings)
                }
            }
        }
        return findings
    }

    /// The known secrets found in the serialized recording, raw, base64, base64url or URL-encoded.
    func knownSecretFindings(in text: String) -> [Finding] {
        var findings: [Finding] = []
        for secret in knownSecrets where secret.utf8.count >= 6 {
            let data = Data(secret.utf8)
            let base64 = data.base64EncodedString()
            let forms = [
                ("raw", secret), ("URL-encoded", ExchangeRedactor.encode(secret)),
                ("base64", String(base64.trimmingCharacters(in: ["="]))),
                (
                    "base64url",
                    base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                        .trimmingCharacters(in: ["="])
                ),
            ]
            for (encoding, form) in forms where form.utf8.count >= 6 && text.contains(form) {
                findings.append(Finding(location: "the recording", reason: "a redacted secret, \(encoding)"))
            }
        }
        return findings
    }

    private func scan(url: String, at location: String, into findings: inout [Finding]) {
        guard let components = URLComponents(string: url) else {
            scan(value: url.replacingOccurrences(of: "?", with: " "), name: "", at: location, into: &findings)
            return
        }
        for pair in ExchangeRedactor.decodeForm(components.percentEncodedQuery ?? "") {
            if let value = pair.value {
                scan(value: value, name: pair.name, at: "\(location)?\(pair.name)", into: &findings)
            }
        }
        scan(value: components.path, name: "", at: "\(location) (path)", into: &findings)
    }

    private func scan(body: String, at location: String, into findings: inout [Finding]) {
        if case .success(let json) = JSONValue.parse(Data(body.utf8)) {
            scan(json: json, name: "", path: "$", at: location, into: &findings)
        } else if body.contains("="), !body.contains(" "), !body.contains("<") {
            for pair in ExchangeRedactor.decodeForm(body) {
                if let value = pair.value {
                    scan(value: value, name: pair.name, at: "\(location)[\(pair.name)]", into: &findings)
                }
            }
        } else {
            scan(value: body, name: "", at: location, into: &findings)
        }
    }

    private func scan(json: JSONValue, name: String, path: String, at location: String, into findings: inout [Finding])
    {
        switch json {
        case .object(let members):
            // A `{"name": …, "value": …}` pair (a Graph batch part's headers) is named by its name.
            let pairName = members.count == 2 ? members["name"]?.stringValue : nil
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                let named = key == "value" && pairName != nil ? pairName! : key
                scan(json: value, name: named, path: "\(path).\(key)", at: location, into: &findings)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                scan(json: element, name: name, path: "\(path)[\(index)]", at: location, into: &findings)
            }
        case .string(let text):
            if let first = text.first, first == "{" || first == "[",
                case .success(let inner) = JSONValue.parse(Data(text.utf8))
            {
                scan(json: inner, name: name, path: path, at: location, into: &findings)
            } else if text.hasPrefix("http://") || text.hasPrefix("https://") {
                scan(url: text, at: "\(location) \(path)", into: &findings)
            } else {
                scan(value: text, name: name, at: "\(location) \(path)", into: &findings)
            }
        case .null, .bool, .int, .double:
            return
        }
    }

    /// A value: each run of token characters in it is checked for a credential's shape, then (unless its name is
    /// allowed) for high entropy.
    func scan(value: String, name: String, at location: String, into findings: inout [Finding]) {
        if PlaceholderTable.isPlaceholder(value) { return }
        if value.hasPrefix("http://") || value.hasPrefix("https://"), value.contains("?") {
            // A URL (a Referer, a Location): its query pairs by their names.
            scan(url: value, at: location, into: &findings)
            return
        }
        if TokenShape.all.contains(where: { $0.matches(value) }) {
            findings.append(Finding(location: location, reason: "a token-shaped string"))
            return
        }
        guard !rules.isAllowed(name) else { return }
        for run in value.split(whereSeparator: { !Self.tokenCharacters.contains($0) }) where run.count >= 20 {
            if Self.isHighEntropy(run) {
                findings.append(Finding(location: location, reason: "a high-entropy string of \(run.count) characters"))
                return
            }
        }
    }

    static let tokenCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=")

    /// Whether a run looks random: at least 20 characters with letters and digits mixed, and at least 4 bits of
    /// Shannon entropy per character — a random base64 secret has about 5, words and hex digests less (a UUID, an
    /// ISO date, a hex trace id or a numeric id is not flagged).
    static func isHighEntropy(_ run: Substring) -> Bool {
        let characters = Array(run)
        guard characters.count >= 20 else { return false }
        let hasDigit = characters.contains(where: \.isNumber)
        let hasUpper = characters.contains(where: \.isUppercase)
        let hasLower = characters.contains(where: \.isLowercase)
        guard hasDigit, hasUpper || hasLower, hasUpper && hasLower || characters.count >= 32 else { return false }
        var counts: [Character: Int] = [:]
        for character in characters { counts[character, default: 0] += 1 }
        let total = Double(characters.count)
        let entropy = counts.values.reduce(0.0) { sum, count in
            let p = Double(count) / total
            return sum - p * log2(p)
        }
        return entropy >= 4.0
    }
}
