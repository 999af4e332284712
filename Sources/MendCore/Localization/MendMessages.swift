public import Foundation

/// User-facing texts an app adds to Mend's: more languages, or its own words for some errors.
///
/// Mend ships English, German, Spanish, French and Japanese (``MendLocalization/supportedLanguages``). An app
/// registers more with ``MendLocalization/register(_:)``; from then on, every user title, message, recovery
/// suggestion and option of every error (``MendError/userMessage(locale:)``, NSError bridging, the CLI) uses them.
///
/// The texts come as `{locale: {key: text}}` — a JSON file (``init(json:)``, ``init(contentsOf:)``) or, on Apple
/// platforms, the app's String Catalog (``init(bundle:table:)``). The keys:
///
/// | key | text |
/// |---|---|
/// | `sessionExpired` | the message of every error whose message key is `sessionExpired` |
/// | `sessionExpired.title` | its title |
/// | `graph/190`, `graph/190.title` | the message and title of one error code, whatever its subcode |
/// | `graph/190/463`, `graph/190/463.title` | … of one code and subcode |
/// | `recovery.reauthenticate` | a recovery action's suggestion |
/// | `recovery.reauthenticate.options.0`, `.1`, … | its option labels (as many as English has; the last cancels) |
/// | `label.reference` | the word shown before a reference id ("Reference") |
///
/// The message keys are ``MendError/MessageKey``'s (`mend errors messages` prints every key with its English text).
/// A text the app does not give falls back to Mend's own text in that language, then to English: for each text,
/// the most specific key wins (code and subcode, then code, then message key), and an app's text wins over Mend's.
/// Security errors (a forged state, an invalid id_token) ignore per-error keys: they show their message key's
/// generic text, which an app can translate like any other.
///
/// ```swift
/// let messages = try MendMessages(contentsOf: Bundle.main.url(forResource: "mend-messages", withExtension: "json")!)
/// MendLocalization.register(messages)
/// error.userMessage(locale: Locale(identifier: "pt-BR"))  // the app's Portuguese
/// ```
public struct MendMessages: Sendable, Hashable {
    /// No texts.
    static let empty = MendMessages(uncheckedTexts: [:])

    private init(uncheckedTexts: [String: [String: String]]) { texts = uncheckedTexts }

    /// Adds `other`'s texts, replacing these where both give the same language and key.
    mutating func merge(_ other: MendMessages) {
        texts.merge(other.texts) { mine, theirs in mine.merging(theirs) { _, new in new } }
    }

    /// The texts by language tag (lowercased, `-` between subtags: `pt`, `pt-br`), then by key.
    package private(set) var texts: [String: [String: String]]

    /// The largest messages file read (1 MiB).
    public static let maximumSize = 1 << 20

    /// Why a set of messages was refused.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the language and key.
        public var reason: String

