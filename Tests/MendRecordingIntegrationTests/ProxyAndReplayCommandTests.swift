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
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `mend proxy` records what any app sends through it; `mend emulate --replay` serves the recording as the provider,
/// with the control API's faults on top. Both through the built binary.
@Suite("mend proxy and mend emulate --replay", .enabled(if: BuiltExecutable.url(named: "mend") != nil))
struct ProxyAndReplayCommandTests {
    /// A running `mend` subcommand that prints a URL and a ready line.
    struct Running {
        let process: Process
        let url: String

        func stop() async -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            await process.exited()
            return process.terminationStatus
        }
    }

    /// Starts `mend arguments…` and waits for its ready line; `urlPrefix` starts the line holding its URL.
    static func start(_ arguments: [String], urlPrefix: String) async throws -> Running {
        let process = Process()
        process.executableURL = try #require(BuiltExecutable.url(named: "mend"))
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        let text = await handle.text(until: "\nready\n")
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(urlPrefix) }, "\(text)")
        let url = try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+/).map { String($0.output) })
        return Running(process: process, url: url)
    }

    static func get(_ url: String, bearer: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("A proxy records an app's traffic redacted; the emulator replays it, faults on top, mismatches named")
    func proxyThenReplay() async throws {
        let file = temporaryDirectory().appendingPathComponent("proxied.har")
        var secrets: [String] = []
        try await withEmulator { emulator in
            let app = emulator.emulator.configuration.defaultApp
            let short = try await emulator.token()
            let proxy = try await Self.start(
                ["proxy", "--record", file.path, "--upstream", emulator.baseURL.absoluteString, "--port", "0"],
                urlPrefix: "mend proxy: ")
            let me = try await Self.get("\(proxy.url)/v25.0/me?fields=id,name", bearer: short)
            #expect(me.0 == 200 && me.1.contains("Alice Example"))
            let exchange = try await Self.get(
                "\(proxy.url)/v25.0/oauth/access_token?grant_type=fb_exchange_token&client_id=\(app.id)"
                    + "&client_secret=\(app.secret)&fb_exchange_token=\(short)")
            let long = try #require(try JSONValue.parse(Data(exchange.1.utf8)).get()["access_token"]?.stringValue)
            let feed = try await Self.get("\(proxy.url)/v25.0/me/feed?limit=2&access_token=\(long)")
            #expect(feed.0 == 200)
            #expect(await proxy.stop() == 0)
            secrets = [short, long, app.secret]
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in secrets {
            #expect(!text.contains(secret) && !text.contains(Data(secret.utf8).base64EncodedString()))
        }

        // The emulator above is gone; a new one serves the recording alone.
        let replay = try await Self.start(
            ["emulate", "--port", "0", "--replay", file.path], urlPrefix: "base URL: ")
        defer { if replay.process.isRunning { replay.process.terminate() } }  // when a check above threw
        let me = try await Self.get("\(replay.url)/v25.0/me?fields=id,name", bearer: "a token of today")
        #expect(me.0 == 200 && me.1.contains("Alice Example"))
        let exchange = try await Self.get(
            "\(replay.url)/v25.0/oauth/access_token?grant_type=fb_exchange_token&client_id=111111111111111"
                + "&client_secret=0123456789abcdef0123456789abcdef&fb_exchange_token=EAAanotherShortToken000000000")
        let placeholder = try #require(try JSONValue.parse(Data(exchange.1.utf8)).get()["access_token"]?.stringValue)
        #expect(placeholder.hasPrefix("<mend:access_token:"))
        // A fault injected through the control API applies on top of the recording.
        var inject = URLRequest(url: URL(string: "\(replay.url)/_emulator/faults")!)
        inject.httpMethod = "POST"
        inject.httpBody = Data(#"{"error":"http/503","path":"/v25.0/me/feed","times":1}"#.utf8)
        let (_, injected) = try await URLSession.shared.data(for: inject)
        #expect((injected as? HTTPURLResponse)?.statusCode == 201)
        let escaped = placeholder.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await Self.get("\(replay.url)/v25.0/me/feed?limit=2&access_token=\(escaped)").0 == 503)
        let feed = try await Self.get("\(replay.url)/v25.0/me/feed?limit=2&access_token=\(escaped)")
        #expect(feed.0 == 200 && feed.1.contains("\"data\""))
        // What the recording cannot answer is a 404 naming the closest recorded request.
        let unknown = try await Self.get("\(replay.url)/v25.0/me?fields=email")
        #expect(unknown.0 == 404)
        #expect(unknown.1.contains("MendReplayMismatch") && unknown.1.contains("closest recorded request"))
        #expect(await replay.stop() == 0)
    }
}
