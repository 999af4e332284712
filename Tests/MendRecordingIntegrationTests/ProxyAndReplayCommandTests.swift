import AsyncHTTPClient
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendRecording
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

    /// Sends every request to `proxy` instead of its own host, as an app configured with a proxy does: the URLs
    /// stay the provider's (discovery's, the dialog's), the connection goes to `mend proxy`.
    struct ThroughProxy: HTTPTransport {
        let base: any HTTPTransport
        let proxy: URL

        func send(_ request: HTTPRequest, body: HTTPBody?, timeout: Duration?) async throws -> (HTTPResponse, HTTPBody)
        {
            var request = request
            request.scheme = proxy.scheme
            request.authority = "\(proxy.host ?? "127.0.0.1"):\(proxy.port ?? 80)"
            return try await base.send(request, body: body, timeout: timeout)
        }
    }

    @Test(
        "A login through mend proxy: the dialog's 302 passed back and recorded; it replays with no provider")
    func loginThroughTheProxy() async throws {
        let file = temporaryDirectory().appendingPathComponent("login-through-proxy.har")
        var configuration = EmulatorConfiguration(issuer: EmulatorConfiguration.baseURLIssuer)
        configuration.autoConsent = .grantAll
        // The app's own client leaves redirects to its caller (Mend's pipeline reads the dialog's 302 as an answer).
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { _ = client.shutdown() }
        let (recorded, discovery, appID) = try await withEmulator(configuration: configuration) { emulator in
            let proxy = try await Self.start(
                ["proxy", "--record", file.path, "--upstream", emulator.baseURL.absoluteString, "--port", "0"],
                urlPrefix: "mend proxy: ")
            defer { if proxy.process.isRunning { proxy.process.terminate() } }  // when a check below threw
            let transport = ThroughProxy(
                base: AsyncHTTPClientTransport(client: client), proxy: try #require(URL(string: proxy.url)))
            let appID = emulator.emulator.configuration.defaultApp.id
            let discovery = emulator.url("/.well-known/openid-configuration")
            let session = try await LoginReplayTests.login(transport: transport, discovery: discovery, appID: appID)
            #expect(await proxy.stop() == 0)
            return (session, discovery, appID)
        }
        #expect(recorded.user?.id == "100000000000001")
        // The dialog's answer is in the recording: a 302 whose Location carries the code, redacted.
        let document = try HARDocument(data: Data(contentsOf: file))
        let redirect = try #require(document.entries.first { $0.response.status == 302 }, "no 302 was recorded")
        let location = try #require(redirect.response.header("Location"))
        #expect(location.contains("code=%3Cmend%3Acode%3A"), "\(location)")

        // The emulator is gone: the recording alone answers the same login.
        let replayed = try await LoginReplayTests.login(
            transport: try ReplayTransport(recording: file), discovery: discovery, appID: appID)
        #expect(replayed.user?.id == recorded.user?.id)
        #expect(replayed.idToken != nil && replayed.idToken != recorded.idToken)
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
            // A Graph error is recorded as what it is (graph/190), as `mend explain` says of its body, not by its
            // status alone (http/400).
            let refused = try await Self.get("\(proxy.url)/v25.0/me?fields=id", bearer: "EAAnotATokenOfThisEmulator000")
            #expect(refused.0 >= 400)
            #expect(await proxy.stop() == 0)
            let recorded = try HARDocument(data: Data(contentsOf: file)).entries.last?.mend?.error
            #expect(recorded?.domain == "graph" && recorded?.code == 190, "\(String(describing: recorded))")
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
