import Foundation
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendResponseStore
import MendTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `mend` executable, next to the test bundle.
enum MendExecutable {
    static var url: URL? { BuiltExecutable.url(named: "mend") }

    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = try #require(url)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Runs the executable to its end, waiting on a thread of its own (``BlockingWork``). `status` is the exit status,
    /// or the signal that killed it.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let (process, output) = try start(arguments)
        let reader = output.fileHandleForReading
        let data = await BlockingWork.run { reader.readDataToEndOfFile() }
        await process.exited()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

@Suite("Across processes", .enabled(if: MendExecutable.url != nil))
struct ProcessTests {
    /// How many kills per write stage: `MEND_KILL_ROUNDS` (250 per stage gives the 1,000-kill run), 25 by default.
    static let killRounds = Int(ProcessInfo.processInfo.environment["MEND_KILL_ROUNDS"] ?? "") ?? 25

    /// A writer dies (SIGKILL, by its own hand, at a named point of the write path: not a race) at each stage of a
    /// write, many times over. The store then holds exactly the last complete session — the one before the
    /// interrupted write, or the interrupted one once its rename is done — and never a corrupt or half-written file.
    @Test(
        "A writer killed at every stage of a write never leaves a corrupt or half-written store",
        arguments: ["opened", "midWrite", "synced", "renamed"])
    func crashSafety(stage: String) async throws {
        let url = temporaryDirectory().appendingPathComponent("session.json")
        var generator = SystemRandomNumberGenerator()
        let first = try await MendExecutable.run(["_store-writer", url.path, "--count", "1"])
        #expect(first.status == 0)
        for round in 0..<Self.killRounds {
            let before = try await FileTokenStore(url: url).read()?.generation ?? 0
            let onWrite = Int.random(in: 1...3, using: &generator)
            let (status, _) = try await MendExecutable.run([
                "_store-writer", url.path, "--count", "5", "--kill-at", stage, "--on-write", "\(onWrite)",
            ])
            #expect(status == SIGKILL, "round \(round): the writer was to die at \(stage), it ended with \(status)")
            let session = try #require(try await FileTokenStore(url: url).read(), "round \(round)")
            let interrupted = before + onWrite
            #expect(session.generation == (stage == "renamed" ? interrupted : interrupted - 1), "round \(round)")
            #expect(session.accessToken.tokenString == "EAAwriter\(session.generation)")
        }
    }

    /// The same for a response store: a writer of one request's answer dies at each stage of a write, and the store
    /// then holds the last complete answer — never a half-written one, never none once one was written.
    @Test(
        "A response store's writer killed at every stage of a write leaves the old answer or the new one",
        arguments: ["opened", "midWrite", "synced", "renamed"])
    func responseStoreCrashSafety(stage: String) async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let key = ResponseStoreKey(
            principal: Principal(subject: "writer", issuer: "backend"), method: "GET",
            resource: "https://api.example/me")
        func generation() async throws -> Int? {
            guard let answer = try await FileResponseStore(directory: folder).answer(for: key) else { return nil }
            let number = String(decoding: answer.body.prefix(while: { $0 != 0x20 }), as: UTF8.self)
            #expect(answer.body.count == number.utf8.count + 1 + 200_000, "a whole answer")
            return Int(number)
        }
        let first = try await MendExecutable.run(["_store-writer", folder.path, "--answers", "--count", "1"])
        #expect(first.status == 0)
        for round in 0..<Self.killRounds {
            let before = try await generation() ?? 0
            let onWrite = Int.random(in: 1...3)
            let (status, _) = try await MendExecutable.run([
                "_store-writer", folder.path, "--answers", "--count", "5", "--kill-at", stage, "--on-write",
                "\(onWrite)",
            ])
            #expect(status == SIGKILL, "round \(round): the writer was to die at \(stage), it ended with \(status)")
            let interrupted = before + onWrite
            #expect(try await generation() == (stage == "renamed" ? interrupted : interrupted - 1), "round \(round)")
        }
    }

