import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// The built `mend-server` binary, as an operator runs it: configured from the environment, ready line, SIGTERM.
@Suite struct ExecutableTests {
    static var binary: URL? { BuiltExecutable.url(named: "mend-server") }

    /// Runs the binary to its end, waiting on a thread of its own (``BlockingWork``).
    static func run(
        _ arguments: [String], environment: [String: String]
    ) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try #require(binary, "build the mend-server product first")
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let reader = output.fileHandleForReading
        let data = await BlockingWork.run { reader.readDataToEndOfFile() }
        await process.exited()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The environment of a server in front of `emulator`, its SQLite database in `directory`.
    static func serverEnvironment(_ emulator: RunningEmulator, directory: URL) -> [String: String] {
        let app = emulator.emulator.configuration.defaultApp
        return [
            "MEND_APP_ID": app.id, "MEND_APP_SECRET": app.secret,
            "MEND_REDIRECT_URIS": "https://app.example/callback",
            "MEND_GRAPH_URL": emulator.baseURL.absoluteString, "MEND_PORT": "0",
            "DATABASE_URL": "sqlite://\(directory.path)/mend.sqlite",
            "MEND_SIGNING_KEYS": SigningKeyConfiguration.generate(keyID: "k1").environmentValue,
        ]
    }

    /// Starts the binary as a server and waits for its ready line; returns it, its port and what it has written.
    static func start(
        _ arguments: [String] = [], environment: [String: String]
    ) async throws -> (Process, Int, LockedValue<String>) {
        let process = Process()
        process.executableURL = try #require(Self.binary, "build the mend-server product first")
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        let (lines, continuation) = AsyncStream<String>.makeStream()
        let collected = LockedValue("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                continuation.finish()
                handle.readabilityHandler = nil
                return
            }
            let text = String(decoding: data, as: UTF8.self)
            collected.mutate { $0 += text }
            continuation.yield(text)
        }
        try process.run()
        var seen = ""
        for await chunk in lines {
            seen += chunk
            if seen.contains("mend-server ready"), let port = seen.firstMatch(of: /port=(\d+)/).flatMap({ Int($0.1) }) {
                return (process, port, collected)
            }
        }
        process.terminate()
        Issue.record("no ready line: \(seen)")
        throw CancellationError()
    }

    @Test func generatesKeysAndChecksTheConfiguration() async throws {
        let key = try await Self.run(["generate-key", "ES256"], environment: [:])
        #expect(key.status == 0)
        let parsed = try SigningKeyConfiguration.parse(list: key.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(parsed.first?.algorithm == .es256)

        let missing = try await Self.run(["check-config"], environment: ["MEND_APP_ID": "1"])
        #expect(missing.status == 78)
        #expect(missing.output.contains("MEND_APP_SECRET"))

        let fine = try await Self.run(
            ["check-config"],
            environment: ["MEND_APP_ID": "1", "MEND_APP_SECRET": "x", "MEND_REDIRECT_URIS": "https://a.example/cb"])
        #expect(fine.status == 0)
        let variables = try await Self.run(["env"], environment: [:])
        #expect(variables.output.contains("DATABASE_URL"))
    }

    @Test func helpListsTheSubcommandsAndUsageErrorsExit64() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let help = try await Self.run(arguments, environment: [:])
            #expect(help.status == 0, "\(arguments)")
            for subcommand in ["serve", "generate-key", "check-config", "env"] {
                #expect(help.output.contains(subcommand), "\(arguments): \(help.output)")
            }
        }
        let serveHelp = try await Self.run(["serve", "--help"], environment: [:])
        #expect(serveHelp.status == 0)
        #expect(serveHelp.output.contains("SIGTERM"))

        // EX_USAGE: an unknown subcommand, an unknown flag, an unknown algorithm.
        let unknown = try await Self.run(["frobnicate"], environment: [:])
        #expect(unknown.status == 64)
        #expect(unknown.output.contains("frobnicate"))
        #expect(try await Self.run(["--frobnicate"], environment: [:]).status == 64)
        let algorithm = try await Self.run(["generate-key", "RS256"], environment: [:])
        #expect(algorithm.status == 64)
        #expect(algorithm.output.contains("unknown algorithm 'RS256'"))
        let lowercase = try await Self.run(["generate-key", "eddsa"], environment: [:])
        #expect(lowercase.status == 0)
        #expect(lowercase.output.contains(":EdDSA:"))
    }

    @Test func aBadConfigurationExits78() async throws {
        let valid = ["MEND_APP_ID": "1", "MEND_APP_SECRET": "x", "MEND_REDIRECT_URIS": "https://a.example/cb"]
        for (name, value) in [("MEND_PORT", "eighty"), ("MEND_PORT", "70000"), ("MEND_GRAPH_URL", "not a url")] {
            let result = try await Self.run(["check-config"], environment: valid.merging([name: value]) { $1 })
            #expect(result.status == 78, "\(name)=\(value): \(result.output)")
            #expect(result.output.contains("mend-server: configuration:"))
            #expect(result.output.contains(name))
        }
        // Serving with a bad configuration fails the same way, before it binds anything.
        let serve = try await Self.run([], environment: valid.merging(["MEND_PORT": "eighty"]) { $1 })
        #expect(serve.status == 78)
        #expect(serve.output.contains("MEND_PORT"))
        let missingFile = try await Self.run(
            ["check-config"], environment: ["MEND_CONFIG_FILE": "/nonexistent/mend-\(UUID().uuidString).json"])
        #expect(missingFile.status == 78)
        #expect(missingFile.output.contains("MEND_CONFIG_FILE"))
    }

    @Test("check-config and serve refuse a value they cannot honour, and name an unknown MEND_* name's closest one")
    func refusesWhatItCannotHonour() async throws {
        let valid = ["MEND_APP_ID": "1", "MEND_APP_SECRET": "x", "MEND_REDIRECT_URIS": "https://a.example/cb"]
        // Each of these was "configuration ok" before (issue 40): the level, the URI and the size silently ignored
        // or raised.
        for (name, value, says) in [
            ("MEND_LOG_LEVEL", "loud", "'loud' is not a log level"),
            ("MEND_REDIRECT_URIS", "notaurl", "'notaurl' is not an absolute URI"),
            ("MEND_REDIRECT_URIS", "https://a.example/cb#part", "without a fragment"),
            ("MEND_MAX_BODY_SIZE", "10", "MEND_MAX_BODY_SIZE must be a number of at least 1024, not 10"),
            ("MEND_PROVIDER_MAX_ATTEMPTS", "0", "MEND_PROVIDER_MAX_ATTEMPTS must be a number of at least 1, not 0"),
            ("MEND_REFRESH_TOKEN_TTL", "soon", "MEND_REFRESH_TOKEN_TTL 'soon' is not a duration"),
        ] {
            let result = try await Self.run(["check-config"], environment: valid.merging([name: value]) { $1 })
            #expect(result.status == 78, "\(name)=\(value): \(result.output)")
            #expect(
                result.output.contains("mend-server: configuration: ") && result.output.contains(says),
                "\(name)=\(value): \(result.output)")
        }
        // The log level in any case; the typo is a warning with the closest name, and the rest is read.
        let typo = try await Self.run(
            ["check-config"], environment: valid.merging(["MEND_PROT": "9000", "MEND_LOG_LEVEL": "DEBUG"]) { $1 })
        #expect(typo.status == 0, "\(typo.output)")
        #expect(
            typo.output.contains(
                "mend-server: warning: MEND_PROT (environment) is not a mend-server variable: did you mean MEND_PORT?"),
            "\(typo.output)")
        // The mend tool's and the test command's own names are Mend's, not typos.
        let others = try await Self.run(
            ["check-config"], environment: valid.merging(["MEND_ACCESS_TOKEN": "t", "MEND_ONLY_TESTS": "A"]) { $1 })
        #expect(others.status == 0 && !others.output.contains("warning"), "\(others.output)")
        // --port wins over MEND_PORT, and is read as strictly.
        let port = try await Self.run(
            ["check-config", "--port", "70000"], environment: valid.merging(["MEND_PORT": "8080"]) { $1 })
        #expect(port.status == 78 && port.output.contains("MEND_PORT must be a number from 0 to 65535, not 70000"))
        #expect(
            try await Self.run(["check-config", "--port", "0"], environment: valid.merging(["MEND_PORT": "x"]) { $1 })
                .status == 0)
    }

    @Test("PostgreSQL that cannot be reached: where and why, in words, never the password or PostgresNIO's text")
    func unreachablePostgreSQL() async throws {
        // Port 1: nothing listens there. Before (issue 40): "PSQLError – Generic description to prevent accidental
        // leakage of sensitive data".
        let result = try await Self.run(
            [],
            environment: [
                "MEND_APP_ID": "1", "MEND_APP_SECRET": "x", "MEND_REDIRECT_URIS": "https://a.example/cb",
                "DATABASE_URL": "postgres://mend:pg-s3cret-pw@127.0.0.1:1/mend", "MEND_PORT": "0",
            ])
        #expect(result.status == 1, "\(result.output)")
        #expect(
            result.output.contains(
                "mend-server: cannot use the database (postgres 127.0.0.1:1/mend): could not connect: "
                    + "the connection was refused (nothing listens there)"), "\(result.output)")
        for leak in ["pg-s3cret-pw", "PSQLError", "Generic description", "errno"] {
            #expect(!result.output.contains(leak), "\(leak): \(result.output)")
        }
    }

    @Test("--host and --port serve where they say, over MEND_HOST and MEND_PORT")
    func hostAndPortFlags() async throws {
        try await withEmulator { emulator in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mend-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var environment = Self.serverEnvironment(emulator, directory: directory)
            environment["MEND_PORT"] = "not-a-port"  // never read: --port wins
            environment["MEND_HOST"] = "192.0.2.1"  // TEST-NET-1: cannot be bound here
            let (process, port, collected) = try await Self.start(
                ["--host", "127.0.0.1", "--port", "0"], environment: environment)
            defer { process.terminate() }
            let client = ServerClient(URL(string: "http://127.0.0.1:\(port)")!)
            _ = try await client.get("/health/live")
            #expect(collected.value.contains("host=127.0.0.1"), "\(collected.value)")
        }
    }

    @Test("README's mend-server command works as written (its secret file made as its comment says)")
    func theReadmeCommandWorks() async throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## The login backend: `mend-server`").last)
        let block = try #require(
            section.components(separatedBy: "```sh\n").dropFirst().first?
                .components(separatedBy: "```").first)
        // The first command, its continuation lines joined.
        let command = try #require(
            block.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
                .first { $0.contains("swift run --traits Server mend-server") })
        let words = command.split(separator: " ")
        let assignments = words.prefix { $0.contains("=") && !$0.hasPrefix("-") }
        #expect(
            words.dropFirst(assignments.count).prefix(5).joined(separator: " ")
                == "swift run --traits Server mend-server")
        var environment: [String: String] = [:]
        for assignment in assignments {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mend-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try #require(environment["MEND_APP_SECRET_FILE"], "the command names its secret's file")
        #expect(!secretFile.hasPrefix("/"), "a path a newcomer can create where they stand: \(secretFile)")
        try Data("readme-app-secret\n".utf8).write(to: directory.appendingPathComponent(secretFile))

        let process = Process()
        process.executableURL = try #require(Self.binary, "build the mend-server product first")
        process.arguments = ["check-config"]
        process.environment = environment
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let reader = output.fileHandleForReading
        let data = await BlockingWork.run { reader.readDataToEndOfFile() }
        await process.exited()
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(environment.keys.sorted()): \(text)")
        #expect(text.contains("configuration ok"))
    }

    @Test func servesLoginsAndStopsOnSIGTERM() async throws {
        try await withEmulator { emulator in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mend-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let app = emulator.emulator.configuration.defaultApp
            let (process, serverPort, collected) = try await Self.start(
                environment: Self.serverEnvironment(emulator, directory: directory))
            let client = ServerClient(URL(string: "http://127.0.0.1:\(serverPort)")!)
            _ = try await client.get("/health/ready")
            let body = try await emulator.loginCodeBody()
            let code = try #require(body["code"]?.stringValue)
            let verifier = try #require(body["code_verifier"]?.stringValue)
            let session = try await client.post("/v1/login/code", json: body).json()
            let access = try #require(session["access_token"]?.stringValue)
            _ = try await client.get("/v1/session", bearer: access)

            process.terminate()  // SIGTERM
            await process.exited()
            #expect(process.terminationStatus == 0)
            let log = collected.value
            #expect(log.contains("request_id"))
            #expect(!log.contains(access))
            #expect(!log.contains(code))
            #expect(!log.contains(verifier))
            #expect(!log.contains(app.secret))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("mend.sqlite").path))
        }
    }

    @Test("mend-server admin: new-token offline, then every subcommand against the running server's admin API")
    func adminCommands() async throws {
        let made = try await Self.run(["admin", "new-token", "ops"], environment: [:])
        #expect(made.status == 0)
        let token = try #require(made.output.firstMatch(of: /token: (mend_admin_[A-Za-z0-9_-]{43})\n/)?.1)
        let entry = try #require(made.output.firstMatch(of: /entry: (ops:sha256:[0-9a-f]{64})\n/)?.1)
        #expect(try await Self.run(["admin", "new-token", "no spaces"], environment: [:]).status == 64)
        try await withEmulator { emulator in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mend-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var environment = Self.serverEnvironment(emulator, directory: directory)
            environment["MEND_ADMIN_TOKENS"] = String(entry)
            let (process, port, collected) = try await Self.start(environment: environment)
            defer { process.terminate() }
            let client = ServerClient(URL(string: "http://127.0.0.1:\(port)")!)
            let session = try await client.post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
            let userID = try #require(session["user"]?["id"]?.stringValue)
            let sessionID = try #require(session["session_id"]?.stringValue)
            let admin = ["MEND_ADMIN_URL": "http://127.0.0.1:\(port)", "MEND_ADMIN_TOKEN": String(token)]

            let users = try await Self.run(["admin", "users", "100000000000001"], environment: admin)
            #expect(users.status == 0 && users.output.hasPrefix(userID), "\(users.output)")
            let json = try await Self.run(["admin", "users", "--json"], environment: admin)
            #expect((try? JSONValue.parse(Data(json.output.utf8)).get())?["users"]?.arrayValue?.count == 1)
            let user = try await Self.run(["admin", "user", userID], environment: admin)
            #expect(user.output.contains("identity facebook 100000000000001") && user.output.contains(sessionID))
            let ended = try await Self.run(
                ["admin", "end-session", sessionID, "--reason", "lost phone"], environment: admin)
            #expect(ended.status == 0 && ended.output == "session ended\n")
            let refused = await client.failure { try await client.refresh(session["refresh_token"]) }
            #expect(refused?.isSession(.Session.revoked) == true)
            #expect(
                try await Self.run(["admin", "logout-user", userID], environment: admin).output
                    == "sessions ended: 0\n")
            let audit = try await Self.run(["admin", "audit", "--event", "admin_action"], environment: admin)
            #expect(audit.output.contains("admin_action") && audit.output.contains("actor=ops"))
            #expect(audit.output.contains("detail=end_session: lost phone"))
            #expect(try await Self.run(["admin", "delete-user", userID], environment: admin).status == 64)
            let deleted = try await Self.run(["admin", "delete-user", userID, "--yes"], environment: admin)
            #expect(deleted.status == 0 && deleted.output.contains("revoked at: facebook"), "\(deleted.output)")

            // Refusals: an unknown user, a wrong token, no token.
            let unknown = try await Self.run(["admin", "user", userID], environment: admin)
            #expect(unknown.status == 1 && unknown.output.contains("rest.404.notFound"))
            var wrong = admin
            wrong["MEND_ADMIN_TOKEN"] = "mend_admin_wrong"
            let refusedToken = try await Self.run(["admin", "users"], environment: wrong)
            #expect(refusedToken.status == 1 && refusedToken.output.contains("rest.401.accessDenied"))
            let noToken = try await Self.run(
                ["admin", "users"], environment: ["MEND_ADMIN_URL": admin["MEND_ADMIN_URL"]!])
            #expect(noToken.status == 78 && noToken.output.contains("MEND_ADMIN_TOKEN"))
            // The token never reaches the server's log.
            #expect(!collected.value.contains(String(token)))
        }
    }
}

