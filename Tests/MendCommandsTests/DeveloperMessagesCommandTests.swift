import Foundation
import MendCore
import MendTesting
import Testing

/// The CLI speaks to developers (issue 40): a failure says what, where and why in words, with the command's own
/// usage — never SwiftNIO's, Foundation's or errno's raw text.
@Suite("mend's failures speak to developers", .enabled(if: MendBinary.url != nil))
struct DeveloperMessagesCommandTests {
    @Test("emulate --config that does not exist says so, with emulate's usage and no Foundation error dump")
    func missingConfiguration() async throws {
        let run = try await MendBinary.run(["emulate", "--config", "/nope/emulator.json"])
        #expect(run.status == 64, "\(run.stderr)")
        // Failed before: "Error: cannot read … Error Domain=NSCocoaErrorDomain Code=260 … UserInfo={…}".
        #expect(run.stderr.contains("--config /nope/emulator.json: no such file"), "\(run.stderr)")
        #expect(run.stderr.contains("Usage: mend emulate"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains("UserInfo"), "\(run.stderr)")
    }

    @Test("emulate on a port in use names the host and the port, not bind(descriptor:ptr:bytes:) and errno")
    func portInUse() async throws {
        try await LoopbackHTTPServer.withServer({ _ in .text(200, "") }) { taken in
            let run = try await MendBinary.run(["emulate", "--port", String(taken.port)])
            #expect(run.status != 0)
            #expect(run.stderr.contains("127.0.0.1:\(taken.port) is already in use"), "\(run.stderr)")
            #expect(!run.stderr.contains("bind(descriptor") && !run.stderr.contains("errno"), "\(run.stderr)")
        }
    }

    @Test("login into a folder that cannot be created says so before the login: the path, the reason, login/324")
    func unwritableStateFolder() async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try Data("a file where a folder would go".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let folder = blocker.appendingPathComponent("mend")
        let run = try await MendBinary.run([
            "login", "--base-url", "http://127.0.0.1:9", "--app-id", "111111111111111", "--headless",
            "--state-directory", folder.path,
        ])
        #expect(run.status == 1, "\(run.stderr)")
        // Failed before: the whole login ran first, then "Something went wrong … login/320 … the folder mend cannot
        // be created" — no path, no cause, and marked retryable.
        let first = run.stderr.split(separator: "\n").first ?? ""
        #expect(first.hasPrefix("error: The token store cannot be used: the folder \(folder.path) cannot be created: "))
        #expect(first.contains("\(blocker.path) is a file, not a folder"), "\(run.stderr)")
        #expect(run.stderr.contains("login/324 tokenStoreMisconfigured (other; fixConfiguration)"), "\(run.stderr)")
        #expect(run.stderr.contains("reference: — (never reached the API)"), "\(run.stderr)")
    }

    @Test("login against a server that refuses: transport/12 with the URL that refused, at once, as graph says it")
    func refusedLogin() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await MendBinary.run([
            "login", "--base-url", "http://127.0.0.1:9", "--app-id", "111111111111111", "--headless",
            "--state-directory", directory.path,
        ])
        #expect(run.status == 1, "\(run.stderr)")
        // Failed before: "Error: connection reset (error set): Connection refused) (errno: 111)" after 10 s,
        // unclassified.
        #expect(
            run.stderr.hasPrefix(
                "error: Could not connect to http://127.0.0.1:9: the connection was refused (nothing listens there)."),
            "\(run.stderr)")
        #expect(run.stderr.contains("transport/12 cannotConnect"), "\(run.stderr)")
        #expect(!run.stderr.contains("errno") && !run.stderr.contains("error set"), "\(run.stderr)")
        let graph = try await MendBinary.run([
            "graph", "GET", "me", "--base-url", "http://127.0.0.1:9", "--token", "EAAsomeTokenForARefusal00",
        ])
        #expect(graph.status == 1 && graph.stderr.contains("transport/12"), "\(graph.stderr)")
    }
}
