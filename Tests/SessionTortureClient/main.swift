// A client process for the session torture test (Tests/MendLoginIntegrationTests/SessionTortureTests.swift): several
// CredentialsManagers in one process sharing one FileTokenStore, driven over standard input.
//
//   MendSessionTortureClient --state-directory DIR --backend URL --provider URL --app-id ID [--managers N]
//                            [--attempt-timeout SECONDS]
//
// Each line on standard input is a JSON request {"id": 1, "op": "refresh", "manager": 0, "minTTL": 1}; each answer
// is a JSON line {"id": 1, "ok": true, ...} on standard output, in the order the operations finish (they run
// concurrently). Tokens never leave the process: answers carry SHA-256 prefixes of them.
//
// Operations: validToken (minTTL), refresh, checkValidity, whoami (a forced validity check, then the user), logout,
// login (a headless consent through the provider's page and a loopback redirect, exchanged by the backend), state
// (the manager's cached session, no network), quit.

import Crypto
import Foundation
import MendCore
import MendFacebook
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting

struct Options {
    var stateDirectory = URL(fileURLWithPath: ".")
    var backend = URL(string: "http://127.0.0.1")!
    var provider = URL(string: "http://127.0.0.1")!
    var appID = ""
    var managers = 2
    var attemptTimeout = 1.5

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let name = iterator.next() {
            guard let value = iterator.next() else { break }
            switch name {
            case "--state-directory": stateDirectory = URL(fileURLWithPath: value)
            case "--backend": backend = URL(string: value)!
            case "--provider": provider = URL(string: value)!
            case "--app-id": appID = value
            case "--managers": managers = Int(value) ?? 2
            case "--attempt-timeout": attemptTimeout = Double(value) ?? 1.5
            default: FileHandle.standardError.write(Data("unknown option \(name)\n".utf8))
            }
        }
    }
}

struct Command: Decodable {
    var id: Int
    var op: String
    var manager: Int?
    var minTTL: Double?
}

struct Answer: Encodable {
    var id: Int
    var ok: Bool
    var loggedIn: Bool
    var family: String?
    var refreshToken: String?
    var accessToken: String?
    var error: String?
    var errorName: String?
    var category: String?
    var revoked: Bool?
    var revocationError: String?
    var user: String?
}

func fingerprint(_ token: String?) -> String? {
    token.map { SHA256.hash(data: Data($0.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined() }
}

final class Output: @unchecked Sendable {
    // Safe: every write happens under the lock.
    private let lock = NSLock()
    func send(_ answer: Answer) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(answer) else { return }
        lock.withLock {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

let options = Options(CommandLine.arguments)
let transport = AsyncHTTPClientTransport()
let store = FileTokenStore(url: options.stateDirectory.appendingPathComponent("session.json"))
let policy = BackendSessionClient.RefreshPolicy(
    maximumAttempts: 3, attemptTimeout: .milliseconds(Int(options.attemptTimeout * 1000)),
    retryDelay: .milliseconds(100))
let backend = BackendSessionClient(
    baseURL: options.backend, transport: transport, refreshPolicy: policy,
    requestTimeout: .milliseconds(Int(options.attemptTimeout * 3000)))
let managers = (0..<max(1, options.managers)).map { _ in CredentialsManager(store: store, authority: backend) }
let provider = LoginProvider.emulator(baseURL: options.provider, appID: options.appID, version: "v25.0")
let output = Output()

func run(_ command: Command) async -> Answer {
    let manager = managers[min(command.manager ?? 0, managers.count - 1)]
    var answer = Answer(id: command.id, ok: true, loggedIn: false)
    do {
        switch command.op {
        case "validToken":
            _ = try await manager.validToken(minTTL: command.minTTL ?? 60)
        case "refresh":
            try await manager.refresh()
        case "checkValidity":
            answer.ok = try await manager.checkValidity(force: true)
        case "whoami":
            answer.ok = try await manager.checkValidity(force: true)
            answer.user = try await manager.currentSession()?.user?.name
        case "logout":
            let outcome = try await manager.logout()
            answer.revoked = outcome.revoked
            answer.revocationError = outcome.revocationError.map { "\($0.code)" }
        case "login":
            let login = LoginManager(provider: provider, credentials: manager)
            let presenter = LoopbackBrowserPresenter(
                opener: .custom { url in try await HeadlessConsentBrowser().open(url) }, timeout: .seconds(30))
            let result = try await login.logIn(presenter: presenter)
            answer.ok = !result.isCancelled
        case "state":
            break
        default:
            answer.ok = false
            answer.error = "unknown op \(command.op)"
        }
    } catch let error as MendError {
        answer.ok = false
        answer.error = "\(error.code)"
        answer.errorName = error.name
        answer.category = error.category.rawValue
    } catch {
        answer.ok = false
        answer.error = "\(type(of: error))"
    }
    let session = try? await manager.currentSession()
    answer.loggedIn = session != nil
    answer.family = session?.familyID
    answer.refreshToken = fingerprint(session?.refreshToken)
    answer.accessToken = fingerprint(session?.accessToken.tokenString)
    return answer
}

await withTaskGroup(of: Void.self) { group in
    var quit = false
    while let line = readLine() {
        guard let command = try? JSONDecoder().decode(Command.self, from: Data(line.utf8)) else { continue }
        if command.op == "quit" {
            quit = true
            break
        }
        group.addTask { output.send(await run(command)) }
    }
    // Standard input closed without `quit`: the harness is gone (a test process killed), and nobody will read an
    // answer. Stop at once rather than finish work for no one (orphans of a killed run once kept running for an hour).
    if !quit { group.cancelAll() }
    await group.waitForAll()
}
