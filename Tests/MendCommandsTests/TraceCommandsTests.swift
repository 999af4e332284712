import Foundation
import MendTesting
import Testing

/// `--trace` (issue 31): each request's trace as a waterfall, in 80 columns, from the built `mend`.
@Suite("mend --trace: the waterfall")
struct TraceCommandsTests {
    /// The lines wider than 80 characters (a terminal's columns).
    static func wide(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.count > 80 }
    }

    @Test("mend graph --trace: the 503, the backoff and the resend, on standard error; the answer on standard output")
    func graphTrace() async throws {
        try await withEmulator { emulator in
            try await emulator.inject(error: "http/503", path: "/me", times: 1)
            let token = try await emulator.token()
            let run = try await MendBinary.run([
                "graph", "GET", "me", "--fields", "id,name", "--base-url", emulator.baseURL.absoluteString,
                "--api-version", emulator.emulator.configuration.graphVersion, "--token", token, "--trace",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) is [String: Any])
            let version = emulator.emulator.configuration.graphVersion
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("trace ") == true, "\(run.stderr)")
            let first = try #require(lines.firstIndex { $0.contains("GET /\(version)/me #1 503 http/503") })
            let wait = try #require(lines.firstIndex { $0.contains("wait backoff") })
            let second = try #require(lines.firstIndex { $0.contains("GET /\(version)/me #2 200") })
            #expect(first < wait && wait < second, "in time order: \(run.stderr)")
            #expect(Self.wide(run.stderr).isEmpty, "\(Self.wide(run.stderr))")
            #expect(!run.stderr.contains(token))
        }
    }

    @Test("An OTLP protocol that is not built in is a warning, never a crash: the command runs, nothing is exported")
    func unsupportedProtocol() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.token()
            let run = try await MendBinary.run(
                [
                    "graph", "GET", "me", "--base-url", emulator.baseURL.absoluteString, "--api-version",
                    emulator.emulator.configuration.graphVersion, "--token", token,
                ],
                environment: [
                    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
                ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"), "\(run.stderr)")
            #expect(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) is [String: Any])
        }
    }

    @Test("mend demo --trace: the app's attempts, the renewal, mend-server's spans and its provider calls")
    func demoTrace() async throws {
        let run = try await MendBinary.run(["demo", "--trace"])
        #expect(run.status == 0, "\(run.stderr)")
        for expected in [
            "POST /v1/login/code 200", "POST /v25.0/oauth/access_token", "mend.reauthenticate", "wait retryAfter",
            "wait backoff", "#2 200", "INSERT mend_sessions",
        ] {
            #expect(run.stdout.contains(expected), "no '\(expected)' in the waterfall")
        }
        // Each scenario is one trace, its header labelled (issue 40: 33 traces without a label).
        let headers = run.stdout.split(separator: "\n").filter { $0.hasPrefix("trace ") }
        for scenario in [
            "login through mend-server", "reads: a node, pages, a batch", "throttled (app usage 100 %)",
            "expired token", "REST revision conflict",
        ] {
            #expect(
                headers.contains { $0.contains(" · \(scenario) · ") }, "no trace labelled '\(scenario)': \(headers)")
        }
        #expect(Self.wide(run.stdout).isEmpty, "\(Self.wide(run.stdout))")
    }
}
