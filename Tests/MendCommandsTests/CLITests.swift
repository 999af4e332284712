import Foundation
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
    static var url: URL? {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("mend")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> CLIRun {
        let binary = try #require(url, "build the `mend` product first (swift build)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = nil
        environment["LANGUAGE"] = nil
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
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
        DispatchQueue.global().async(group: group) { stderrData = stderrReader.readDataToEndOfFile() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
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
    func explainJSON() throws {
        let run = try MendBinary.run([
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

    @Test("--locale de picks German; standard input works; null fields stay present")
    func localeAndStdin() throws {
        let run = try MendBinary.run(
            ["explain", "--json", "--locale", "de"], stdin: Data(#"{"error":{"message":"x","code":4}}"#.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["userTitle"] as? String == "Zu viele Anfragen")
        #expect(object["subcode"] is NSNull)
        #expect(object["referenceID"] is NSNull)
    }

    @Test("Readable output for an HTML 503 with headers")
    func readable() throws {
        let run = try MendBinary.run([
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
    func badInput(arguments: [String], status: Int32, message: String) throws {
        var arguments = arguments
        if let index = arguments.firstIndex(of: "Fixtures/truncated.json") {
            arguments[index] = try MendBinary.fixturePath("truncated.json")
        }
        let run = try MendBinary.run(arguments)
        #expect(run.status == status)
        #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("Huge standard input is refused without reading it all")
    func hugeInput() throws {
        let run = try MendBinary.run(["explain"], stdin: Data(repeating: UInt8(ascii: "{"), count: 3 << 20))
        #expect(run.status == 65)
        #expect(run.stderr.contains("larger than"))
    }

    @Test("errors list prints the catalog as text, JSON and Markdown")
    func errorsList() throws {
        let text = try MendBinary.run(["errors", "list"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("tokenExpired"))
        let json = try MendBinary.run(["errors", "list", "--json", "--domain", "login"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 13)
        let markdown = try MendBinary.run(["errors", "list", "--markdown"])
        #expect(markdown.stdout.hasPrefix("# Mend error catalog"))
    }

    @Test("demo runs offline and exits 0, in JSON too")
    func demo() throws {
        let run = try MendBinary.run(["demo", "--json", "--locale", "de"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 10)
        let categories = rows.compactMap { ($0["report"] as? [String: Any])?["category"] as? String }
        #expect(Set(categories) == ["transient", "recoverable", "other"])
    }
}