    /// Three processes find the stored access token expired at once (the defaults: `validToken()`'s 60 s margin, a
    /// 900 s token from the server), or are told to refresh at once (`mend token refresh`). The backend rotates
    /// as mend-server does (`BackendRotation`), and a process that presented a token another had replaced would fail
    /// (the old lock shortcut did exactly that with 900 s tokens).
    ///
    /// With `firstAnswerLost`, the backend rotates on the first refresh and drops the connection without the answer.
    /// That process retries with the same refresh token, which mend-server's grace answers with the same successor.
    /// CI's loaded 2-core machine once did the same by itself: an answer later than the 9 s attempt timeout.
    @Test(
        "Three processes needing a fresh token at once never present a replaced refresh token, and converge",
        arguments: [["_refresh-once"], ["token", "refresh"]], [false, true])
    func threeProcessesConverge(command: [String], firstAnswerLost: Bool) async throws {
        let rotation = BackendRotation(first: "refresh-EAAsampleTokenAAAAAAAAAAAAAAA1")
        let answers = Locked(0)
        let directory = temporaryDirectory()
        try await LoopbackHTTPServer.withServer({ request in
            guard request.path.hasSuffix("/v1/session/refresh") else { return .json(404, "{}") }
            let presented = (try? JSONSerialization.jsonObject(with: request.body) as? [String: String])?[
                "refresh_token"]
            let stored = try? await FileTokenStore(url: directory.appendingPathComponent("session.json")).read()
            let rotated = rotation.rotate(presented, storedRefreshToken: stored?.refreshToken)
            let answer = answers.withLock { count -> Int in
                count += 1
                return count
            }
            // The backend committed the rotation; the answer is lost on the way (the process cannot tell).
            if firstAnswerLost, answer == 1 { return .drop }
            guard let count = rotated else {
                return .json(
                    401,
                    #"{"error":{"domain":"session","code":12,"message":"refresh token reuse detected","category":"recoverable","recovery":"reauthenticate"}}"#
                )
            }
            return .json(
                200,
                #"{"access_token":"EAArefreshed\#(count)","token_type":"Bearer","expires_in":900,"refresh_token":"r\#(count)","session_id":"ses_1","user":{"id":"u1"}}"#
            )
        }) { server in
            let backend = server.url("/").absoluteString
            try JSONSerialization.data(withJSONObject: [
                "provider": "facebook", "appID": "1", "backend": backend, "version": "v25.0",
            ]).write(to: directory.appendingPathComponent("profile.json"))
            var expired = Session(
                issuer: .backend,
                accessToken: AccessToken(
                    tokenString: "EAAsampleTokenAAAAAAAAAAAAAAA1", userID: "u1", permissions: ["email"],
                    expirationDate: Date().addingTimeInterval(-1)),
                refreshToken: "refresh-EAAsampleTokenAAAAAAAAAAAAAAA1", user: .init(id: "u1", name: "Ada"))
            expired.accessToken.refreshDate = Date().addingTimeInterval(-901)
            expired.familyID = "ses_1"
            try await FileTokenStore(url: directory.appendingPathComponent("session.json")).write(expired)
            let processes = try (0..<3).map { _ in
                try MendExecutable.start(command + ["--state-directory", directory.path])
            }
            for (process, _) in processes { await process.exited() }
            for (process, _) in processes { #expect(process.terminationStatus == 0) }
            #expect(rotation.refused == 0)
            if firstAnswerLost {
                // The process whose answer was lost retried with the same refresh token and got the same successor.
                #expect(rotation.replays >= 1)
            }
            let stored = try #require(
                try await FileTokenStore(url: directory.appendingPathComponent("session.json")).read())
            if command == ["_refresh-once"] {
                // The others find a fresh token in the store: one refresh.
                #expect(rotation.rotations == 1)
            } else {
                // A forced refresh adopts one finished after it was asked for, or refreshes again from the store.
                #expect((1...3).contains(rotation.rotations))
            }
            #expect(stored.accessToken.tokenString == "EAArefreshed\(rotation.rotations)")
            #expect(stored.refreshToken == "r\(rotation.rotations)")
            #expect(stored.familyID == "ses_1")
        }
    }

