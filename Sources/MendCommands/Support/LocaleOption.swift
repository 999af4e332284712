import ArgumentParser
import Foundation
import MendCore

/// `--locale` and `--messages`: the language of user messages, and an app's messages file that adds languages or
/// its own texts (``MendMessages``).
struct LanguageOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The language of user messages: en, de, es, fr, ja, or one that --messages adds (pt, pt-BR…).")
    var locale: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A JSON file of messages, {locale: {key: text}}: more languages, or other texts for some errors.",
            discussion: "The keys are listed by 'mend errors messages'.", valueName: "file"))
    var messages: String?

    /// Registers `--messages` and resolves `--locale` (or `fallback`). A file that cannot be read or is refused ends
    /// the command with the reason and exit code 65 (bad input).
    func resolve(fallback: String? = nil) throws -> Locale {
        if let messages {
            do {
                MendLocalization.register(try MendMessages(contentsOf: URL(fileURLWithPath: messages)))
            } catch {
                StandardError.write("error: --messages: \(error.reason)")
                throw ExitCode(ExitCodes.badInput)
            }
        }
        return LocaleOption.resolve(locale ?? fallback)
    }
}

/// Resolves `--locale` values.
enum LocaleOption {
    /// The locale for `identifier`, or the process's preferred language. A language neither shipped nor registered
    /// falls back to English with a note on standard error.
    static func resolve(_ identifier: String?) -> Locale {
        guard let identifier else { return Locale(identifier: MendLocalization.preferredLanguage) }
        let locale = Locale(identifier: identifier)
        let language = MendLocalization.language(for: locale)
        if language == "en", !identifier.lowercased().hasPrefix("en") {
            StandardError.write(
                "note: no messages in '\(identifier)'; using English. Available: "
                    + MendLocalization.availableLanguages.joined(separator: ", ") + ".")
        }
        return locale
    }
}
