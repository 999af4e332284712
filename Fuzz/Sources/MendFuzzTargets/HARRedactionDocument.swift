import Foundation
import MendCore
import MendRecording

/// A random HAR document made from the fuzzer's bytes (each byte one choice; zeros once they run out), with secrets
/// planted at random places in random encodings, and the record of each plant (what, how, where) for the checks.
///
/// The first byte chooses the mode. In ``Mode/recognised`` the document holds secrets only where the vocabulary must
/// recognise them — a value under a secret name, a token shape anywhere, a credential header or cookie, a scheme's
/// credential — and otherwise plain low-entropy text: words of a small dictionary and short numbers (every value under
/// a secret name or in a cookie is a planted secret). In ``Mode/adversarial`` it also holds random high-entropy
/// strings (which the fail-closed scan must refuse), strings of the fuzzer's own bytes, and tokens in URL paths.
final class HARBuilder {
    enum Mode: String {
        case recognised
        case adversarial
    }

    /// One planted secret (or random string).
    struct Planting {
        /// The secret's kind, or "a random high-entropy string".
        var what: String
        /// How it was planted: its encodings, outermost first.
        var how: String
        /// Where (a path in the document).
        var place: String
        /// The forms that must not be in the redacted document.
        var forms: [HARSecrets.Form]
    }

    let mode: Mode
    private(set) var plantings: [Planting] = []
    private let bytes: [UInt8]
    private var index = 1
    private var wrappers: [String] = []
    /// Whether what is being made sits under a name the scan accepts however random (an ETag, a cursor): no random
    /// string goes there.
    private var underAllowedName = false
    /// Plants whose `what # how @ place` (place without indices) contains one of these (each part of one with `&`)
    /// are not made, nor plain words or sentences that contain one (MEND_FUZZ_HAR_SKIP: to keep fuzzing past a
    /// known finding).
    private let skipped: [String]
    private let rules = RedactionRules.standard

    /// The plain words and sentences (without those a skipped text names).
    private let words: [String]
    private let sentences: [String]

    init(_ bytes: [UInt8], skipped: [String]) {
        self.bytes = bytes
        self.mode = (bytes.first ?? 0) & 1 == 0 ? .recognised : .adversarial
        self.skipped = skipped
        words = HARSecrets.words.filter { word in !skipped.contains { word.contains($0) } }
        sentences = HARSecrets.sentences.filter { sentence in !skipped.contains { sentence.contains($0) } }
    }

    private var adversarial: Bool { mode == .adversarial }

    // MARK: Choices

    private func byte() -> Int {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return Int(bytes[index])
    }

    /// A choice among `count` (0 once the bytes run out: the plainest).
    private func pick(_ count: Int) -> Int { count <= 1 ? 0 : byte() % count }
    private func flag() -> Bool { byte() & 1 == 1 }
    private func element<T>(_ array: [T]) -> T { array[pick(array.count)] }
    /// A short number (at most five digits).
    private func number() -> Int { flag() ? byte() : byte() * 97 }

    // MARK: Plain text

    /// Low-entropy text: words of a small dictionary, short numbers, a provider's sentence.
    private func plain() -> String {
        switch pick(7) {
        case 0: return element(words)
        case 1: return (0...(1 + pick(4))).map { _ in element(words) }.joined(separator: " ")
        case 2: return "\(element(words)) \(number())"
        case 3: return element(sentences)
        case 4: return String(number())
        case 5: return (0...(1 + pick(2))).map { _ in element(words) }.joined(separator: "-")
        default: return "\(element(words))/\(element(words))"
        }
    }

    // MARK: Plants

    /// `place` without its indices (`[3]`).
    private func normalized(_ place: String) -> String {
        var result = ""
        var index = place.startIndex
        while index < place.endIndex {
            if place[index] == "[", let close = place[index...].firstIndex(of: "]"),
                place[place.index(after: index)..<close].allSatisfy(\.isNumber)
            {
                index = place.index(after: close)
                continue
            }
            result.append(place[index])
            index = place.index(after: index)
        }
        return result
    }

    private func allowed(_ what: String, _ how: String, _ place: String) -> Bool {
        guard !skipped.isEmpty else { return true }
        let key = "\(what) # \(how) @ \(normalized(place))"
        return !skipped.contains { item in item.split(separator: "&").allSatisfy { key.contains($0) } }
    }

