import Foundation
import MendCore
import MendEmulator
import MendTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C is an interruption (issue 40): a client command interrupted says so and exits 130 — never a timeout, a
/// "code expired" with status 0, or a framework's log line. Each by a real SIGINT to the built binary, sent once the
/// command shows it is waiting.
@Suite("mend, interrupted", .enabled(if: MendBinary.url != nil))
struct InterruptCommandTests {
    /// Starts `mend arguments`, standard output and error in one pipe; sends SIGINT once `marker` was printed;
    /// returns the exit status and everything printed.
    static func interrupt(_ arguments: [String], after marker: String) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = try #require(MendBinary.url)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MEND_ACCESS_TOKEN"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let before = await output.fileHandleForReading.text(until: marker)
        kill(process.processIdentifier, SIGINT)
        await process.exited()
        let after = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, before + after)
    }

    @Test("login --no-browser, waiting for the redirect: interrupted, 130 (it said transport/2 timedOut, exit 1)")
    func loginWithoutBrowser() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator { emulator in
            let (status, text) = try await Self.interrupt(
                [
                    "login", "--base-url", emulator.baseURL.absoluteString, "--app-id", EmulatedApp.default.id,
                    "--no-browser", "--state-directory", directory.path,
                ], after: "Open this URL in a browser to log in:")
            #expect(status == 130, "\(text)")
            #expect(text.hasSuffix("interrupted\n"), "\(text)")
            #expect(!text.contains("timedOut") && !text.contains("transport/"), "\(text)")
        }
    }

    @Test("login --device, waiting for the code: interrupted, 130 (it said Code Expired, exit 0)")
    func deviceLogin() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Nobody enters the code: the login waits.
        try await withEmulator(configuration: EmulatorConfiguration(deviceLoginInterval: 1)) { emulator in
            let (status, text) = try await Self.interrupt(
                [
                    "login", "--base-url", emulator.baseURL.absoluteString, "--app-id", EmulatedApp.default.id,
                    "--client-token", EmulatedApp.default.clientToken, "--device", "--state-directory",
                    directory.path,
                ], after: "The code expires in")
            #expect(status == 130, "\(text)")
            #expect(text.hasSuffix("interrupted\n") && !text.contains("Code Expired"), "\(text)")
        }
    }

    @Test("graph, waiting for an answer: interrupted, 130")
    func graph() async throws {
        let asked = AsyncStream<Void>.makeStream()
        try await LoopbackHTTPServer.withServer({ _ in
            asked.continuation.yield()
            return .delayed(.seconds(60), .json(200, "{}"))
        }) { server in
            let process = Process()
            process.executableURL = try #require(MendBinary.url)
            process.arguments = [
                "graph", "GET", "me", "--base-url", "http://127.0.0.1:\(server.port)", "--token", "EAAinterruptToken0",
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            var iterator = asked.stream.makeAsyncIterator()
            _ = await iterator.next()  // the request arrived: graph is waiting for the answer
            kill(process.processIdentifier, SIGINT)
            await process.exited()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 130, "\(text)")
            #expect(text.hasSuffix("interrupted\n"), "\(text)")
        }
    }
}
