import ArgumentParser
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin
import MendResponseStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `mend _store-writer`: writes sessions to a file store in a loop, for the crash-safety test. With `--kill-at STAGE
/// --on-write N` it kills itself (SIGKILL) when the Nth write reaches that stage: a crash at a named point of the write
/// path, not a race. With `--answers`, the path is a response store's folder, and the writes are answers to one
/// request (`FileResponseStore`). Hidden: a test instrument, not a feature.
struct StoreWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_store-writer", abstract: "Write sessions to a file store in a loop (a test instrument).",
        shouldDisplay: false)

    @Argument(help: "The session file.")
    var path: String

    @Option(help: "How many writes (0: until killed).")
    var count = 0

    @Option(help: "The write stage to die at: opened, midWrite, synced or renamed.")
    var killAt: String?

    @Option(help: "Which write (1-based) dies at --kill-at.")
    var onWrite = 1

    @Flag(help: "Write answers to a response store in the folder at the path, not sessions.")
    var answers = false

    /// The request whose answer `--answers` rewrites.
    static let answerKey = ResponseStoreKey(
        principal: Principal(subject: "writer", issuer: "backend"), method: "GET", resource: "https://api.example/me")

    func run() async throws {
        let url = URL(fileURLWithPath: path)
        let stage = try killAt.map { name in
            guard let stage = FileTokenStore.WriteStage(rawValue: name) else {
                throw ValidationError("--kill-at takes one of: \(FileTokenStore.WriteStage.allCases.map(\.rawValue))")
            }
            return stage
        }
        let writes = Locked(0)
        let observe: @Sendable (FileTokenStore.WriteStage) -> Void = { [onWrite] reached in
            if reached == .opened { writes.withLock { $0 += 1 } }
            if reached == stage, writes.current == onWrite { kill(getpid(), SIGKILL) }
        }
        if answers {
            try await writeAnswers(to: FileResponseStore(directory: url, observeWrite: observe))
            return
        }
        let store = FileTokenStore(url: url, observeWrite: observe)
        // Resume numbering from what is stored, so the test can tell which write a crash interrupted.
        var generation = try await store.read()?.generation ?? 0
        let last = count == 0 ? Int.max : generation + count
        while generation < last {
            generation += 1
            // A large session, so that a write spans many system calls.
            let padding = String(repeating: "x", count: 200_000)
            let session = Session(
                issuer: .backend,
                accessToken: AccessToken(tokenString: "EAAwriter\(generation)", userID: padding),
                refreshToken: "refresh-\(generation)", user: .init(id: "writer", name: padding), generation: generation)
            try await store.withExclusiveAccess { try await store.write(session) }
            if generation == 1 { FileHandle.standardOutput.write(Data("first write done\n".utf8)) }
        }
    }

    /// Rewrites the answer of ``answerKey``: `generation N` and a large padding, N one more each time.
    private func writeAnswers(to store: FileResponseStore) async throws {
        var generation = 0
        if let stored = try await store.answer(for: Self.answerKey) {
            generation = Int(String(decoding: stored.body.prefix(while: { $0 != 0x20 }), as: UTF8.self)) ?? 0
        }
        let last = count == 0 ? Int.max : generation + count
        while generation < last {
            generation += 1
            let body = Data("\(generation) ".utf8) + Data(repeating: 0x78, count: 200_000)
            try await store.store(
                StoredAnswer(status: 200, headerFields: [:], body: body, storedAt: Date()), for: Self.answerKey)
            if generation == 1 { FileHandle.standardOutput.write(Data("first write done\n".utf8)) }
        }
    }
}