    /// What a skipped plant leaves: a placeholder, which redaction keeps and the scan accepts (a plain word would not
    /// do: under a secret name it is redacted, and then sought everywhere).
    static let skippedPlant = "<mend:skipped:1>"

    /// Records `secret` planted as `value` (how, under the current wrappers, and where), and returns `value`
    /// (``skippedPlant`` instead when the plant is skipped).
    private func plant(
        _ secret: HARSecrets.Secret, _ how: String, at place: String, as value: String,
        extra: [HARSecrets.Form] = []
    ) -> String {
        let how = (wrappers + [how]).joined(separator: " > ")
        guard allowed(secret.kind, how, place) else { return Self.skippedPlant }
        plantings.append(Planting(what: secret.kind, how: how, place: place, forms: extra + secret.forms))
        return value
    }

    /// Runs `body` for a value under `name`: without random strings when the scan accepts any value of `name`.
    private func under<T>(_ name: String, _ body: () -> T) -> T {
        let outer = underAllowedName
        underAllowedName = outer || HARSecrets.allowedNames.contains(name.lowercased())
        defer { underAllowedName = outer }
        return body()
    }

    /// Runs `body` with `wrapper` as one more encoding (inside the current ones) of what it plants.
    private func wrapped<T>(_ wrapper: String, _ body: () -> T) -> T {
        wrappers.append(wrapper)
        defer { wrappers.removeLast() }
        return body()
    }

    private func anySecret(multiline: Bool = true) -> HARSecrets.Secret {
        let candidates = multiline ? HARSecrets.all : HARSecrets.all.filter { !$0.multiline }
        return element(candidates)
    }

    private func shapedSecret(multiline: Bool = true) -> HARSecrets.Secret {
        element(HARSecrets.all.filter { $0.shaped && (multiline || !$0.multiline) })
    }

    /// A secret to plant under `name`: one usually sent under it, or any other long enough.
    private func secret(under name: String, multiline: Bool = true) -> HARSecrets.Secret {
        let usual = HARSecrets.all.filter { $0.names.contains(name) && (multiline || !$0.multiline) }
        if flag(), !usual.isEmpty { return element(usual) }
        return element(
            HARSecrets.all.filter { HARSecrets.fits($0.text, under: name) && (multiline || !$0.multiline) })
    }

    /// The token a scheme (`Bearer`, `DPoP`) carries: a secret's text without its own scheme, when it is a credential
    /// by the vocabulary's test (its leading run of credential characters has a digit or 24 characters).
    private func schemeToken() -> (HARSecrets.Secret, String) {
        let secret = element(HARSecrets.all.filter(\.isSchemeToken))
        return (secret, secret.token)
    }

    private func isSecretName(_ name: String) -> Bool { rules.parameters.contains(name.lowercased()) }

    /// A random high-entropy string (adversarial mode): 24 to 40 distinct letters and digits, at least one of each
    /// kind, so at least log2(24) = 4.6 bits per character (the scan refuses 4 and more).
    private func random(_ how: String, at place: String) -> String {
        guard !underAllowedName else { return plain() }
        let how = (wrappers + [how]).joined(separator: " > ")
        guard allowed("random", how, place) else { return Self.skippedPlant }
        var generator = SplitMix64(seed: UInt64(byte()) << 24 | UInt64(byte()) << 16 | UInt64(byte()) << 8 | 1)
        let digits = Array("0123456789").shuffled(using: &generator)
        let uppers = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ").shuffled(using: &generator)
        let lowers = Array("abcdefghijklmnopqrstuvwxyz").shuffled(using: &generator)
        let rest = (digits.dropFirst() + uppers.dropFirst() + lowers.dropFirst()).shuffled(using: &generator)
        let count = 24 + pick(17)
        let text = String(([digits[0], uppers[0], lowers[0]] + rest.prefix(count - 3)).shuffled(using: &generator))
        plantings.append(
            Planting(
                what: "a random high-entropy string", how: how, place: place,
                forms: [HARSecrets.Form(encoding: "raw", text: text)]))
        return text
    }

