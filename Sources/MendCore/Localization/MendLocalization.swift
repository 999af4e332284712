public import Foundation

/// The localized user-facing text of every catalog entry and recovery action.
///
/// Mend ships English, German, Spanish, French and Japanese. The tables are compiled in (not resource bundles),
/// so localization works the same on Linux and Apple platforms and never depends on where a binary is installed.
public enum MendLocalization {
    /// The languages Mend ships, as language codes; English is the fallback.
    public static let supportedLanguages = ["en", "de", "es", "fr", "ja"]

    /// A user-facing title and message.
    package struct Message: Sendable, Hashable {
        /// A short title (an alert's headline).
        package var title: String
        /// One or two sentences that say what happened and what the person can do.
        package var message: String

        /// Creates a message.
        package init(title: String, message: String) {
            self.title = title
            self.message = message
        }
    }

    /// The user-facing text of a recovery action.
    package struct RecoveryText: Sendable, Hashable {
        /// The suggestion (`NSLocalizedRecoverySuggestionErrorKey`), or `nil` when there is nothing to suggest.
        package var suggestion: String?
        /// The option labels (`NSLocalizedRecoveryOptionsErrorKey`); when there are two or more, the last cancels.
        package var options: [String]

        /// Creates recovery text.
        package init(suggestion: String?, options: [String]) {
            self.suggestion = suggestion
            self.options = options
        }
    }

    /// One language's strings.
    package struct Table: Sendable {
        /// The language code.
        package var language: String
        /// Messages by key.
        package var messages: [MendError.MessageKey: Message]
        /// Recovery text by action.
        package var recoveries: [MendError.Recovery.Action: RecoveryText]
        /// Labels used around errors (`"Reference"`).
        package var labels: [Label: String]
    }

    /// Labels that renderings of errors use.
    package enum Label: String, Sendable, Hashable, CaseIterable {
        /// "Reference", shown before a reference id.
        case reference
    }

    /// Every shipped table, by language code.
    package static let tables: [String: Table] = [
        "en": english, "de": german, "es": spanish, "fr": french, "ja": japanese,
    ]

    /// The messages apps registered (``register(_:)``), by language tag.
    private static let registered = Locked(MendMessages.empty)

    /// Adds `messages` to every user-facing text Mend renders from now on, in this process: new languages, or the
    /// app's own words for some keys of a shipped one (see ``MendMessages`` for the keys and what wins). Texts
    /// registered before for the same language and key are replaced; others stay.
    public static func register(_ messages: MendMessages) {
        registered.withLock { $0.merge(messages) }
    }

    /// Every message an app registered (``register(_:)``).
    package static var registeredMessages: MendMessages { registered.withLock { $0 } }

    /// The text of every base key (see ``MendMessages``) in `language`, as Mend shows it: the app's registered text,
    /// else Mend's own, else English. A messages file to translate starts from this.
    package static func texts(language: String) -> [String: String] {
        var texts: [String: String] = [:]
        for key in english.messages.keys {
            let message = message(key, language: language)
            texts[key.rawValue] = message.message
            texts["\(key.rawValue).title"] = message.title
        }
        for action in english.recoveries.keys {
            let recovery = recovery(action, language: language)
            if let suggestion = recovery.suggestion { texts["recovery.\(action.rawValue)"] = suggestion }
            for (index, option) in recovery.options.enumerated() {
                texts["recovery.\(action.rawValue).options.\(index)"] = option
            }
        }
        for label in Label.allCases { texts["label.\(label.rawValue)"] = self.label(label, language: language) }
        return texts
    }

    /// The languages apps registered messages for (``register(_:)``), as normalized tags (`pt`, `pt-br`), sorted.
    package static var registeredLanguages: [String] { registered.withLock { $0.languages } }

    /// The languages Mend can show: the shipped ones, then the registered ones.
    package static var availableLanguages: [String] {
        supportedLanguages + registeredLanguages.filter { !supportedLanguages.contains($0) }
    }

    /// The available language that best matches `locale`: a registered tag equal to the locale's (`pt-br`), then its
    /// language code (`pt`) when shipped or registered, else English.
    package static func language(for locale: Locale) -> String {
        let code =
            locale.language.languageCode?.identifier.lowercased()
            ?? String(locale.identifier.prefix(2)).lowercased()
        let languages = registeredLanguages
        if let tag = normalizedTag(locale.identifier), languages.contains(tag) { return tag }
        if let region = locale.region?.identifier, languages.contains("\(code)-\(region.lowercased())") {
            return "\(code)-\(region.lowercased())"
        }
        return supportedLanguages.contains(code) || languages.contains(code) ? code : "en"
    }

