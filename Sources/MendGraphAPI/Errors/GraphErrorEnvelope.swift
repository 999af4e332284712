public import MendCore

/// The fields of the provider's error envelope, `{"error": {"message", "type", "code", "error_subcode", …}}`,
/// including the legacy top-level `error_code` / `error_msg` / `error_reason` shape.
public struct GraphErrorEnvelope: Sendable, Hashable {
    /// `message` (or, in legacy bodies, `error_reason`, then `error_msg`).
    public var message: String?
    /// `type`: `OAuthException`, `GraphMethodException`, `GraphBatchException`, …
    package var type: String?
    /// `code`.
    public var code: Int
    /// `error_subcode`.
    package var subcode: Int?
    /// `error_user_title`: already localized for the user.
    package var userTitle: String?
    /// `error_user_msg`: already localized for the user.
    package var userMessage: String?
    /// `fbtrace_id`: the support reference.
    package var traceID: String?
    /// `is_transient`: when true, the error is transient whatever its code.
    package var isTransient: Bool

    /// Reads the envelope from a parsed body, or returns `nil` when the body is not a Graph error.
    public init?(json: JSONValue) {
        if let error = json["error"], error.objectValue != nil {
            guard let code = error["code"]?.intValue else { return nil }
            self.code = code
            self.message =
                Self.text(error["message"]) ?? Self.text(error["error_reason"]) ?? Self.text(error["error_msg"])
            self.type = Self.text(error["type"])
            self.subcode = error["error_subcode"]?.intValue
            self.userTitle = Self.text(error["error_user_title"])
            self.userMessage = Self.text(error["error_user_msg"])
            self.traceID = Self.text(error["fbtrace_id"])
            self.isTransient = error["is_transient"]?.boolValue ?? false
        } else if let code = json["error_code"]?.intValue {
            // Legacy REST-era shape.
            self.code = code
            self.message = Self.text(json["error_reason"]) ?? Self.text(json["error_msg"])
            self.type = Self.text(json["error_type"])
            self.subcode = json["error_subcode"]?.intValue
            self.userTitle = Self.text(json["error_user_title"])
            self.userMessage = Self.text(json["error_user_msg"])
            self.traceID = Self.text(json["fbtrace_id"])
            self.isTransient = json["is_transient"]?.boolValue ?? false
        } else {
            return nil
        }
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue, !string.isEmpty else { return nil }
        return String(string.prefix(2000))
    }

    /// The permissions a permission error names (`(#200) Requires extended permission: publish_actions`,
    /// `… the pages_read_engagement permission …`), in order, without duplicates.
    public var missingPermissions: [String] {
        guard let message else { return [] }
        var found: [String] = []
        let words = message.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        for (index, word) in words.enumerated() {
            let lowered = word.lowercased()
            guard lowered == "permission" || lowered == "permissions" else { continue }
            // "permission: name" / "permission(s) name, name" after the word …
            var next = index + 1
            while next < words.count, Self.looksLikePermission(words[next]) {
                found.append(words[next])
                next += 1
            }
            // … or "the name permission" before it.
            if index > 0, Self.looksLikePermission(words[index - 1]) { found.append(words[index - 1]) }
        }
        var seen = Set<String>()
        return found.filter { seen.insert($0).inserted }
    }

    /// Permission names are lower snake case with at least one underscore (`user_posts`) or one of the few
    /// single-word permissions.
    private static func looksLikePermission(_ word: String) -> Bool {
        let singleWord: Set<String> = ["email", "publish_actions", "public_profile"]
        if singleWord.contains(word) { return true }
        return word.contains("_") && word == word.lowercased() && word.first?.isLetter == true
    }
}
