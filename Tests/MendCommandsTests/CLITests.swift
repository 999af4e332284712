import Foundation
import MendTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the built `mend` binary, as a user would.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum MendBinary {
    /// The `mend` executable built next to this test bundle.
    static var url: URL? { BuiltExecutable.url(named: "mend") }

    /// Runs `mend` to its end, waiting on a thread of its own (``BlockingWork``: a blocked task thread starves the
    /// in-process servers that other tests' children talk to). `mergingStandardError`: standard error goes into the
    /// same pipe as standard output (as `2>&1` does), and `stdout` holds both, in the order they arrived.
    /// `executable`: another product built beside it (`mend-server`).
    static func run(
        _ arguments: [String], stdin: Data? = nil, environment overrides: [String: String?] = [:],
        mergingStandardError: Bool = false, executable: String = "mend"
    ) async throws -> CLIRun {
        try await BlockingWork.run {
            try runBlocking(
                arguments, stdin: stdin, environment: overrides, mergingStandardError: mergingStandardError,
                executable: executable)
        }
    }

    private static func runBlocking(
        _ arguments: [String], stdin: Data?, environment overrides: [String: String?], mergingStandardError: Bool,
        executable: String
    ) throws -> CLIRun {
        let binary = try #require(
            BuiltExecutable.url(named: executable),
            "build the `\(executable)` product first (swift build --traits Server)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = nil
        environment["LANGUAGE"] = nil
        for (name, value) in overrides { environment[name] = value }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = mergingStandardError ? out : err
        process.standardInput = input
        // The binary may stop reading early (that is what it should do with huge input): a write to the closed
        // pipe must fail with EPIPE instead of killing the test process.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        let writer = input.fileHandleForWriting
        let stderrReader = err.fileHandleForReading
        // Feed standard input and drain standard error beside the read of standard output, so that no pipe fills up.
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            if let stdin { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        nonisolated(unsafe) var stderrData = Data()  // written before group.leave, read after group.wait
        if mergingStandardError {
            try? err.fileHandleForWriting.close()
        }
        DispatchQueue.global().async(group: group) { stderrData = stderrReader.readDataToEndOfFile() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()  // inside BlockingWork
        process.waitUntilExit()  // inside BlockingWork
        return CLIRun(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }

    static func fixturePath(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)).path
    }
}

@Suite("The mend command line", .enabled(if: MendBinary.url != nil))
struct CLITests {
    @Test("explain --json prints the stable fields")
    func explainJSON() async throws {
        let run = try await MendBinary.run([
            "explain", "--json", "--file", MendBinary.fixturePath("graph-token-expired.json"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in [
            "domain", "code", "subcode", "category", "recovery", "userTitle", "userMessage", "developerMessage",
            "referenceID",
        ] {
            #expect(object.keys.contains(key), "missing \(key)")
        }
        #expect(object["domain"] as? String == "graph")
        #expect(object["code"] as? Int == 190)
        #expect(object["subcode"] as? Int == 463)
        #expect(object["category"] as? String == "recoverable")
        #expect(object["recovery"] as? String == "reauthenticate")
        #expect(object["referenceID"] as? String == "EJplcsCHuLu")
        #expect(object["userMessage"] as? String == "Your session has expired. Please log in again.")
    }

    @Test("explain shows an HTTP status only when one was given")
    func explainStatusOnlyWhenGiven() async throws {
        let body = Data(#"{"error":{"message":"x","type":"OAuthException","code":190}}"#.utf8)
        let text = try await MendBinary.run(["explain"], stdin: body)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!text.stdout.contains("http status"), "\(text.stdout)")
        let json = try await MendBinary.run(["explain", "--json"], stdin: body)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["httpStatus"] is NSNull)
        let given = try await MendBinary.run(["explain", "--status", "401"], stdin: body)
        #expect(given.stdout.contains("http status        401"), "\(given.stdout)")
    }

    @Test("explain: a code-1 body asking for less data says reduceRequestSize, another code 1 transient retry")
    func explainReduceData() async throws {
        let reduce = Data(
            #"{"error":{"message":"Please reduce the amount of data you're asking for, then retry your request","type":"OAuthException","code":1,"fbtrace_id":"AbC123"}}"#
                .utf8)
        let json = try await MendBinary.run(["explain", "--json", "--status", "500"], stdin: reduce)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["category"] as? String == "recoverable")
        #expect(object["recovery"] as? String == "reduceRequestSize")
        let text = try await MendBinary.run(["explain"], stdin: reduce)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("reduceRequestSize"), "\(text.stdout)")
        let other = Data(
            #"{"error":{"message":"An unknown error has occurred.","type":"OAuthException","code":1}}"#.utf8)
        let otherRun = try await MendBinary.run(["explain", "--json", "--status", "500"], stdin: other)
        let otherObject = try #require(
            try JSONSerialization.jsonObject(with: Data(otherRun.stdout.utf8)) as? [String: Any])
        #expect(otherObject["category"] as? String == "transient")
        #expect(otherObject["recovery"] as? String == "retry")
    }

    @Test("The Graph API version is --api-version; --version is the tool's own in every command")
    func apiVersionOption() async throws {
        let tool = try await MendBinary.run(["--version"]).stdout
        for command in ["graph", "login"] {
            let help = try await MendBinary.run([command, "--help"])
            #expect(help.stdout.contains("--api-version <api-version>"), "\(command): \(help.stdout)")
            #expect(!help.stdout.contains("--version <version>"), "\(command)")
            let version = try await MendBinary.run([command, "--version"])
            #expect(version.status == 0, "\(command): \(version.stderr)")
            #expect(version.stdout == tool)
        }
        // The option is read: a bad version reaches the transport (127.0.0.1:9 refuses), not the parser.
        let run = try await MendBinary.run([
            "graph", "GET", "me", "--api-version", "v1.0", "--base-url", "http://127.0.0.1:9", "--token", "t",
        ])
        #expect(run.status != 64, "\(run.stderr)")
    }

    @Test("--locale de picks German; standard input works; null fields stay present")
    func localeAndStdin() async throws {
        let run = try await MendBinary.run(
            ["explain", "--json", "--locale", "de"], stdin: Data(#"{"error":{"message":"x","code":4}}"#.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["userTitle"] as? String == "Zu viele Anfragen")
        #expect(object["subcode"] is NSNull)
        #expect(object["referenceID"] is NSNull)
    }

    @Test("Readable output for an HTML 503 with headers")
    func readable() async throws {
        let run = try await MendBinary.run([
            "explain", "--status", "503", "--kind", "graph", "-H", "x-fb-trace-id: Abc123", "-H", "Retry-After: 5",
            "--file", MendBinary.fixturePath("html-503.html"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("category           transient"))
        #expect(run.stdout.contains("reference id       Abc123"))
        #expect(run.stdout.contains("retry not before"))
    }

    @Test(
        "Bad input exits non-zero with a clear message, never a crash",
        arguments: [
            (["explain", "<html>nope</html>"], Int32(65), "not JSON"),
            (["explain", "--file", "Fixtures/truncated.json"], 65, "truncated"),
            (["explain", #"{"foo":1}"#], 65, "is not a Graph error body"),
            (["explain", "--file", "/nonexistent/file.json"], 65, "Cannot read"),
            (["explain", "--status", "200", #"{"id":"1"}"#], 1, "success"),
            (["explain", "--kind", "soap", "{}"], 64, "--kind must be one of"),
            (
                ["explain", "--max-bytes", "10", #"{"error":{"message":"long enough","code":1}}"#], 65,
                "larger than 10 bytes"
            ),
        ] as [([String], Int32, String)])
    func badInput(arguments: [String], status: Int32, message: String) async throws {
        var arguments = arguments
        if let index = arguments.firstIndex(of: "Fixtures/truncated.json") {
            arguments[index] = try MendBinary.fixturePath("truncated.json")
        }
        let run = try await MendBinary.run(arguments)
        #expect(run.status == status)
        #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("--messages adds a language: explain --locale pt uses it; errors messages prints a file it reads back")
    func appMessages() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pt.json")
        try Data(
            #"{"pt": {"sessionExpired": "Sua sessão expirou.", "sessionExpired.title": "Sessão expirada"}}"#.utf8
        ).write(to: file)
        let body =
            #"{"error":{"message":"Session has expired","type":"OAuthException","code":190,"error_subcode":463}}"#
        let explained = try await MendBinary.run([
            "explain", "--json", "--messages", file.path, "--locale", "pt-BR", body,
        ])
        #expect(explained.status == 0, "\(explained.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(explained.stdout.utf8)) as? [String: Any])
        #expect(report["userTitle"] as? String == "Sessão expirada")
        #expect(report["userMessage"] as? String == "Sua sessão expirou.")
        #expect(explained.stderr.isEmpty)
        // Without the file, Portuguese is not available: English, and a note.
        let english = try await MendBinary.run(["explain", "--json", "--locale", "pt", body])
        #expect(english.stderr.contains("no messages in 'pt'"))

        // The template: every key, in German; read back as a messages file, it changes nothing.
        let template = try await MendBinary.run(["errors", "messages", "--locale", "de"])
        #expect(template.status == 0)
        let texts = try #require(
            try JSONSerialization.jsonObject(with: Data(template.stdout.utf8)) as? [String: [String: String]])
        #expect(texts["de"]?["sessionExpired.title"] == "Sitzung abgelaufen")
        let germanFile = directory.appendingPathComponent("de.json")
        try Data(template.stdout.utf8).write(to: germanFile)
        let missing = try await MendBinary.run([
            "errors", "messages", "--messages", germanFile.path, "--locale", "de", "--missing",
        ])
        #expect(missing.status == 0 && missing.stdout.isEmpty, "\(missing.stdout)")
        let partial = try await MendBinary.run([
            "errors", "messages", "--messages", file.path, "--locale", "pt", "--missing",
        ])
        #expect(partial.stdout.contains("notFound\n") && !partial.stdout.contains("sessionExpired\n"))

        // A bad file: the reason, exit 65, nothing on standard output.
        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"pt": {"sesionExpired": "x"}}"#.utf8).write(to: bad)
        let refused = try await MendBinary.run(["explain", "--messages", bad.path, "--locale", "pt", body])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("'sesionExpired' is not a key Mend knows"))
        #expect(refused.stdout.isEmpty)
    }

    @Test("Huge standard input is refused without reading it all")
    func hugeInput() async throws {
        let run = try await MendBinary.run(["explain"], stdin: Data(repeating: UInt8(ascii: "{"), count: 3 << 20))
        #expect(run.status == 65)
        #expect(run.stderr.contains("larger than"))
    }

    @Test("errors list prints the catalog as text, JSON and Markdown")
    func errorsList() async throws {
        let text = try await MendBinary.run(["errors", "list"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("tokenExpired"))
        let json = try await MendBinary.run(["errors", "list", "--json", "--domain", "login"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 21)
        // A code is a number (issue 40: it was the string "300"); a row for any code has null, with its text beside.
        let reserved = try #require(rows.first { $0["name"] as? String == "reserved" })
        #expect(reserved["code"] as? Int == 300 && reserved["codeText"] as? String == "300")
        #expect((reserved["codes"] as? [String: Int]) == ["lowest": 300, "highest": 300])
        let any = try #require(rows.first { $0["name"] as? String == "loginFailed" })
        #expect(any["code"] is NSNull && any["codes"] is NSNull && any["codeText"] as? String == "*")
        let graph = try await MendBinary.run(["errors", "list", "--json", "--domain", "graph"])
        let ranged = try #require(try JSONSerialization.jsonObject(with: Data(graph.stdout.utf8)) as? [[String: Any]])
        let permission = try #require(ranged.first { $0["name"] as? String == "permissionMissing" })
        #expect(
            permission["code"] is NSNull && (permission["codes"] as? [String: Int]) == ["lowest": 200, "highest": 299])
        let markdown = try await MendBinary.run(["errors", "list", "--markdown"])
        #expect(markdown.stdout.hasPrefix("# Mend error catalog"))
    }

    @Test("errors list fits 80 columns in a pipe and the terminal's width on one; --wide prints whole lines")
    func errorsListWidth() async throws {
        // Before (issue 40): 193 columns wherever it went.
        let piped = try await MendBinary.run(["errors", "list"])
        let pipedLines = piped.stdout.split(separator: "\n")
        #expect(pipedLines.allSatisfy { $0.count <= 80 }, "\(pipedLines.map(\.count).max() ?? 0) columns")
        #expect(pipedLines.contains { $0.contains("…") })
        let wide = try await MendBinary.run(["errors", "list", "--wide"])
        #expect((wide.stdout.split(separator: "\n").map(\.count).max() ?? 0) > 120)
        #expect(!wide.stdout.contains("…"))

        // On a terminal of 132 columns (util-linux's `script` gives the command a pseudo-terminal).
        let binary = try #require(MendBinary.url)
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        script.arguments = ["-qec", "stty cols 132 rows 50; '\(binary.path)' errors list", "/dev/null"]
        let output = Pipe()
        script.standardOutput = output
        script.standardError = output
        script.standardInput = FileHandle.nullDevice
        try script.run()
        let reader = output.fileHandleForReading
        let data = await BlockingWork.run { reader.readDataToEndOfFile() }
        await script.exited()
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        #expect(lines.count > 100, "\(text.prefix(300))")
        #expect(lines.allSatisfy { $0.count <= 132 })
        #expect(lines.contains { $0.count > 80 }, "the terminal's width, not 80")
    }

    @Test("demo --offline classifies recorded responses and exits 0")
    func offlineDemo() async throws {
        let run = try await MendBinary.run(["demo", "--offline", "--json", "--locale", "de"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 10)
        let categories = rows.compactMap { ($0["report"] as? [String: Any])?["category"] as? String }
        #expect(Set(categories) == ["transient", "recoverable", "other"])
    }

    @Test("demo fits an 80-column terminal: every line, the narrative and the summary table")
    func demoFitsEightyColumns() async throws {
        let run = try await MendBinary.run(["demo"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let over = lines.filter { $0.count > 80 }
        #expect(over.isEmpty, "\(over)")
        #expect(lines.contains { $0.hasPrefix("scenario") && $0.hasSuffix("│ recovery") })
        #expect(run.stdout.contains("10 of 10 failure classes handled as expected."))
        #expect(run.stdout.contains("mend demo --wide"))
        let offline = try await MendBinary.run(["demo", "--offline"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("demo: every row of its JSON summary, in German, and exit 0")
    func liveDemo() async throws {
        let run = try await MendBinary.run(["demo", "--json", "--locale", "de"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        let expected: [(String, String, String, String)] = [
            ("throttled (app usage 100 %)", "graph/4", "transient", "waitForRateLimit"),
            ("transient 5xx", "graph/2", "transient", "retry"),
            ("HTML 503 from a proxy", "http/503", "transient", "retry"),
            ("network lost", "transport/5", "transient", "retry"),
            ("expired token", "graph/190/463", "recoverable", "reauthenticate"),
            ("password changed", "graph/190/460", "recoverable", "reauthenticate"),
            ("missing permission", "graph/200", "recoverable", "requestPermissions(publish_actions)"),
            ("duplicate post", "graph/506", "other", "changeRequest"),
            ("GraphQL partial result", "graphql/2", "recoverable", "requestPermissions(email)"),
            ("REST revision conflict", "rest/409", "recoverable", "reloadAndRetry"),
        ]
        #expect(rows.count == expected.count)
        for (row, (scenario, identity, category, recovery)) in zip(rows, expected) {
            let code = (row["code"] as? Int).map(String.init) ?? "?"
            let subcode = (row["subcode"] as? Int).map { "/\($0)" } ?? ""
            #expect(row["scenario"] as? String == scenario)
            #expect("\(row["domain"] as? String ?? "?")/\(code)\(subcode)" == identity, "\(scenario)")
            #expect(row["category"] as? String == category, "\(scenario)")
            #expect(row["recovery"] as? String == recovery, "\(scenario)")
            #expect(row["passed"] as? Bool == true, "\(scenario): \(row["outcome"] ?? "")")
            #expect((row["outcome"] as? String)?.isEmpty == false)
        }
        let expired = try #require(rows.first { $0["scenario"] as? String == "expired token" })
        #expect(expired["userMessage"] as? String == "Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an.")
    }
}

@Suite("mend demo, interrupted", .enabled(if: MendBinary.url != nil))
struct DemoInterruptTests {
    @Test("Interrupted mid-run, it stops cleanly: no process, port or temporary folder left")
    func interrupted() async throws {
        let process = Process()
        process.executableURL = try #require(MendBinary.url)
        process.arguments = ["demo"]
        let output = Pipe()
        process.standardOutput = output
        // Standard error goes to a file that a failure shows (a crash's message lands there).
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("mend-demo-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // Read until the emulator reports its address, then interrupt.
        let text = await output.fileHandleForReading.text(until: "mend-server on")
        kill(process.processIdentifier, SIGINT)
        await process.exited()
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        // Failed before: Hummingbird's "Waiting on child channel: CancellationError()" and "Server shutdown error:
        // Already closed" on the way out.
        #expect(!stderr.contains("Waiting on child channel") && !stderr.contains("Server shutdown error"), "\(stderr)")
        // 130 and "interrupted" when the interrupt reached the demo (as from a terminal); under the test runner on a
        // loaded machine the signal is sometimes not delivered to the child's handler and the demo runs to its end
        // (exit 0) — seen on CI and under a loaded local run, not from a terminal. Either way it ends cleanly.
        #expect(process.terminationStatus != 130 || stderr.contains("interrupted"), "\(stderr)")
        #expect(
            [130, 0].contains(process.terminationStatus) && process.terminationReason == .exit,
            "\(process.terminationReason == .uncaughtSignal ? "killed by signal" : "exit") \(process.terminationStatus)\n\(text)\n\(stderr)"
        )
        // The progress lines, as they were before the demo wrapped them to 80 columns.
        let lines = text.replacingOccurrences(of: "\n    ", with: " ").split(separator: "\n")
        let ports = lines.compactMap { line -> Int? in
            guard let range = line.range(of: "http://127.0.0.1:") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(!ports.isEmpty)
        for port in ports {
            #expect(!Self.isListeningElsewhere(port: port), "port \(port) is still open")
        }
        // The run's own SQLite folder (named in its progress line) is gone.
        let folders = lines.compactMap { line -> String? in
            guard let range = line.range(of: "(SQLite in ") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != ")" })
        }
        #expect(!folders.isEmpty, "\(text)")
        for folder in folders { #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is left") }
    }

    /// Whether something other than this test process listens on `port`. Tests run in parallel, and a server of
    /// another test may bind the demo's freed port at once; on Linux its listening socket is told apart by its inode
    /// (`/proc/net/tcp` against `/proc/self/fd`).
    static func isListeningElsewhere(port: Int) -> Bool {
        guard isListening(port: port) else { return false }
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return true }
        let ours = Set(
            descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
        )
        let portHex = String(format: ":%04X", port)
        let listeners = table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(portHex), fields[3] == "0A" else { return nil }
            return "socket:[\(fields[9])]"
        }
        return listeners.contains { !ours.contains($0) }
    }

    static func isListening(port: Int) -> Bool {
        #if canImport(Darwin)
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }
}
