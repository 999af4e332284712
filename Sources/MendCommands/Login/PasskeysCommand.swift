import ArgumentParser
import Foundation
import MendCore
import MendHTTPAsyncHTTPClient
import MendLogin
import MendWebAuthn

/// The software authenticator `mend` signs in and adds passkeys with: its passkeys in the state folder
/// (`passkeys.json`, 0600). A development aid: the private keys are in a file, not in a secure authenticator.
enum SoftwarePasskeys {
    /// What `--help` says about it.
    static let note =
        "The passkeys are the software authenticator's, a development aid: their private keys are in the state "
        + "folder (passkeys.json, readable by this user only), not in a secure authenticator."

    /// The authenticator over the state folder's passkey file.
    static func authenticator(directory: URL, origin: String?) -> SoftwarePasskeyAuthenticator {
        SoftwarePasskeyAuthenticator(file: SoftwareAuthenticatorFile(directory: directory), origin: origin)
    }

    /// Forgets the passkey the backend does not know (as a platform does when told `signalUnknownCredential`), so that
    /// the next sign-in uses another one.
    static func forget(_ unknown: UnknownPasskeyError, directory: URL) {
        let file = SoftwareAuthenticatorFile(directory: directory)
        guard let credentials = try? file.load() else { return }
        let kept = credentials.filter { $0.id != Array(unknown.credentialID) }
        if kept.count != credentials.count { try? file.save(kept) }
    }

    /// `mend login --passkey`: signs in at `backend` with the software authenticator; the session goes to the state
    /// folder, like every login's.
    static func logIn(
        backend: String, directory: URL, origin: String?, version: String, json: Bool
    ) async throws {
        let profile = LoginProfile(
            provider: "passkey", appID: "", baseURL: nil, issuer: nil, backend: backend, version: version)
        let transport = AsyncHTTPClientTransport()
        guard let client = profile.backendClient(transport: transport) else {
            throw ValidationError("'\(backend)' is not an absolute URL.")
        }
        let credentials = CredentialsManager(
            store: FileTokenStore(url: directory.appendingPathComponent("session.json")), authority: client,
            responseStore: LoginProfile.answers(directory: directory))
        let output = LoginOutput(json: json)
        do {
            let result = try await client.logIn(
                withPasskey: authenticator(directory: directory, origin: origin), into: credentials)
            if result.isCancelled { return output.cancelled(reason: "userCancelled", message: "Login cancelled.") }
            try profile.save(to: directory)
            output.loggedIn(result.session, granted: result.grantedPermissions, declined: result.declinedPermissions)
        } catch let unknown as UnknownPasskeyError {
            forget(unknown, directory: directory)
            if !json {
                StandardError.write(
                    "The backend has no passkey \(unknown.credentialIDBase64URL) of \(unknown.relyingPartyID) (removed, "
                        + "or never added): the software authenticator forgot it.")
            }
            throw Failure.report(unknown.error, json: json)
        } catch let error as MendError {
            throw Failure.report(error, json: json)
        }
    }
}

/// `mend passkeys`, `mend passkeys add` and `mend passkeys remove ID`: the signed-in user's passkeys at the backend.
struct PasskeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys", abstract: "List the user's passkeys at the backend, add one, or remove one.",
        discussion: """
            Examples:
              mend passkeys add --name "My laptop"   # within minutes of a sign-in
              mend passkeys
              mend login --passkey --backend http://127.0.0.1:8081
              mend passkeys remove pk_…

            \(SoftwarePasskeys.note)
            """,
        subcommands: [List.self, Add.self, Remove.self], defaultSubcommand: List.self)

    /// `{"id", "name", "createdAt", "lastUsedAt", "backedUp"}` (ISO 8601 times).
    static func json(_ passkey: BackendPasskey) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        return .object([
            "id": .string(passkey.id), "name": .string(passkey.name),
            "createdAt": .string(formatter.string(from: passkey.createdAt)),
            "lastUsedAt": passkey.lastUsedAt.map { .string(formatter.string(from: $0)) } ?? .null,
            "backedUp": .bool(passkey.isBackedUp),
        ])
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the user's passkeys at the backend.")

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Print JSON: {\"passkeys\": [{\"id\", \"name\", \"createdAt\", \"lastUsedAt\", \"backedUp\"}]}."))
        var json = false

        func run() async throws {
            let (backend, credential) = try await SessionsCommand.backend(stateDirectory: stateDirectory, json: json)
            let passkeys: [BackendPasskey]
            do {
                passkeys = try await backend.passkeys(using: credential)
            } catch let error as MendError {
                throw Failure.report(error, json: json)
            }
            if json {
                return print(JSONValue.object(["passkeys": .array(passkeys.map(PasskeysCommand.json))]).jsonText())
            }
            if passkeys.isEmpty { return print("No passkeys. Add one with `mend passkeys add`.") }
            let formatter = ISO8601DateFormatter()
            for passkey in passkeys {
                let used = passkey.lastUsedAt.map { "last used \(formatter.string(from: $0))" } ?? "never used"
                print("\(passkey.id)  \(passkey.name), added \(formatter.string(from: passkey.createdAt)), \(used)")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a passkey for the signed-in user with the software authenticator (needs a recent sign-in).",
            discussion: SoftwarePasskeys.note)

        @Option(name: .long, help: "What to call it (default: the backend's name, Passkey).")
        var name: String?

        @Option(
            name: .long,
            help: "The origin the authenticator's ceremonies come from (default: https:// and the backend's RP ID).")
        var origin: String?

        @Option(name: .long, help: "Where the session and the passkeys are kept.")
        var stateDirectory: String?

        @Flag(name: .long, help: "Print the passkey added as JSON: {\"id\", \"name\", \"createdAt\", …}.")
        var json = false

        func run() async throws {
            let (backend, credential) = try await SessionsCommand.backend(stateDirectory: stateDirectory, json: json)
            let directory = LoginProfile.directory(stateDirectory)
            let added: BackendPasskey?
            do {
                added = try await backend.addPasskey(
                    named: name, with: SoftwarePasskeys.authenticator(directory: directory, origin: origin),
                    using: credential)
            } catch let error as MendError {
                throw Failure.report(error, json: json)
            }
            guard let added else { return print(json ? #"{"cancelled":true}"# : "Cancelled.") }
            if json { return print(PasskeysCommand.json(added).jsonText()) }
            print(
                "Added passkey \(added.id) (\(added.name)); its private key is in "
                    + "\(SoftwareAuthenticatorFile(directory: directory).url.path).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove one of the user's passkeys by its id (mend passkeys lists them).")

        @Argument(help: "The passkey's id.")
        var id: String

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        func run() async throws {
            let (backend, credential) = try await SessionsCommand.backend(stateDirectory: stateDirectory)
            do {
                try await backend.removePasskey(id: id, using: credential)
            } catch let error as MendError {
                throw Failure.report(error)
            }
            print("Removed passkey \(id).")
        }
    }
}