    @Test("mend login, whoami, token status and logout against mend emulate's in-process twin")
    func cliLogin() async throws {
        try await withEmulator { emulator in
            let directory = temporaryDirectory().path
            let appID = emulator.emulator.configuration.defaultApp.id
            let login = try await MendExecutable.run([
                "login", "--base-url", emulator.baseURL.absoluteString, "--app-id", appID, "--headless",
                "--state-directory", directory,
            ])
            #expect(login.status == 0, "\(login.output)")
            #expect(login.output.contains("Logged in as Alice Example"))
            let again = try await MendExecutable.run([
                "login", "--base-url", emulator.baseURL.absoluteString, "--app-id", appID, "--headless", "--json",
                "--state-directory", directory,
            ])
            #expect(again.status == 0, "\(again.output)")
            let result = try #require(
                try JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any], "\(again.output)")
            #expect(result["loggedIn"] as? Bool == true)
            #expect(result["cancelled"] as? Bool == false)
            #expect((result["user"] as? [String: Any])?["name"] as? String == "Alice Example")
            #expect((result["granted"] as? [String])?.contains("public_profile") == true)
            #expect(!again.output.contains("EAA"))
            let whoami = try await MendExecutable.run(["whoami", "--state-directory", directory])
            #expect(whoami.output.contains("Alice Example"))
            let status = try await MendExecutable.run(["token", "status", "--state-directory", directory])
            #expect(status.output.contains("<redacted>"))
            #expect(!status.output.contains("EAA"))
            let statusJSON = try await MendExecutable.run(["token", "status", "--json", "--state-directory", directory])
            #expect(statusJSON.status == 0, "\(statusJSON.output)")
            let fields = try #require(
                try JSONSerialization.jsonObject(with: Data(statusJSON.output.utf8)) as? [String: Any])
            #expect(fields["loggedIn"] as? Bool == true)
            #expect((fields["user"] as? [String: Any])?["name"] as? String == "Alice Example")
            #expect(fields["expired"] as? Bool == false)
            #expect((fields["permissions"] as? [String])?.contains("public_profile") == true)
            #expect(fields["refreshable"] as? Bool != nil)
            #expect(fields["expiresAt"] is String)
            #expect(!statusJSON.output.contains("EAA"))
            let logout = try await MendExecutable.run(["logout", "--state-directory", directory])
            #expect(logout.output.contains("revoked"))
            let after = try await MendExecutable.run(["whoami", "--state-directory", directory])
            #expect(after.status != 0)
            let statusAfter = try await MendExecutable.run([
                "token", "status", "--json", "--state-directory", directory,
            ])
            #expect(statusAfter.status == 4)  // ExitCodes.notLoggedIn
            #expect(statusAfter.output.contains("\"loggedIn\":false"))
        }
    }
}

/// A refresh endpoint's rotation, as `mend-server`'s: only the current refresh token rotates; the token it replaced
/// is answered with the same successor again while that successor is unused (the grace in which a client whose answer
/// was lost retries, `RefreshRotation.decide`); any other token is reuse, refused.
///
/// The server cannot tell a lost answer's retry from a process that presents a token another process replaced — the
/// bug this test is for. The test can: a process that got the answer stored it before releasing the store's lock, so
/// a replay while the store already holds the successor is that bug, and is counted as refused.
final class BackendRotation: @unchecked Sendable {
    // Safe: every field is only touched under the lock.
    private let lock = NSLock()
    private var current: String
    private var replaced: String?
    private var count = 0
    private var replayCount = 0
    private var refusedCount = 0

    init(first: String) { current = first }

    /// The answer's number (the successor's), or `nil` when `presented` is refused. `storedRefreshToken` is the refresh
    /// token the store holds as the request arrives.
    func rotate(_ presented: String?, storedRefreshToken: String?) -> Int? {
        lock.withLock {
            if presented == current {
                replaced = current
                count += 1
                current = "r\(count)"
                return count
            }
            if presented != nil, presented == replaced, storedRefreshToken != current {
                replayCount += 1
                return count
            }
            refusedCount += 1
            return nil
        }
    }

    var rotations: Int { lock.withLock { count } }
    var replays: Int { lock.withLock { replayCount } }
    var refused: Int { lock.withLock { refusedCount } }
}
