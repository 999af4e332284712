import Foundation
import MendCore

/// Resolves `--locale` values.
enum LocaleOption {
    /// The locale for `identifier`, or the process's preferred language. Unsupported languages fall back to English
    /// with a note on standard error.
    static func resolve(_ identifier: String?) -> Locale {
        guard let identifier else { return Locale(identifier: MendLocalization.preferredLanguage) }
        let locale = Locale(identifier: identifier)
        let language = MendLocalization.language(for: locale)
        if language == "en", !identifier.lowercased().hasPrefix("en") {
            StandardError.write(
                "note: no messages in '\(identifier)'; using English. Available: "
                    + MendLocalization.supportedLanguages.joined(separator: ", ") + ".")
        }
        return locale
    }
}