    /// The fuzzer's own bytes as text (adversarial mode), never holding a planted secret's form.
    private func wild() -> String {
        let count = pick(49)
        let text = String(decoding: (0..<count).map { _ in UInt8(byte()) }, as: UTF8.self)
        return HARSecrets.containsAnyForm(text) ? "wild" : text
    }

    // MARK: Free text

    /// Free text (a comment, a status text, a message): words, with secrets as free text holds them. It starts with a
    /// word: never JSON, never a URL, so that only MendCore's text engine reads it.
    private func prose(at place: String) -> String {
        var parts = [element(words)]
        for _ in 0..<pick(4) { parts.append(prosePart(at: place)) }
        return parts.joined(separator: " ")
    }

    private func prosePart(at place: String) -> String {
        switch pick(adversarial ? 13 : 11) {
        case 0, 1, 2: return plain()
        case 3:
            let secret = shapedSecret()
            return plant(secret, "raw in free text", at: place, as: secret.text)
        case 4:
            let name = element(HARSecrets.secretNames)
            let secret = self.secret(under: name)
            if secret.text.contains(where: \.isWhitespace) || flag() {
                return plant(
                    secret, "URL-encoded after \(name)= in free text", at: place,
                    as: "\(name)=\(HARSecrets.percentEncoded(secret.text))")
            }
            return plant(secret, "raw after \(name)= in free text", at: place, as: "\(name)=\(secret.text)")
        case 5:
            let name = element(HARSecrets.secretNames)
            let secret = self.secret(under: name)
            return plant(
                secret, "a JSON member \"\(name)\" in free text", at: place, as: "\"\(name)\": \"\(secret.text)\"")
        case 6:
            let name = element(HARSecrets.secretNames)
            let secret = self.secret(under: name)
            return plant(
                secret, "escaped JSON (JSON in a JSON string) under \(name) in free text", at: place,
                as: "{\\\"\(name)\\\":\\\"\(secret.text)\\\"}")
        case 7:
            let secret = anySecret(multiline: false)
            let token = secret.token
            let basic = HARSecrets.basic(token)
            return plant(secret, "a Basic credential in free text", at: place, as: basic.header, extra: basic.forms)
        case 8:
            let (secret, token) = schemeToken()
            let scheme = element(["Bearer", "DPoP", "OAuth", "bearer"])
            return plant(secret, "after \(scheme) in free text", at: place, as: "Authorization: \(scheme) \(token)")
        case 9:
            let name = element(HARSecrets.secretNames)
            let secret = self.secret(under: name)
            let host = element(HARSecrets.hosts)
            return plant(
                secret, "URL-encoded in a URL's query (\(name)) in free text", at: place,
                as: "https://\(host)/\(element(words))?\(element(words))=1&\(name)="
                    + HARSecrets.percentEncoded(secret.text))
        case 10: return plain()
        case 11: return random("in free text", at: place)
        default: return wild()
        }
    }

    // MARK: URLs

    /// A query's or a form's fields (decoded), some holding secrets.
    private func fields(at place: String) -> [(name: String, value: String)] {
        (0..<pick(4)).map { _ in field(at: place) }
    }

    private func field(at place: String) -> (name: String, value: String) {
        switch pick(adversarial ? 9 : 7) {
        case 0, 1:
            return (element(HARSecrets.words + ["fields", "limit", "after", "cursor", "locale"]), plain())
        case 2:
            let name = element(HARSecrets.secretNames)
            let secret = self.secret(under: name)
            return (name, plant(secret, "value of \(name)", at: "\(place)[\(name)]", as: secret.text))
        case 3:
            let name = element(words)
            let secret = shapedSecret()
            return (name, plant(secret, "token-shaped value of \(name)", at: "\(place)[\(name)]", as: secret.text))
        case 4:
            let name = element(words)
            return (name, prose(at: "\(place)[\(name)]"))
        case 5 where !place.hasSuffix("#") || allowed("plain", "JSON text in a fragment", place):
            let name = element(words)
            let object = wrapped("JSON text in the value of \(name)") { jsonObject(at: "\(place)[\(name)]", depth: 2) }
            return (name, JSONValue.object(object).jsonText())
        case 5, 6:
            let name = element(words)
            let secret = anySecret(multiline: false)
            let token = secret.token
            let basic = HARSecrets.basic(token)
            return (
                name,
                plant(
                    secret, "a Basic credential as \(name)", at: "\(place)[\(name)]", as: basic.header,
                    extra: basic.forms)
            )
        case 7:
            let name = element(words)
            return (name, random("value of \(name)", at: "\(place)[\(name)]"))
        default:
            return (element(words), wild())
        }
    }

