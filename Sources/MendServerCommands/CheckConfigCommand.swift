import ArgumentParser
import MendServer

/// `mend-server check-config`: reads and validates the configuration, then exits (78 with the variable at fault).
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and exit (status 78 with the variable at fault).")

    @OptionGroup var listening: ListeningOptions

    func run() throws {
        _ = try ServerCommandSupport.loadConfiguration(listening)
        print("configuration ok")
    }
}
