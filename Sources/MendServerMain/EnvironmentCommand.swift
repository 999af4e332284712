import ArgumentParser
import Foundation
import MendServer

/// `mend-server env`: lists the environment variables of the configuration.
struct EnvironmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "env", abstract: "List the environment variables of the configuration.")

    func run() {
        for variable in ServerConfiguration.environmentVariables {
            print("\(variable.name.padding(toLength: 30, withPad: " ", startingAt: 0)) \(variable.meaning)")
        }
    }
}
