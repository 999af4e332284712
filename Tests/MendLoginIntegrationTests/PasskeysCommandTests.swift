import Foundation
import MendCore
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// `mend passkeys add|list|remove` and `mend login --passkey`, through the built binary, against mend-server with
/// passkeys on.
@Suite("mend login --passkey and mend passkeys, through the binary", .enabled(if: MendExecutable.url != nil))
struct PasskeysCommandTests {
    static func run(_ body: (LifecycleStack) async throws -> Void) async throws {
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.passkeys = PasskeyConfiguration(relyingPartyID: "localhost")
            try await withMendServer(configuration: configuration) { server in
                try await body(
                    LifecycleStack(
                        emulator: emulator, server: server, clock: OffsetClock(), lifetime: .serverDefault,
                        directory: temporaryDirectory()))
            }
        }
    }

    static func json(_ output: String) throws -> JSONValue { try JSONValue.parse(Data(output.utf8)).get() }

    @Test func addSignInListRemove() async throws {
        try await Self.run { stack in
            try await stack.login()
            let added = try await stack.mend(["passkeys", "add", "--name", "Laptop", "--json"])
            #expect(added.status == 0, "\(added.output)")
            let id = try #require(try Self.json(added.output)["id"]?.stringValue)

            // The key file: this user's only, its private key under a name the one secret vocabulary knows.
            let file = stack.directory.appendingPathComponent("passkeys.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let text = try String(contentsOf: file, encoding: .utf8)
            let privateKey = try #require(
                try Self.json(text)["credentials"]?.arrayValue?.first?["private_key"]?.stringValue)
            #expect(!Redactor.standard.redact(text: text).contains(privateKey))

            // Signed out, then in again with the passkey alone.
            #expect(try await stack.mend(["logout"]).status == 0)
            let login = try await stack.mend([
                "login", "--passkey", "--backend", stack.server.baseURL.absoluteString, "--json",
            ])
            #expect(login.status == 0, "\(login.output)")
            #expect(try Self.json(login.output)["loggedIn"]?.boolValue == true)
            #expect(try await stack.mend(["whoami"]).status == 0)

            let listed = try await stack.mend(["passkeys", "--json"])
            let passkeys = try #require(try Self.json(listed.output)["passkeys"]?.arrayValue)
            #expect(passkeys.count == 1 && passkeys[0]["id"]?.stringValue == id)
            #expect(passkeys[0]["name"]?.stringValue == "Laptop" && passkeys[0]["lastUsedAt"]?.stringValue != nil)
            #expect(try await stack.mend(["passkeys", "list"]).output.contains("\(id)  Laptop, added "))

            #expect(try await stack.mend(["passkeys", "remove", id]).status == 0)
            #expect(try await stack.mend(["passkeys", "remove", id]).status == 1)
            let empty = try await stack.mend(["passkeys", "--json"])
            #expect(try Self.json(empty.output)["passkeys"]?.arrayValue?.isEmpty == true)

            // The removed passkey: passkey/4, and the software authenticator forgets it.
            let unknown = try await stack.mend([
                "login", "--passkey", "--backend", stack.server.baseURL.absoluteString, "--json",
            ])
            #expect(unknown.status == 1)
            let report = try Self.json(unknown.output)
            #expect(report["domain"]?.stringValue == "passkey" && report["code"]?.intValue == 4, "\(unknown.output)")
            #expect(
                try Self.json(String(contentsOf: file, encoding: .utf8))["credentials"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func usage() async throws {
        let noBackend = try await MendExecutable.run(["login", "--passkey"])
        #expect(noBackend.status == 64)
        let noAppID = try await MendExecutable.run(["login", "--backend", "http://127.0.0.1:1"])
        #expect(noAppID.status == 64)
        let help = try await MendExecutable.run(["login", "--help"])
        #expect(help.output.contains("--passkey") && help.output.contains("development aid"))
        let passkeysHelp = try await MendExecutable.run(["passkeys", "--help"])
        #expect(passkeysHelp.output.contains("state folder"), "\(passkeysHelp.output)")
    }

    @Test func addNeedsASession() async throws {
        let directory = temporaryDirectory()
        let result = try await MendExecutable.run(["passkeys", "add", "--state-directory", directory.path])
        #expect(result.status == 4)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("passkeys.json").path))
    }
}