    private static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { HARSecrets.percentEncoded($0.name) + "=" + HARSecrets.percentEncoded($0.value) }
            .joined(separator: "&")
    }

    /// An absolute URL, its query's fields (decoded, for `queryString`); secrets in its query and fragment, and (in
    /// adversarial mode) a token in its path.
    private func url(
        at place: String, fragment wantsFragment: Bool = false
    ) -> (text: String, query: [(String, String)]) {
        var path = "/" + element(words)
        switch pick(adversarial ? 4 : 3) {
        case 0: break
        case 1: path += allowed("plain", "a number in a URL's path", place) ? "/\(number())" : "/photo"
        case 2: path += "/" + element(words)
        default:
            let secret = shapedSecret(multiline: false)
            path +=
                "/"
                + plant(
                    secret, "percent-encoded in the URL's path", at: "\(place) (path)",
                    as: HARSecrets.percentEncoded(secret.text))
        }
        let query = wrapped("URL-encoded in the query") { fields(at: "\(place)?") }
        let fragment = wantsFragment || flag() ? wrapped("URL-encoded in the fragment") { fields(at: "\(place)#") } : []
        var text = "https://\(element(HARSecrets.hosts))\(path)"
        if !query.isEmpty { text += "?" + Self.encode(query) }
        if !fragment.isEmpty { text += "#" + Self.encode(fragment) }
        return (text, query)
    }

    // MARK: JSON

    /// A JSON object: plain members, members named as secrets (holding one), `_`-prefixed members, nested values.
    private func jsonObject(at place: String, depth: Int) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for _ in 0..<pick(4) {
            switch pick(5) {
            case 0, 1:
                let key = element(HARSecrets.keys)
                members[key] = jsonValue(name: key, scanName: key, at: "\(place).\(key)", depth: depth)
            case 2:
                let key = element(HARSecrets.secretNames)
                let secret = self.secret(under: key)
                members[key] = .string(plant(secret, "JSON value of \(key)", at: "\(place).\(key)", as: secret.text))
            case 3:
                let key = element(HARSecrets.extensionKeys)
                members[key] = jsonValue(name: key, scanName: key, at: "\(place).\(key)", depth: depth)
            default:
                let key = element(["headers", "_headers", "batch"])
                members[key] = .array((0..<pick(3)).map { index in pair(at: "\(place).\(key)[\(index)]") })
            }
        }
        return members
    }

    /// A `{"name": …, "value": …}` pair (a Graph batch part's header): read under its name.
    private func pair(at place: String) -> JSONValue {
        let (name, value) = flag() ? credentialHeader(at: place) : otherHeader(at: place)
        return .object(["name": .string(name), "value": .string(value)])
    }

    /// A JSON value under `name` (as the redactor reads it: "" in an array), `scanName` (as the scan does: an array's
    /// elements keep its name).
    private func jsonValue(name: String, scanName: String, at place: String, depth: Int) -> JSONValue {
        switch pick(depth >= 3 ? 5 : 8) {
        case 0, 1, 2: return .string(string(name: name, scanName: scanName, at: place))
        case 3: return .int(number())
        case 4: return element([.bool(true), .bool(false), .null, .double(1.5)])
        case 5: return .object(jsonObject(at: place, depth: depth + 1))
        case 6:
            return .array(
                (0..<pick(4)).map { index in
                    jsonValue(name: "", scanName: scanName, at: "\(place)[\(index)]", depth: depth + 1)
                })
        default:
            let object = wrapped("JSON text in a JSON string") { jsonObject(at: place, depth: depth + 1) }
            return .string(JSONValue.object(object).jsonText())
        }
    }

    /// A string in JSON under `name`.
    private func string(name: String, scanName: String, at place: String) -> String {
        if isSecretName(name) {
            let secret = self.secret(under: name)
            return plant(secret, "JSON value of \(name)", at: place, as: secret.text)
        }
        return under(scanName) { stringValue(at: place) }
    }

    private func stringValue(at place: String) -> String {
        switch pick(adversarial ? 11 : 8) {
        case 0, 1: return plain()
        case 2: return prose(at: place)
        case 3:
            let secret = shapedSecret()
            return plant(secret, "token-shaped JSON value", at: place, as: secret.text)
        case 4:
            let secret = anySecret(multiline: false)
            let token = secret.token
            let basic = HARSecrets.basic(token)
            return plant(secret, "a Basic credential as a JSON value", at: place, as: basic.header, extra: basic.forms)
        case 5:
            let (secret, token) = schemeToken()
            return plant(secret, "after Bearer as a JSON value", at: place, as: "Bearer \(token)")
        case 6, 7: return url(at: place).text
        case 8: return random("JSON value", at: place)
        default: return wild()
        }
    }

    // MARK: HAR objects

    /// A comment and `_`-prefixed fields, sometimes.
    private func decorate(_ object: inout [String: JSONValue], at place: String) {
        if pick(3) == 2 { object["comment"] = .string(prose(at: "\(place).comment")) }
        if pick(3) == 2 {
            for _ in 0...pick(2) {
                let key = element(HARSecrets.extensionKeys)
                object[key] = jsonValue(name: key, scanName: key, at: "\(place).\(key)", depth: 1)
            }
        }
    }

    private func credentialHeader(at place: String) -> (String, String) {
        let name = element(HARSecrets.credentialHeaders)
        let at = "\(place).\(name)"
        if adversarial, pick(6) == 0 { return (name, flag() ? random("value of \(name)", at: at) : wild()) }
        let secret = anySecret(multiline: false)
        let token = secret.token
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            switch pick(4) {
            case 0: return (name, plant(secret, "the \(name) header", at: at, as: secret.text))
            case 1:
                let basic = HARSecrets.basic(token)
                return (
                    name, plant(secret, "a Basic credential in \(name)", at: at, as: basic.header, extra: basic.forms)
                )
            case 2: return (name, plant(secret, "after Bearer in \(name)", at: at, as: "Bearer \(token)"))
            default: return (name, plant(secret, "after DPoP in \(name)", at: at, as: "DPoP \(token)"))
            }
        case "cookie":
            return (name, plant(secret, "a Cookie header's value", at: at, as: "sid=\(secret.text); theme=dark"))
        case "set-cookie":
            return (
                name,
                plant(secret, "a Set-Cookie header's value", at: at, as: "sid=\(secret.text); Path=/; HttpOnly; Secure")
            )
        default:
            return (name, plant(secret, "the \(name) header", at: at, as: secret.text))
        }
    }

    private func otherHeader(at place: String) -> (String, String) {
        let name = element(HARSecrets.otherHeaders)
        return (name, under(name) { otherHeaderValue(name, at: "\(place).\(name)") })
    }

    private func otherHeaderValue(_ name: String, at: String) -> String {
        if ["location", "referer"].contains(name.lowercased()), flag() { return url(at: at).text }
        switch pick(adversarial ? 8 : 6) {
        case 0, 1: return plain()
        case 2:
            let secret = shapedSecret(multiline: false)
            return plant(secret, "token-shaped value of \(name)", at: at, as: secret.text)
        case 3:
            let (secret, token) = schemeToken()
            return plant(secret, "after Bearer in \(name)", at: at, as: "Bearer \(token)")
        case 4: return prose(at: at).replacingOccurrences(of: "\n", with: " ")
        case 5: return url(at: at).text
        case 6: return random("value of \(name)", at: at)
        default: return wild()
        }
    }

    private func headers(at place: String) -> JSONValue {
        .array(
            (0..<pick(4)).map { index in
                let at = "\(place)[\(index)]"
                let (name, value) = flag() ? credentialHeader(at: at) : otherHeader(at: at)
                var object: [String: JSONValue] = ["name": .string(name), "value": .string(value)]
                decorate(&object, at: at)
                return .object(object)
            })
    }

    private func cookies(at place: String) -> JSONValue {
        .array(
            (0..<pick(3)).map { index in
                let at = "\(place)[\(index)]"
                let name = element(["sid", "session", "c_user", "xs", "fr", "datr"])
                let value: String
                if adversarial, pick(4) == 0 {
                    value = flag() ? random("a cookie's value", at: at) : wild()
                } else {
                    let secret = anySecret()
                    value = plant(secret, "a cookie's value", at: at, as: secret.text)
                }
                var object: [String: JSONValue] = ["name": .string(name), "value": .string(value)]
                if flag() {
                    object["path"] = .string("/")
                    object["domain"] = .string(".example.com")
                    object["httpOnly"] = .bool(true)
                    object["secure"] = .bool(flag())
                }
                decorate(&object, at: at)
                return .object(object)
            })
    }

    private func nameValues(_ fields: [(String, String)], at place: String) -> JSONValue {
        .array(
            fields.enumerated().map { index, field in
                var object: [String: JSONValue] = ["name": .string(field.0), "value": .string(field.1)]
                decorate(&object, at: "\(place)[\(index)]")
                return .object(object)
            })
    }

    private func request(at place: String) -> JSONValue {
        let (url, query) = wrapped("URL-encoded in request.url (and decoded in queryString)") {
            self.url(at: "\(place).url")
        }
        var request: [String: JSONValue] = [
            "method": .string(element(["GET", "POST", "DELETE"])), "url": .string(url),
            "httpVersion": .string("HTTP/1.1"),
            "cookies": cookies(at: "\(place).cookies"), "headers": headers(at: "\(place).headers"),
            "queryString": nameValues(query, at: "\(place).queryString"), "headersSize": .int(-1), "bodySize": .int(0),
        ]
        if flag() {
            var postData: [String: JSONValue]
            let at = "\(place).postData"
            switch pick(3) {
            case 0:
                let fields = wrapped("URL-encoded in a form body (decoded in params)") { self.fields(at: at) }
                postData = [
                    "mimeType": .string("application/x-www-form-urlencoded"), "text": .string(Self.encode(fields)),
                ]
                if flag() { postData["params"] = nameValues(fields, at: "\(at).params") }
            case 1:
                let object = wrapped("in a JSON body") { jsonObject(at: "\(at).text", depth: 1) }
                postData = [
                    "mimeType": .string("application/json"), "text": .string(JSONValue.object(object).jsonText()),
                ]
            default:
                postData = ["mimeType": .string("text/plain;charset=UTF-8"), "text": .string(prose(at: "\(at).text"))]
            }
            decorate(&postData, at: at)
            request["postData"] = .object(postData)
            request["bodySize"] = .int(postData["text"]?.stringValue?.utf8.count ?? 0)
        }
        decorate(&request, at: place)
        return .object(request)
    }

    private func content(at place: String) -> JSONValue {
        let mimeType = element([
            "application/json", "text/plain", "text/html; charset=utf-8", "application/x-www-form-urlencoded",
            "application/json; charset=UTF-8", "",
        ])
        let encoding = pick(5)
        let wrapper = ["", "", "base64 with padding", "base64 without padding", "base64 in MIME lines"][encoding]
        let body: () -> String = {
            if mimeType.contains("json") || mimeType.isEmpty && self.flag() {
                let object = self.wrapped("in a JSON body") { self.jsonObject(at: "\(place).text", depth: 1) }
                return JSONValue.object(object).jsonText()
            }
            if mimeType.contains("form") {
                return Self.encode(self.wrapped("URL-encoded in a form body") { self.fields(at: "\(place).text") })
            }
            return self.prose(at: "\(place).text")
        }
        var content: [String: JSONValue] = ["mimeType": .string(mimeType)]
        let text = wrapper.isEmpty ? body() : wrapped(wrapper, body)
        content["size"] = .int(text.utf8.count)
        switch encoding {
        case 2: content["text"] = .string(HARSecrets.base64(text))
        case 3: content["text"] = .string(HARSecrets.unpadded(HARSecrets.base64(text)))
        case 4: content["text"] = .string(HARSecrets.wrapped(HARSecrets.base64(text)))
        default: content["text"] = .string(text)
        }
        if encoding >= 2 { content["encoding"] = .string("base64") }
        decorate(&content, at: place)
        return .object(content)
    }

    private func response(at place: String) -> JSONValue {
        var response: [String: JSONValue] = [
            "status": .int(element([200, 302, 400, 401, 500])),
            "statusText": .string(flag() ? prose(at: "\(place).statusText") : "OK"), "httpVersion": .string("HTTP/1.1"),
            "cookies": cookies(at: "\(place).cookies"), "headers": headers(at: "\(place).headers"),
            "content": content(at: "\(place).content"), "redirectURL": .string(""), "headersSize": .int(-1),
            "bodySize": .int(-1),
        ]
        if flag() {
            response["redirectURL"] = .string(
                wrapped("URL-encoded in redirectURL") { url(at: "\(place).redirectURL").text })
        }
        decorate(&response, at: place)
        return .object(response)
    }

    private func entry(_ index: Int, pages: Int) -> JSONValue {
        let place = "log.entries[\(index)]"
        var entry: [String: JSONValue] = [
            "startedDateTime": .string("2027-01-15T08:00:0\(index).000Z"), "time": .int(number()),
            "request": request(at: "\(place).request"), "response": response(at: "\(place).response"),
            "cache": .object([:]),
            "timings": .object([
                "blocked": .int(-1), "dns": .int(-1), "connect": .int(-1), "send": .int(0), "wait": .int(5),
                "receive": .int(1), "ssl": .int(-1),
            ]),
        ]
        if pages > 0 { entry["pageref"] = .string("page_\(pick(pages))") }
        if flag() {
            entry["serverIPAddress"] = .string("127.0.0.1")
            entry["connection"] = .string("443")
        }
        if flag() {
            var cache: [String: JSONValue] = [:]
            decorate(&cache, at: "\(place).cache")
            entry["cache"] = .object(cache)
            var timings = entry["timings"]?.objectValue ?? [:]
            decorate(&timings, at: "\(place).timings")
            entry["timings"] = .object(timings)
        }
        if flag() {
            entry["_resourceType"] = .string("websocket")
            entry["_webSocketMessages"] = .array(
                (0..<(1 + pick(2))).map { message in
                    let at = "\(place)._webSocketMessages[\(message)].data"
                    let data: String
                    if flag() {
                        let object = wrapped("JSON text of a WebSocket message") { jsonObject(at: at, depth: 1) }
                        data = JSONValue.object(object).jsonText()
                    } else {
                        data = prose(at: at)
                    }
                    return .object([
                        "type": .string(flag() ? "send" : "receive"), "time": .double(1.5), "opcode": .int(1),
                        "data": .string(data),
                    ])
                })
        }
        decorate(&entry, at: place)
        return .object(entry)
    }

    private func page(_ index: Int) -> JSONValue {
        let place = "log.pages[\(index)]"
        let title: String
        switch pick(3) {
        case 0: title = plain()
        case 1:
            // Chromium writes the page's URL as its title, fragment included (an implicit grant's token).
            title = wrapped("URL-encoded in a page title's URL") { url(at: "\(place).title", fragment: true).text }
        default: title = wrapped("URL-encoded in a page title's URL") { url(at: "\(place).title").text }
        }
        var timings: [String: JSONValue] = ["onContentLoad": .int(number()), "onLoad": .int(number())]
        if flag() { decorate(&timings, at: "\(place).pageTimings") }
        var page: [String: JSONValue] = [
            "startedDateTime": .string("2027-01-15T08:00:0\(index).000Z"), "id": .string("page_\(index)"),
            "title": .string(title), "pageTimings": .object(timings),
        ]
        decorate(&page, at: place)
        return .object(page)
    }

    private func creator(at place: String) -> JSONValue {
        var creator: [String: JSONValue] = ["name": .string("WebInspector"), "version": .string("537.36")]
        decorate(&creator, at: place)
        return .object(creator)
    }

    /// The whole document.
    func document() -> JSONValue {
        let pageCount = pick(2)
        var log: [String: JSONValue] = ["version": .string("1.2"), "creator": creator(at: "log.creator")]
        if flag() { log["browser"] = creator(at: "log.browser") }
        if pageCount > 0 || flag() { log["pages"] = .array((0..<pageCount).map(page)) }
        log["entries"] = .array((0...pick(2)).map { entry($0, pages: pageCount) })
        decorate(&log, at: "log")
        var root: [String: JSONValue] = ["log": .object(log)]
        if flag() {
            let key = element(HARSecrets.extensionKeys)
            root[key] = jsonValue(name: key, scanName: key, at: "$.\(key)", depth: 1)
        }
        return .object(root)
    }
}

/// A deterministic generator (SplitMix64) for the random strings.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
