import Foundation
import MendEmulator
import MendTesting
import Testing

/// `mend login --device` as a user runs it, against the in-process emulator (a 1 s polling interval, so the runs
/// are short; the client keeps whatever interval the provider announces).
@Suite("mend login --device")
struct DeviceLoginCommandTests {
    static func configuration(_ consent: AutoConsent, lifetime: Int = 420) -> EmulatorConfiguration {
        EmulatorConfiguration(autoConsent: consent, deviceCodeLifetime: lifetime, deviceLoginInterval: 1)
    }

    static func arguments(_ emulator: RunningEmulator, _ directory: URL) -> [String] {
        [
            "login", "--base-url", emulator.baseURL.absoluteString, "--app-id", EmulatedApp.default.id,
            "--client-token", EmulatedApp.default.clientToken, "--state-directory", directory.path,
        ]
    }

    @Test("--device prints the code and the address, stores the session; whoami reads it from another process")
    func approved() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(configuration: Self.configuration(.grantAll)) { emulator in
            let login = try await MendBinary.run(Self.arguments(emulator, directory) + ["--device"])
            #expect(login.status == 0, "\(login.stderr)")
            let code = try #require(await emulator.emulator.deviceLogins().first)
            #expect(login.stdout.contains("open \(emulator.url("/device").absoluteString)"))
            #expect(login.stdout.contains("    \(code.userCode)\n"))
            #expect(login.stdout.contains("The code expires in 7 minutes."))
            #expect(login.stdout.contains("Logged in as Alice Example"))
            #expect(login.stdout.contains("This session is the provider's token alone"))
            #expect(code.answer == "used")
            let whoami = try await MendBinary.run(["whoami", "--json", "--state-directory", directory.path])
            #expect(whoami.status == 0, "\(whoami.stderr)")
            #expect(whoami.stdout.contains("\"loggedIn\":true"))
        }
    }

    @Test("After mend login, mend graph uses the stored session (its token and base URL); token print is the token")
    func graphUsesTheStoredSession() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(configuration: Self.configuration(.grantAll)) { emulator in
            let login = try await MendBinary.run(Self.arguments(emulator, directory) + ["--device"])
            #expect(login.status == 0, "\(login.stderr)")
            // No --token, no MEND_ACCESS_TOKEN, no --base-url: the session and the base URL of `mend login`.
            // Failed before: graph/2500 "An active access token must be used", against graph.facebook.com.
            let me = try await MendBinary.run(
                ["graph", "GET", "me", "--fields", "id,name", "--state-directory", directory.path],
                environment: ["MEND_ACCESS_TOKEN": nil])
            #expect(me.status == 0, "\(me.stderr)")
            #expect(me.stdout.contains("Alice Example"), "\(me.stdout)")
            // The token alone on standard output, for scripts; the one graph sent.
            let printed = try await MendBinary.run(["token", "print", "--state-directory", directory.path])
            #expect(printed.status == 0, "\(printed.stderr)")
            let token = printed.stdout.trimmingCharacters(in: .newlines)
            #expect(!token.isEmpty && !token.contains(" ") && printed.stdout.hasSuffix("\n"), "\(printed.stdout)")
            let explicit = try await MendBinary.run([
                "graph", "GET", "me", "--fields", "name", "--base-url", emulator.baseURL.absoluteString, "--token",
                token,
            ])
            #expect(explicit.status == 0 && explicit.stdout.contains("Alice Example"), "\(explicit.stderr)")
            // Without a session: not logged in, exit 4 (ExitCodes.notLoggedIn), nothing on standard output.
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            let none = try await MendBinary.run(["token", "print", "--state-directory", empty.path])
            #expect(none.status == 4 && none.stdout.isEmpty && none.stderr.contains("Not logged in"))
        }
    }

    @Test("Declined on the other device: the calm message, no session stored")
    func declined() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(configuration: Self.configuration(.deny)) { emulator in
            let login = try await MendBinary.run(Self.arguments(emulator, directory) + ["--device"])
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stdout.contains("Login Declined: The login on this device was declined."))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("session.json").path))
            // --json: the code for the person on standard error, one JSON object on standard output.
            let json = try await MendBinary.run(Self.arguments(emulator, directory) + ["--device", "--json"])
            #expect(json.status == 0, "\(json.stderr)")
            #expect(json.stderr.contains("and enter the code:"))
            let result = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
            #expect(result["loggedIn"] as? Bool == false)
            #expect(result["cancelled"] as? Bool == true)
            #expect(result["reason"] as? String == "declined")
        }
    }

    @Test("Never entered: the code expires and the message says to start again")
    func expired() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(configuration: Self.configuration(.manual, lifetime: 2)) { emulator in
            let login = try await MendBinary.run(Self.arguments(emulator, directory) + ["--device"])
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stdout.contains("Code Expired: The code on this device has expired."))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("session.json").path))
        }
    }

    @Test("Over SSH, with no browser to open, device login is the default; a wrong client token is a clear error")
    func defaultOverSSH() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(configuration: Self.configuration(.grantAll)) { emulator in
            let ssh: [String: String?] = ["SSH_CONNECTION": "10.0.0.2 50000 10.0.0.1 22", "DISPLAY": nil]
            let login = try await MendBinary.run(Self.arguments(emulator, directory), environment: ssh)
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("No browser can be opened here (an SSH session): using device login."))
            #expect(login.stdout.contains("Logged in as Alice Example"))
            // Into one pipe (2>&1, a CI log): the notice, the code and the result arrive in the order written.
            let merged = try await MendBinary.run(
                Self.arguments(emulator, directory), environment: ssh, mergingStandardError: true)
            #expect(merged.status == 0, "\(merged.stdout)")
            let order = ["No browser can be opened here", "and enter the code:", "The code expires in", "Logged in as"]
                .map { merged.stdout.range(of: $0)?.lowerBound }
            #expect(order.allSatisfy { $0 != nil }, "\(merged.stdout)")
            #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(merged.stdout)")
            var wrong = Self.arguments(emulator, directory) + ["--device"]
            wrong[wrong.firstIndex(of: EmulatedApp.default.clientToken)!] = "wrong"
            let refused = try await MendBinary.run(wrong)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("graph/190"), "\(refused.stderr)")
            let usage = try await MendBinary.run(Self.arguments(emulator, directory) + ["--device", "--headless"])
            #expect(usage.status == 64)
        }
    }
}
