import ArgumentParser
import Foundation
import MendCore
import MendEmulator

/// `mend errors`: the error catalog.
struct ErrorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors",
        abstract: "Show Mend's error catalog.",
        subcommands: [ListCommand.self],
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

        @Option(name: .long, help: "The language of user messages: en, de, es, fr or ja.")
        var locale: String?

        @Option(name: .long, help: "Only this domain: login, graph, rest, graphql, http or transport.")
        var domain: String?

        func validate() throws {
            guard !(json && markdown) else { throw ValidationError("Choose one of --json and --markdown.") }
            if let domain, !ErrorCatalog.everySpace.domains.map(\.rawValue).contains(domain) {
                throw ValidationError(
                    "--domain must be one of: \(ErrorCatalog.everySpace.domains.map(\.rawValue).joined(separator: ", "))."
                )
            }
        }

        func run() {
            let locale = LocaleOption.resolve(locale ?? (markdown ? "en" : nil))
            let listing = CatalogListing(
                catalog: .everySpace, locale: locale, domain: domain.map(MendError.Domain.init(rawValue:)))
            if json {
                print(ErrorReport.json(listing.rows))
            } else if markdown {
                print(listing.markdown(), terminator: "")
            } else {
                print(listing.text())
            }
        }
    }
}
