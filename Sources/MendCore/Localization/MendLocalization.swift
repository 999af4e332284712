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

    /// The shipped language that best matches `locale` (by language code), or English.
    public static func language(for locale: Locale) -> String {
        let code =
            locale.language.languageCode?.identifier.lowercased()
            ?? String(locale.identifier.prefix(2)).lowercased()
        return supportedLanguages.contains(code) ? code : "en"
    }

    /// The language to use when none is given: the first of the process's preferred languages that Mend ships.
    ///
    /// On Linux, `LC_ALL`, `LC_MESSAGES`, `LANGUAGE` and `LANG` are read in that order, as gettext does.
    public static var preferredLanguage: String {
        let environment = ProcessInfo.processInfo.environment
        for variable in ["LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"] {
            guard let value = environment[variable], !value.isEmpty else { continue }
            let code = String(value.prefix { $0.isLetter }).lowercased()
            if code == "c" || code == "posix" { break }
            if supportedLanguages.contains(code) { return code }
        }
        for identifier in Locale.preferredLanguages {
            let code = language(for: Locale(identifier: identifier))
            if code != "en" || identifier.lowercased().hasPrefix("en") { return code }
        }
        return "en"
    }

    static func table(for language: String) -> Table {
        tables[language] ?? english
    }

    static func message(_ key: MendError.MessageKey, language: String) -> Message {
        table(for: language).messages[key] ?? english.messages[key] ?? english.messages[.generic]!
    }

    static func recovery(_ action: MendError.Recovery.Action, language: String) -> RecoveryText {
        table(for: language).recoveries[action] ?? english.recoveries[action] ?? english.recoveries[.none]!
    }

    static func label(_ label: Label, language: String) -> String {
        table(for: language).labels[label] ?? english.labels[label] ?? label.rawValue
    }
}
