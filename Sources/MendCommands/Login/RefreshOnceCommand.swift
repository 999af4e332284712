import ArgumentParser
import Foundation
import MendLogin

/// `mend _refresh-once`: gets a usable token from the stored session (refreshing it through its backend when it is
/// expired or about to be), with the defaults an app gets, for the several-process test. Hidden.
struct RefreshOnceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_refresh-once",
        abstract: "Get a usable token from a stored session, refreshing it if needed (a test instrument).",
        shouldDisplay: false)

    @Option(name: .long, help: "Where the session is kept.")
    var stateDirectory: String

    func run() async throws {
        guard let (credentials, _) = try await LoginProfile.credentials(directory: URL(fileURLWithPath: stateDirectory))
        else {
            throw ExitCode(2)
        }
        let token = try await credentials.validToken()
        print(token.expirationDate.map { "valid until \($0.timeIntervalSince1970)" } ?? "valid")
    }
}