    /// The language to use when none is given: the first of the process's preferred languages that Mend ships or an
    /// app registered.
    ///
    /// On Linux, `LC_ALL`, `LC_MESSAGES`, `LANGUAGE` and `LANG` are read in that order, as gettext does.
    public static var preferredLanguage: String {
        let environment = ProcessInfo.processInfo.environment
        for variable in ["LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"] {
            guard let value = environment[variable], !value.isEmpty else { continue }
            let tag = String(value.prefix { $0.isLetter || $0 == "_" || $0 == "-" })
            let code = String(tag.prefix { $0.isLetter }).lowercased()
            if code == "c" || code == "posix" { break }
            let language = self.language(for: Locale(identifier: tag))
            if language != "en" || code == "en" { return language }
        }
        for identifier in Locale.preferredLanguages {
            let code = language(for: Locale(identifier: identifier))
            if code != "en" || identifier.lowercased().hasPrefix("en") { return code }
        }
        return "en"
    }

    /// `tag` lowercased with `-` between subtags (`pt_BR` → `pt-br`), or `nil` when it is not a language tag
    /// (2–3 letters, then subtags of 1–8 letters or digits).
    package static func normalizedTag(_ tag: String) -> String? {
        let parts = tag.lowercased().split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return nil }
        for part in parts.dropFirst() {
            guard (1...8).contains(part.count), part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                return nil
            }
        }
        return parts.joined(separator: "-")
    }

    static func table(for language: String) -> Table {
        tables[language] ?? tables[String(language.prefix { $0 != "-" })] ?? english
    }

    /// The text of an app's registered key, if any, trying `language` and then its language code.
    private static func registeredText(_ keys: [String], language: String) -> String? {
        let code = String(language.prefix { $0 != "-" })
        let languages = code == language ? [language] : [language, code]
        return registered.withLock { messages in
            for language in languages {
                for key in keys { if let text = messages.text(key, language: language) { return text } }
            }
            return nil
        }
    }

    /// The keys that name `error` alone, most specific first: `graph/190/463`, `graph/190`; none for a security
    /// error, whose text stays its generic message key's.
    private static func errorKeys(_ error: MendError) -> [String] {
        guard !error.isSecuritySensitive else { return [] }
        let code = error.code.description
        return error.subcode.map { ["\(code)/\($0.rawValue)", code] } ?? [code]
    }

    /// The title of `error` in `language`: the app's text for the error or for its message key, else Mend's.
    static func title(for error: MendError, language: String) -> String {
        let keys = errorKeys(error).map { "\($0).title" } + ["\(error.messageKey.rawValue).title"]
        return registeredText(keys, language: language) ?? builtInMessage(error.messageKey, language: language).title
    }

    /// The message of `error` in `language`: the app's text for the error or for its message key, else Mend's.
    static func message(for error: MendError, language: String) -> String {
        registeredText(errorKeys(error) + [error.messageKey.rawValue], language: language)
            ?? builtInMessage(error.messageKey, language: language).message
    }

    static func message(_ key: MendError.MessageKey, language: String) -> Message {
        Message(
            title: registeredText(["\(key.rawValue).title"], language: language)
                ?? builtInMessage(key, language: language).title,
            message: registeredText([key.rawValue], language: language)
                ?? builtInMessage(key, language: language).message)
    }

    private static func builtInMessage(_ key: MendError.MessageKey, language: String) -> Message {
        table(for: language).messages[key] ?? english.messages[key] ?? english.messages[.generic]!
    }

    static func recovery(_ action: MendError.Recovery.Action, language: String) -> RecoveryText {
        let builtIn =
            table(for: language).recoveries[action] ?? english.recoveries[action] ?? english.recoveries[.none]!
        let prefix = "recovery.\(action.rawValue)"
        let suggestion = builtIn.suggestion.map { registeredText([prefix], language: language) ?? $0 }
        let options = builtIn.options.indices.map { index in
            registeredText(["\(prefix).options.\(index)"], language: language)
        }
        // The options come all from the app or all from Mend (a half-translated set of buttons reads badly).
        let registeredOptions = options.compactMap { $0 }
        return RecoveryText(
            suggestion: suggestion,
            options: registeredOptions.count == builtIn.options.count ? registeredOptions : builtIn.options)
    }

    static func label(_ label: Label, language: String) -> String {
        registeredText(["label.\(label.rawValue)"], language: language)
            ?? table(for: language).labels[label] ?? english.labels[label] ?? label.rawValue
    }
}

extension MendError.MessageKey {
    /// The key's localized title for `locale`: the app's registered text first, then Mend's.
    package func title(locale: Locale = .current) -> String {
        MendLocalization.message(self, language: MendLocalization.language(for: locale)).title
    }

    /// The key's localized message for `locale`: the app's registered text first, then Mend's.
    package func message(locale: Locale = .current) -> String {
        MendLocalization.message(self, language: MendLocalization.language(for: locale)).message
    }
}
