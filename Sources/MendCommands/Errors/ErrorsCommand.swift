import ArgumentParser
import Foundation
import MendCore
import MendEmulator

/// `mend errors`: the error catalog.
struct ErrorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors",
        abstract: "Show Mend's error catalog.",
        subcommands: [ListCommand.self, MessagesCommand.self],
        defaultSubcommand: ListCommand.self
    )

    /// `mend errors list`.
    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print every catalog entry (the documentation page is this command's --markdown).")

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @Flag(name: .long, help: "Print the Markdown page docs/errors.md.")
        var markdown = false

        @Flag(
            name: .long, help: "Print whole lines, however wide (the text fits the terminal, or 80 columns, otherwise)."
        )
        var wide = false

        @OptionGroup var language: LanguageOptions

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Only this domain: "
                    + ErrorCatalog.everySpace.domains.map(\.rawValue).joined(separator: ", ") + "."))
        var domain: String?

        func validate() throws {
            guard !(json && markdown) else { throw ValidationError("Choose one of --json and --markdown.") }
            if let domain, !ErrorCatalog.everySpace.domains.map(\.rawValue).contains(domain) {
                throw ValidationError(
                    "--domain must be one of: \(ErrorCatalog.everySpace.domains.map(\.rawValue).joined(separator: ", "))."
                )
            }
        }

        func run() throws {
            let locale = try language.resolve(fallback: markdown ? "en" : nil)
            let listing = CatalogListing(
                catalog: .everySpace, locale: locale, domain: domain.map(MendError.Domain.init(rawValue:)))
            if json {
                print(ErrorReport.json(listing.rows))
            } else if markdown {
                print(listing.markdown(), terminator: "")
            } else {
                print(listing.text(width: wide ? nil : TextLayout.terminalWidth))
            }
        }
    }

    /// `mend errors messages`: every message key with its text, as a messages file to translate.
    struct MessagesCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "messages",
            abstract: "Print every message key with its text in one language, as a --messages file to translate.",
            discussion: """
                The output is a messages file, {locale: {key: text}}: translate the texts, change the locale, and \
                register it in the app (MendLocalization.register) or pass it to --messages. Keys per error \
                (graph/190, graph/190/463, with .title) may be added; see MendMessages.

                Examples:
                  mend errors messages > pt.json
                  mend errors messages --messages pt.json --locale pt --missing
                """)

        @OptionGroup var language: LanguageOptions

        @Flag(name: .long, help: "Print only the keys the language lacks (English shows for them), one per line.")
        var missing = false

        func run() throws {
            let locale = try language.resolve(fallback: "en")
            let tag = MendLocalization.language(for: locale)
            if missing {
                let registered = MendLocalization.registeredMessages
                for key in registered.missingKeys(for: tag) { print(key) }
                return
            }
            let texts = MendLocalization.texts(language: tag)
            print(JSONValue.object([tag: .object(texts.mapValues(JSONValue.string))]).jsonText(pretty: true))
        }
    }
}