/// Collects what a process writes and lets a test wait for a line, an event rather than a time.
final class LogWatch: Sendable {
    private let state = LockedValue<(text: String, ended: Bool, waiters: [(String, CheckedContinuation<Bool, Never>)])>(
        ("", false, []))

    /// Everything written so far.
    var text: String { state.value.text }

    /// Adds what the process wrote, and wakes the waits it satisfies.
    func append(_ chunk: String) {
        var ready: [CheckedContinuation<Bool, Never>] = []
        state.mutate { state in
            state.text += chunk
            let text = state.text
            ready = state.waiters.filter { text.contains($0.0) }.map(\.1)
            state.waiters.removeAll { text.contains($0.0) }
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// The process closed its output: the waits still open will not be satisfied.
    func end() {
        var left: [CheckedContinuation<Bool, Never>] = []
        state.mutate { state in
            state.ended = true
            left = state.waiters.map(\.1)
            state.waiters = []
        }
        for continuation in left { continuation.resume(returning: false) }
    }

    /// Waits until the output contains `needle`; `false` when the process ended first.
    func wait(for needle: String) async -> Bool {
        await withCheckedContinuation { continuation in
            var answer: Bool?
            state.mutate { state in
                if state.text.contains(needle) {
                    answer = true
                } else if state.ended {
                    answer = false
                } else {
                    state.waiters.append((needle, continuation))
                }
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }
}

/// `mend-server serve` drains on SIGTERM: `/health/ready` answers 503 at once while everything else is still served
/// for `MEND_DRAIN_DELAY`; then the listener closes and the process exits 0. A second signal stops it at once.
@Suite struct DrainTests {
    /// Starts the binary with `environment` and waits for its ready line: the process, its port, its output.
    static func start(environment: [String: String]) async throws -> (Process, Int, LogWatch) {
        let process = Process()
        process.executableURL = try #require(ExecutableTests.binary, "build the mend-server product first")
        process.environment = environment
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        let watch = LogWatch()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                watch.end()
                return
            }
            watch.append(String(decoding: data, as: UTF8.self))
        }
        try process.run()
        guard await watch.wait(for: "mend-server ready"),
            let port = watch.text.firstMatch(of: /port=(\d+)/).flatMap({ Int($0.1) })
        else {
            process.terminate()
            Issue.record("no ready line: \(watch.text)")
            throw CancellationError()
        }
        return (process, port, watch)
    }

    /// A server in front of `emulator` with `MEND_DRAIN_DELAY=delay`, its database in a directory of its own.
    static func withServer(
        drainDelay: String, _ body: (Process, ServerClient, LogWatch) async throws -> Void
    ) async throws {
        try await withEmulator { emulator in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mend-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var environment = ExecutableTests.serverEnvironment(emulator, directory: directory)
            environment["MEND_DRAIN_DELAY"] = drainDelay
            let (process, port, watch) = try await start(environment: environment)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }  // when a check threw
            try await body(process, ServerClient(URL(string: "http://127.0.0.1:\(port)")!), watch)
        }
    }

    @Test("SIGTERM: ready answers 503 (Mend error shape) at once, the rest is served; a second signal stops it")
    func readinessFailsFirstAndASecondSignalStopsAtOnce() async throws {
        // A delay no test run reaches: the process can only end early through the second signal.
        try await Self.withServer(drainDelay: "600s") { process, client, watch in
            _ = try await client.get("/health/ready")
            kill(process.processIdentifier, SIGTERM)
            #expect(await watch.wait(for: "draining"), "\(watch.text)")

            let refused = await client.failure { try await client.get("/health/ready") }
            #expect(refused?.httpStatus == 503, "\(String(describing: refused))")
            #expect(refused?.code == .HTTP.serviceUnavailable, "\(String(describing: refused))")
            #expect(refused?.developerMessage.contains("shutting down") == true)
            #expect(try await client.get("/health/live").json()["status"]?.stringValue == "ok")
            #expect(try await client.get("/.well-known/jwks.json").json()["keys"]?.arrayValue?.isEmpty == false)
            #expect(process.isRunning)

            kill(process.processIdentifier, SIGTERM)
            await process.exited()
            #expect(process.terminationReason == .exit, "\(watch.text)")
            #expect(process.terminationStatus == 0, "\(watch.text)")
            #expect(watch.text.contains("second signal"), "\(watch.text)")
        }
    }

    @Test("SIGTERM with a short delay: the listener closes after it and the process exits 0")
    func exitsAfterTheDelay() async throws {
        try await Self.withServer(drainDelay: "1s") { process, client, watch in
            _ = try await client.get("/health/ready")
            kill(process.processIdentifier, SIGTERM)
            #expect(await watch.wait(for: "draining"), "\(watch.text)")
            await process.exited()
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 0, "\(watch.text)")
            let text = watch.text
            let drained = try #require(text.range(of: "draining"))
            let closing = try #require(text.range(of: "closing the listener"), "\(text)")
            #expect(drained.lowerBound < closing.lowerBound)
            #expect(!text.contains("second signal"))
        }
    }

    @Test("MEND_DRAIN_DELAY=0: SIGTERM closes the listener at once, as before")
    func aZeroDelayStopsAtOnce() async throws {
        try await Self.withServer(drainDelay: "0") { process, client, watch in
            _ = try await client.get("/health/live")
            kill(process.processIdentifier, SIGTERM)
            await process.exited()
            #expect(process.terminationStatus == 0, "\(watch.text)")
        }
    }
}
