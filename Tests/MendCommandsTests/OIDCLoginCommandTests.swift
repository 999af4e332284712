import Foundation
import MendEmulator
import MendServer
import MendTesting
import Testing

/// `mend login --provider google` against the emulator's Google-like issuer, as a user runs it.
@Suite("mend login with an OpenID Connect provider")
struct OIDCLoginCommandTests {
    @Test("login --provider google --headless, whoami from another process, logout revokes at the issuer")
    func googleLogin() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator { emulator in
            let state = ["--state-directory", directory.path]
            let login = try await MendBinary.run(
                [
                    "login", "--provider", "google", "--issuer", emulator.url("/google").absoluteString, "--app-id",
                    "mend-ios.apps.googleusercontent.com", "--headless",
                ] + state)
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stdout.contains("Logged in as Alice Example"))
            // A second process reads the stored session and keeps it with the OIDC authority.
            let whoami = try await MendBinary.run(["whoami"] + state)
            #expect(whoami.status == 0, "\(whoami.stderr)")
            #expect(whoami.stdout.contains("<alice@example.com>"))
            let json = try await MendBinary.run(["whoami", "--json"] + state)
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["loggedIn"] as? Bool == true)
            #expect((object["user"] as? [String: Any])?["email"] as? String == "alice@example.com")
            #expect(object["reason"] is NSNull)
            let logout = try await MendBinary.run(["logout"] + state)
            #expect(logout.stdout.contains("Logged out and revoked."), "\(logout.stdout) \(logout.stderr)")
            let revocations = await emulator.emulator.revocations()
            #expect(revocations.map(\.issuer) == ["google"])
            let after = try await MendBinary.run(["whoami"] + state)
            #expect(after.stdout.contains("Not logged in."))
            let afterJSON = try await MendBinary.run(["whoami", "--json"] + state)
            #expect(afterJSON.status == 4)  // not logged in
            let loggedOut = try #require(
                try JSONSerialization.jsonObject(with: Data(afterJSON.stdout.utf8)) as? [String: Any])
            #expect(loggedOut["loggedIn"] as? Bool == false)
            #expect(loggedOut["user"] is NSNull)
        }
    }

    @Test("login --provider google --backend: the server's web client, the session from mend-server, whoami")
    func googleThroughTheBackend() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator { emulator in
            try await withMendServer(configuration: .forEmulator(emulator)) { server in
                let state = ["--state-directory", directory.path]
                let login = try await MendBinary.run(
                    [
                        "login", "--provider", "google", "--issuer", emulator.url("/google").absoluteString,
                        "--app-id", "mend-web.apps.googleusercontent.com", "--backend", server.baseURL.absoluteString,
                        "--headless", "--json",
                    ] + state)
                #expect(login.status == 0, "\(login.stderr)")
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any])
                #expect(object["loggedIn"] as? Bool == true)
                #expect(object["refreshable"] as? Bool == true)
                let status = try await MendBinary.run(["token", "status", "--json"] + state)
                let token = try #require(
                    try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
                #expect(token["issuer"] as? String == "backend", "\(status.stdout)")
                let whoami = try await MendBinary.run(["whoami"] + state)
                #expect(whoami.stdout.contains("Alice Example"), "\(whoami.stdout) \(whoami.stderr)")
            }
        }
    }

    @Test("login --provider oidc --issuer: any issuer from its discovery document; no issuer is a usage error")
    func anyIssuer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try await MendBinary.run(["login", "--provider", "oidc", "--app-id", "x", "--headless"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--provider oidc needs --issuer"), "\(missing.stderr)")
        try await withEmulator { emulator in
            let state = ["--state-directory", directory.path]
            let login = try await MendBinary.run(
                [
                    "login", "--provider", "oidc", "--issuer", emulator.url("/google").absoluteString, "--app-id",
                    "mend-ios.apps.googleusercontent.com", "--headless",
                ] + state)
            #expect(login.status == 0, "\(login.stderr)")
            let whoami = try await MendBinary.run(["whoami"] + state)
            #expect(whoami.stdout.contains("<alice@example.com>"), "\(whoami.stdout) \(whoami.stderr)")
        }
    }

    @Test(
        "login --provider apple: a usage error that says why (Apple never redirects to a loopback address) and what to do"
    )
    func appleExplains() async throws {
        let apple = try await MendBinary.run([
            "login", "--provider", "apple", "--app-id", "com.example.app", "--headless",
        ])
        #expect(apple.status == 64, "\(apple.stderr)")
        #expect(apple.stderr.contains("never to a loopback address"), "\(apple.stderr)")
        #expect(apple.stderr.contains("POST /v1/login/id_token"), "\(apple.stderr)")
        #expect(apple.stdout.isEmpty)
    }
}
