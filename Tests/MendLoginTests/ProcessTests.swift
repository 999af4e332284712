import Foundation
import MendCore
import MendEmulator
import MendLogin
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

    /// Runs the executable to its end, waiting on a thread of its own: blocking a task thread could starve an
    /// in-process server (the emulator) that the executable talks to.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let (process, output) = try start(arguments)
        return await withCheckedContinuation { continuation in
            Thread {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }.start()
        }
    }

    /// Waits for `process` to end on a thread of its own.
    static func wait(_ process: Process) async {
        await withCheckedContinuation { continuation in
            Thread {
                process.waitUntilExit()
                continuation.resume()
            }.start()
        }
    }
}

@Suite("Across processes", .enabled(if: MendExecutable.url != nil))
struct ProcessTests {
    @Test("A writer killed mid-write never leaves a corrupt or half-written store", arguments: 0..<8)
    func crashSafety(round: Int) async throws {
        let url = temporaryDirectory().appendingPathComponent("session.json")
        let (process, output) = try MendExecutable.start(["_store-writer", url.path])
        // Wait until the first write is complete (the writer says so), then let it write a few more and kill it.
        let reader = output.fileHandleForReading
        await withCheckedContinuation { continuation in
            Thread {
                _ = reader.availableData
                continuation.resume()
            }.start()
        }
        for _ in 0..<(round * 3) { await Task.yield() }
        kill(process.processIdentifier, SIGKILL)
        await MendExecutable.wait(process)
        let session = try #require(try await FileTokenStore(url: url).read())
        #expect(session.accessToken.tokenString == "EAAwriter\(session.generation)")
        #expect(session.generation >= 1)
    }

    @Test("Two processes refreshing one stored session at once make one refresh")
    func twoProcessesOneRefresh() async throws {
        let refreshes = RefreshCounter()
        try await LoopbackHTTPServer.withServer({ request in
            guard request.path.hasSuffix("/v1/session/refresh") else { return .json(404, "{}") }
            let count = refreshes.increment()
            return .json(
                200,
                #"{"access_token":"EAArefreshed\#(count)","token_type":"Bearer","expires_in":7200,"refresh_token":"r\#(count)","user":{"id":"u1"}}"#
            )
        }) { server in
            let directory = temporaryDirectory()
            let backend = server.url("/").absoluteString
            try JSONSerialization.data(withJSONObject: [
                "provider": "facebook", "appID": "1", "backend": backend, "version": "v25.0",
            ]).write(to: directory.appendingPathComponent("profile.json"))
            try await FileTokenStore(url: directory.appendingPathComponent("session.json"))
                .write(sampleSession(expiresIn: 60))
            let first = try MendExecutable.start(["_refresh-once", "--state-directory", directory.path])
            let second = try MendExecutable.start(["_refresh-once", "--state-directory", directory.path])
            for (process, _) in [first, second] { await MendExecutable.wait(process) }
            #expect(first.0.terminationStatus == 0)
            #expect(second.0.terminationStatus == 0)
            #expect(refreshes.value == 1)
            let stored = try #require(
                try await FileTokenStore(url: directory.appendingPathComponent("session.json")).read())
            #expect(stored.accessToken.tokenString == "EAArefreshed1")
            #expect(stored.refreshToken == "r1")
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
            let whoami = try await MendExecutable.run(["whoami", "--state-directory", directory])
            #expect(whoami.output.contains("Alice Example"))
            let status = try await MendExecutable.run(["token", "status", "--state-directory", directory])
            #expect(status.output.contains("<redacted>"))
            #expect(!status.output.contains("EAA"))
            let logout = try await MendExecutable.run(["logout", "--state-directory", directory])
            #expect(logout.output.contains("revoked"))
            let after = try await MendExecutable.run(["whoami", "--state-directory", directory])
            #expect(after.status != 0)
        }
    }
}

final class RefreshCounter: @unchecked Sendable {
    // Safe: guarded by the lock.
    private let lock = NSLock()
    private var count = 0
    func increment() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    var value: Int { lock.withLock { count } }
}