        /// The reason, prefixed so that it reads on its own.
        public var description: String { "Invalid Mend messages: \(reason)" }
    }

    /// Messages from texts by language and key, checked: every language a language tag, every key one Mend
    /// knows (see the type's documentation), every text non-empty and without control characters, and a
    /// recovery's options complete.
    ///
    /// - Throws: ``Invalid`` naming the first problem.
    public init(_ texts: [String: [String: String]]) throws(Invalid) {
        var normalized: [String: [String: String]] = [:]
        for (tag, entries) in texts {
            guard let language = MendLocalization.normalizedTag(tag) else {
                throw Invalid(reason: "'\(tag)' is not a language tag (such as pt or pt-BR).")
            }
            for (key, text) in entries {
                guard Self.isKnownKey(key) else {
                    throw Invalid(
                        reason: "\(tag): '\(key)' is not a key Mend knows (see `mend errors messages` for the keys).")
                }
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty,
                    !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                else { throw Invalid(reason: "\(tag): the text of '\(key)' is empty or has control characters.") }
            }
            for action in MendError.Recovery.Action.known {
                let prefix = "recovery.\(action.rawValue).options."
                let given = entries.keys.filter { $0.hasPrefix(prefix) }
                let count = MendLocalization.english.recoveries[action]?.options.count ?? 0
                guard given.isEmpty || Set(given) == Set((0..<count).map { "\(prefix)\($0)" }) else {
                    throw Invalid(
                        reason: "\(tag): recovery.\(action.rawValue) needs all of its \(count) options "
                            + "(\(prefix)0 to \(prefix)\(count - 1)), or none.")
                }
            }
            normalized[language, default: [:]].merge(entries) { _, new in new }
        }
        self.texts = normalized
    }

    /// Messages from a JSON object `{"pt": {"sessionExpired": "Sua sessão expirou…", …}, …}`.
    ///
    /// - Throws: ``Invalid`` when the data is larger than ``maximumSize``, is not such an object of strings, or
    ///   fails the checks of ``init(_:)``.
    public init(json data: Data) throws(Invalid) {
        guard data.count <= Self.maximumSize else {
            throw Invalid(reason: "the file is larger than \(Self.maximumSize) bytes.")
        }
        let parsed = JSONValue.parse(data, maxBytes: Self.maximumSize)
        if case .failure(.duplicateMember(let name)) = parsed {
            throw Invalid(reason: "an object in it names \"\(name)\" twice.")
        }
        guard case .success(let value) = parsed, let languages = value.objectValue else {
            throw Invalid(reason: "it is not a JSON object of languages.")
        }
        var texts: [String: [String: String]] = [:]
        for (tag, entries) in languages {
            guard let object = entries.objectValue else {
                throw Invalid(reason: "\(tag): not an object of keys and texts.")
            }
            for (key, text) in object {
                guard let text = text.stringValue else { throw Invalid(reason: "\(tag): '\(key)' is not a string.") }
                texts[tag, default: [:]][key] = text
            }
        }
        try self.init(texts)
    }

    /// Messages from a JSON file (see ``init(json:)``).
    ///
    /// - Throws: ``Invalid`` when the file cannot be read or is refused.
    public init(contentsOf url: URL) throws(Invalid) {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > Self.maximumSize {
                throw Invalid(reason: "\(url.lastPathComponent) is larger than \(Self.maximumSize) bytes.")
            }
            data = try Data(contentsOf: url)
        } catch let invalid as Invalid {
            throw invalid
        } catch {
            throw Invalid(reason: "\(url.lastPathComponent) cannot be read (\(error.localizedDescription)).")
        }
        try self.init(json: data)
    }

    /// Messages from a bundle's string tables: `<language>.lproj/<table>.strings` for each of the bundle's
    /// localizations, with the keys of the type's documentation. An Xcode String Catalog (`Mend.xcstrings`) builds
    /// into exactly these tables; a `.strings` file written by hand works too (on Linux as well).
    ///
    /// - Parameters:
    ///   - bundle: The bundle (`Bundle.main`, `Bundle.module`).
    ///   - table: The table's name (`Mend` for `Mend.xcstrings` or `Mend.strings`).
    /// - Throws: ``Invalid`` when a table cannot be read or is refused.
    public init(bundle: Bundle, table: String = "Mend") throws(Invalid) {
        var texts: [String: [String: String]] = [:]
        for localization in bundle.localizations where localization != "Base" {
            guard
                let url = bundle.url(
                    forResource: table, withExtension: "strings", subdirectory: nil, localization: localization)
            else { continue }
            guard let data = try? Data(contentsOf: url), data.count <= Self.maximumSize,
                let list = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: String]
            else { throw Invalid(reason: "\(localization).lproj/\(table).strings is not a table of strings.") }
            texts[localization] = list
        }
        try self.init(texts)
    }

    /// The languages these messages cover, sorted.
    package var languages: [String] { texts.keys.sorted() }

    /// The message keys, recovery keys and labels of `language` that neither these messages nor Mend's own table of
    /// that language give, sorted: what a translation still lacks (English shows for them). Per-error keys are
    /// never missing.
    package func missingKeys(for language: String) -> [String] {
        let tag = MendLocalization.normalizedTag(language) ?? language
        let builtIn = MendLocalization.tables[tag]
        let given = texts[tag] ?? [:]
        return Self.baseKeys.filter { key in given[key] == nil && !Self.hasBuiltIn(key, in: builtIn) }.sorted()
    }

    /// Every key that is not per error: message keys and their titles, recovery suggestions and options, labels.
    static var baseKeys: [String] {
        let english = MendLocalization.english
        var keys: [String] = []
        for key in english.messages.keys { keys += [key.rawValue, "\(key.rawValue).title"] }
        for (action, text) in english.recoveries {
            if text.suggestion != nil { keys.append("recovery.\(action.rawValue)") }
            keys += text.options.indices.map { "recovery.\(action.rawValue).options.\($0)" }
        }
        keys += MendLocalization.Label.allCases.map { "label.\($0.rawValue)" }
        return keys
    }

    private static func hasBuiltIn(_ key: String, in table: MendLocalization.Table?) -> Bool {
        guard let table else { return false }
        if key.hasPrefix("label.") { return true }
        if key.hasPrefix("recovery.") { return true }
        let name = key.hasSuffix(".title") ? String(key.dropLast(6)) : key
        return table.messages[MendError.MessageKey(rawValue: name)] != nil
    }

    private static let knownBaseKeys = Set(baseKeys)

    /// Whether `key` is a base key or a per-error key (`domain/code`, `domain/code/subcode`, either with `.title`).
    static func isKnownKey(_ key: String) -> Bool {
        if knownBaseKeys.contains(key) { return true }
        let name = key.hasSuffix(".title") ? key.dropLast(6) : Substring(key)
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            !part.isEmpty && part.count <= 12 && part.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }

    /// The app's text for `key` in `language`, if it gave one.
    func text(_ key: String, language: String) -> String? {
        texts[language]?[key]
    }
}
