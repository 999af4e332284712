import ArgumentParser
import Foundation
import MendServer

/// `mend-server env`: lists the environment variables of the configuration, with their defaults.
struct EnvironmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "env", abstract: "List the environment variables of the configuration, with their defaults.")

    @Flag(name: .long, help: "Print the Markdown table of docs/server.md.")
    var markdown = false

    func run() {
        print(ServerConfiguration.environmentTable(markdown: markdown))
    }
}
