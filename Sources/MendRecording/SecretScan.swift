import Foundation
import MendCore

/// The fail-closed scan every write runs on a redacted recording: a token-shaped or high-entropy string that
/// survived redaction — or any secret the redaction replaced, raw, base64 or URL-encoded — stops the write with an
/// error naming where it sits. It covers every string the document holds, at any depth: the fields HAR defines
/// (bodies decoded from base64), and every field it does not (a page's title, a browser's WebSocket messages,
/// comments, a proxy's own fields).
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

    /// The findings in a whole document, in order: each entry's fields that need their context (a URL, a header's
    /// name, a body's media type and encoding), then every other string of the document at any depth.
    func findings(in document: HARDocument) -> [Finding] {
        var findings: [Finding] = []
        for (index, entry) in document.log.entries.enumerated() {
            findings += self.findings(in: entry, at: "entries[\(index)]")
        }
        var rest = document
        rest.log.entries = []
        scan(json: rest.json, name: "", path: "$", at: "the document", into: &findings)
        return findings
    }

    /// The findings in one entry (`at`: its place, `entries[3]`): the fields that need their context, then every
    /// other string of the entry at any depth (comments, fields HAR does not define, a cookie's path…).
    func findings(in entry: HAREntry, at: String) -> [Finding] {
        var findings: [Finding] = []
        var rest = entry
        let request = entry.request, response = entry.response
        scan(url: request.url, at: "\(at).request.url", into: &findings)
        rest.request.url = ""
        for (index, header) in request.headers.enumerated() {
            scan(value: header.value, name: header.name, at: "\(at).request.headers[\(header.name)]", into: &findings)
            rest.request.headers[index].value = ""
        }
        for (index, field) in request.queryString.enumerated() {
            scan(value: field.value, name: field.name, at: "\(at).request.queryString[\(field.name)]", into: &findings)
            rest.request.queryString[index].value = ""
        }
        for (index, cookie) in request.cookies.enumerated() {
            scan(value: cookie.value, name: "cookie", at: "\(at).request.cookies[\(cookie.name)]", into: &findings)
            rest.request.cookies[index].value = ""
        }
        if let post = request.postData {
            if let text = post.text { scan(body: text, at: "\(at).request.postData.text", into: &findings) }
            rest.request.postData?.text = nil
            for (index, parameter) in (post.params ?? []).enumerated() {
                scan(
                    value: parameter.value ?? "", name: parameter.name,
                    at: "\(at).request.postData.params[\(parameter.name)]", into: &findings)
                rest.request.postData?.params?[index].value = nil
            }
        }
        for (index, header) in response.headers.enumerated() {
            scan(value: header.value, name: header.name, at: "\(at).response.headers[\(header.name)]", into: &findings)
            rest.response.headers[index].value = ""
        }
        for (index, cookie) in response.cookies.enumerated() {
            scan(value: cookie.value, name: "cookie", at: "\(at).response.cookies[\(cookie.name)]", into: &findings)
            rest.response.cookies[index].value = ""
        }
        if !response.redirectURL.isEmpty {
            scan(url: response.redirectURL, at: "\(at).response.redirectURL", into: &findings)
        }
        rest.response.redirectURL = ""
        let content = response.content
        if let text = content.text {
            let place = "\(at).response.content.text"
            if content.isBase64 {
                if let bytes = HARContent.decodeBase64(text) {
                    if let decoded = String(bytes: bytes, encoding: .utf8) {
                        scan(body: decoded, at: "\(place) (base64)", into: &findings)
                    } else {
                        scan(binary: bytes, at: "\(place) (base64, binary)", into: &findings)
                    }
                } else {
                    scan(value: text, name: "", at: place, into: &findings)
                }
            } else {
                scan(body: text, at: place, into: &findings)
            }
        }
        rest.response.content.text = nil
        if let error = entry.mend?.error {
            scan(value: error.message, name: "message", at: "\(at)._mend.error.message", into: &findings)
            rest.mend?.error?.message = ""
        }
        scan(json: rest.jsonValue, name: "", path: "$", at: at, into: &findings)
        return findings
    }

    /// The known secrets found in the serialized recording, raw, base64, base64url or URL-encoded.
    func knownSecretFindings(in text: String) -> [Finding] {
        var findings: [Finding] = []
        for secret in knownSecrets where secret.utf8.count >= 6 && !Self.isWord(secret) {
            let data = Data(secret.utf8)
            let base64 = data.base64EncodedString()
            let forms = [
                ("raw", secret), ("URL-encoded", FormEncoding.escape(secret)),
                ("base64", String(base64.trimmingCharacters(in: ["="]))),
                ("base64url", Base64URL.encode(data)),
            ]
            for (encoding, form) in forms where form.utf8.count >= 6 && text.contains(form) {
                findings.append(Finding(location: "the recording", reason: "a redacted secret, \(encoding)"))
            }
        }
        return findings
    }

    /// Whether a replaced value is a word (letters of one case, shorter than 16: a cookie's `accepted`), which the
    /// search for known secrets skips: it would find the word in any sentence, and a word is no credential's shape.
    static func isWord(_ value: String) -> Bool {
        value.utf8.count < 16 && value.allSatisfy(\.isLetter)
            && (value.allSatisfy(\.isLowercase) || value.dropFirst().allSatisfy(\.isLowercase))
    }

    // MARK: Places

    private func scan(url: String, at location: String, into findings: inout [Finding]) {
        guard let components = URLComponents(string: url) else {
            // Not a URL Foundation reads: its runs as they are (never its URLs again, which would be itself).
            scan(
                value: url.replacingOccurrences(of: "?", with: " "), name: "", at: location, into: &findings,
                urlsInText: false)
            return
        }
        for field in FormEncoding.decodeFields(components.percentEncodedQuery ?? "") {
            scan(value: field.name, name: "", at: "\(location)?\(field.name) (name)", into: &findings)
            if let value = field.value {
                scan(value: value, name: field.name, at: "\(location)?\(field.name)", into: &findings)
            }
        }
        if let fragment = components.percentEncodedFragment {
            for field in FormEncoding.decodeFields(fragment) {
                scan(value: field.name, name: "", at: "\(location)#\(field.name) (name)", into: &findings)
                if let value = field.value {
                    scan(value: value, name: field.name, at: "\(location)#\(field.name)", into: &findings)
                }
            }
        }
        if let user = components.percentEncodedUser {
            scan(value: user, name: "", at: "\(location) (user)", into: &findings)
        }
        if components.percentEncodedPassword != nil {
            findings.append(Finding(location: "\(location) (password)", reason: "a URL's password"))
        }
        for segment in components.path.split(separator: "/") {
            scan(value: String(segment), name: "", at: "\(location) (path)", into: &findings)
        }
    }

    private func scan(body: String, at location: String, into findings: inout [Finding]) {
        if case .success(let json) = JSONValue.parse(Data(body.utf8)) {
            scan(json: json, name: "", path: "$", at: location, into: &findings)
        } else if body.contains("="), !body.contains(" "), !body.contains("<") {
            for field in FormEncoding.decodeFields(body) {
                // A name is scanned too: a base64 text whose padding made it look like a form is one long name.
                scan(value: field.name, name: "", at: "\(location)[\(field.name.prefix(32))] (name)", into: &findings)
                if let value = field.value {
                    scan(value: value, name: field.name, at: "\(location)[\(field.name)]", into: &findings)
                }
            }
        } else {
            scan(value: body, name: "", at: location, into: &findings)
        }
    }

    /// Binary content: its printable runs, for token shapes (randomness is what binary content is made of).
    private func scan(binary bytes: [UInt8], at location: String, into findings: inout [Finding]) {
        var run: [UInt8] = []
        func check() {
            if run.count >= 16, SecretVocabulary.hasShape(String(decoding: run, as: UTF8.self)) {
                findings.append(Finding(location: location, reason: "a token-shaped string"))
            }
            run.removeAll(keepingCapacity: true)
        }
        for byte in bytes {
            if (0x21...0x7E).contains(byte) { run.append(byte) } else { check() }
        }
        check()
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
    func scan(
        value: String, name: String, at location: String, into findings: inout [Finding], urlsInText: Bool = true
    ) {
        if PlaceholderTable.isPlaceholder(value) || value.isEmpty { return }
        if urlsInText, value.hasPrefix("http://") || value.hasPrefix("https://"), !value.contains(" ") {
            // A URL (a Referer, a Location, a page's title): its query and fragment pairs by their names.
            scan(url: value, at: location, into: &findings)
            return
        }
        if SecretVocabulary.hasShape(value) {
            findings.append(Finding(location: location, reason: "a token-shaped string"))
            return
        }
        if rules.isCredential(parameter: name, value: value, inQuery: false) || rules.isCredential(header: name),
            !SecretVocabulary.containsPlaceholder(value)
        {
            // A credential's value that is not a placeholder: redaction missed it.
            findings.append(Finding(location: location, reason: "a value of the credential \(name.lowercased())"))
            return
        }
        guard !rules.isAllowed(name) else { return }
        var text = value
        if urlsInText, text.contains("://") {
            // URLs in free text: each by its parts (a path's segments, a query's pairs by name), then the rest.
            // (A backslash ends one too: the URL sits in escaped JSON, `\"https://…\"`.)
            for match in text.matches(of: /https?:\/\/[^\s"'<>\\]+/).reversed() {
                scan(url: String(text[match.range]), at: location, into: &findings)
                text.replaceSubrange(match.range, with: " ")
            }
        }
        for run in text.split(whereSeparator: { !Self.tokenCharacters.contains($0) }) where run.count >= 20 {
            for part in Self.pairParts(run) where Self.isHighEntropy(part) {
                findings.append(
                    Finding(location: location, reason: "a high-entropy string of \(part.count) characters"))
                return
            }
        }
    }

    /// A run's parts, judged apart: split at each `=` that another character follows — a `name=value` pair's (the
    /// name of a setting beside an app id that redaction keeps, `mend_admin_token=1234567890123456`, reads as one
    /// random run) — while base64's padding, which ends a run, stays with it.
    static func pairParts(_ run: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = run.startIndex
        var index = run.startIndex
        while index < run.endIndex {
            let next = run.index(after: index)
            if run[index] == "=", next < run.endIndex, run[next] != "=" {
                parts.append(run[start..<index])
                start = next
            }
            index = next
        }
        parts.append(run[start...])
        return parts
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
