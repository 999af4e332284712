import ArgumentParser
import Foundation
import MendLogin

/// `mend _store-writer`: writes sessions to a file store in a loop, for the crash-safety test (which kills it
/// mid-write). Hidden: a test instrument, not a feature.
struct StoreWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_store-writer", abstract: "Write sessions to a file store in a loop (a test instrument).",
        shouldDisplay: false)

    @Argument(help: "The session file.")
    var path: String

    @Option(help: "How many writes (0: until killed).")
    var count = 0

    func run() async throws {
        let store = FileTokenStore(url: URL(fileURLWithPath: path))
        var generation = 0
        while count == 0 || generation < count {
            generation += 1
            // A large session, so that writes take long enough to be interrupted.
            let padding = String(repeating: "x", count: 200_000)
            let session = Session(
                issuer: .backend,
                accessToken: AccessToken(tokenString: "EAAwriter\(generation)", userID: padding),
                refreshToken: "refresh-\(generation)", user: .init(id: "writer", name: padding), generation: generation)
            try await store.withExclusiveAccess { try await store.write(session) }
            if generation == 1 { FileHandle.standardOutput.write(Data("first write done\n".utf8)) }
        }
    }
}

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
