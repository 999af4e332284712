import ArgumentParser
import Foundation
import MendCore
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin

/// `mend sessions` and `mend sessions end ID`: the user's sessions at the backend (devices), and ending one.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions", abstract: "List the user's sessions at the backend (devices), or end one.",
        subcommands: [List.self, End.self], defaultSubcommand: List.self)

    /// The backend client and a valid credential of the stored session (DPoP-bound when the session is), or exit 1
    /// saying why not.
    static func backend(
        stateDirectory: String?, json: Bool = false
    ) async throws -> (BackendSessionClient, MendHTTP.Credential) {
        guard
            let (credentials, profile) = try await LoginProfile.credentials(
                directory: LoginProfile.directory(stateDirectory)),
            try await credentials.currentSession() != nil
        else {
            if json {
                print(JSONValue.object(["loggedIn": .bool(false)]).jsonText())
            } else {
                StandardError.write("Not logged in. Run `mend login --backend …`.\n")
            }
            throw ExitCode(ExitCodes.notLoggedIn)
        }
        guard let backend = profile.backendClient(transport: AsyncHTTPClientTransport()) else {
            let reason = "The session does not come from a backend (mend login --backend …): it has no devices."
            if json {
                print(JSONValue.object(["loggedIn": .bool(true), "error": .string(reason)]).jsonText())
            } else {
                StandardError.write(reason + "\n")
            }
            throw ExitCode(1)
        }
        do {
            guard let credential = try await credentials.currentCredential() else { throw ExitCode(1) }
            return (backend, credential)
        } catch let error as MendError {
            throw Failure.report(error, json: json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the user's active sessions, newest first (* marks this one).")

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Print JSON: {\"sessions\": [{\"id\", \"current\", \"client\", \"platform\", \"createdAt\", "
                    + "\"refreshedAt\", \"expiresAt\", \"firstAddress\", \"lastAddress\"}]} (ISO 8601 times)."))
        var json = false

        func run() async throws {
            let (backend, token) = try await SessionsCommand.backend(stateDirectory: stateDirectory, json: json)
            let devices: [BackendDevice]
            do {
                devices = try await backend.sessions(using: token)
            } catch let error as MendError {
                throw Failure.report(error, json: json)
            }
            let formatter = ISO8601DateFormatter()
            if json {
                func date(_ value: Date?) -> JSONValue { value.map { .string(formatter.string(from: $0)) } ?? .null }
                func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
                let entries = devices.map { device in
                    JSONValue.object([
                        "id": .string(device.id), "current": .bool(device.isCurrent), "client": text(device.client),
                        "platform": text(device.platform), "createdAt": date(device.createdAt),
                        "refreshedAt": date(device.refreshedAt), "expiresAt": date(device.expiresAt),
                        "firstAddress": text(device.firstAddress), "lastAddress": text(device.lastAddress),
                    ])
                }
                print(JSONValue.object(["sessions": .array(entries)]).jsonText())
                return
            }
            for device in devices {
                let client =
                    device.client.map { "\($0)\(device.platform.map { " (\($0))" } ?? "")" } ?? "unknown client"
                let refreshed = device.refreshedAt.map { ", refreshed \(formatter.string(from: $0))" } ?? ""
                let address = device.lastAddress.map { ", from \($0)" } ?? ""
                print(
                    "\(device.isCurrent ? "*" : " ") \(device.id)  \(client), signed in "
                        + "\(formatter.string(from: device.createdAt))\(refreshed)\(address)")
            }
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end", abstract: "End one of the user's sessions by its id (mend sessions lists them).")

        @Argument(help: "The session id.")
        var id: String

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        func run() async throws {
            let (backend, token) = try await SessionsCommand.backend(stateDirectory: stateDirectory)
            do {
                try await backend.endSession(id: id, using: token)
            } catch let error as MendError {
                throw Failure.report(error)
            }
            print("Ended session \(id).")
        }
    }
}
