import Foundation
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendTesting
import Testing

/// Every row of the provider reference's code table, as `domain/code[/subcode]`.
let referenceRows = [
    "graph/1", "graph/2", "graph/4", "graph/17", "graph/17/2446079", "graph/32", "graph/341", "graph/613",
    "graph/613/1996", "graph/80000", "graph/80001", "graph/80002", "graph/80003", "graph/80004", "graph/80005",
    "graph/80006", "graph/80007", "graph/80008", "graph/80009", "graph/80014", "graph/9", "graph/3", "graph/10",
    "graph/200", "graph/250", "graph/299", "graph/100", "graph/100/33", "graph/102", "graph/190", "graph/190/458",
    "graph/190/459", "graph/190/460", "graph/190/463", "graph/190/464", "graph/190/467", "graph/190/492",
    "graph/368", "graph/506", "graph/1609005",
]

@Suite("Graph client against the live emulator")
struct GraphClientEmulatorTests {
    @Test(
        "Every row of the code table: identity, category, recovery, attempts, and the request log agrees",
        arguments: referenceRows)
    func codeTable(row: String) async throws {
        try await withEmulator { emulator in
            let parts = row.split(separator: "/").compactMap { Int($0) }
            let code = MendError.Code(.graph, parts[0])
            let subcode = parts.count > 1 ? MendError.Subcode(rawValue: parts[1]) : nil
            let expected = ErrorCatalog.graph.entry(code: code, subcode: subcode)
            try await emulator.inject(error: row, path: "/me")
            let tokens = StaticCredential(token: try await emulator.token())
            let waits = Waits()
            let client = graphClient(emulator, tokens: tokens, waits: waits)
            let error = try await #require(throws: MendError.self) {
                try await client.send(GraphRequest(path: "me", fields: ["id", "name"]))
            }
            #expect(error.domain == .graph)
            #expect(error.code == code)
            #expect(error.subcode == subcode)
            #expect(error.name == expected.name)
            #expect(error.category == expected.category)
            #expect(error.recovery.action == expected.recovery)
            #expect(error.referenceID?.isEmpty == false, "every provider error carries a trace id")
            let retried =
                error.category == .transient && error.isAutomaticallyRetryable
                && (error.recovery.notBefore.map { $0.timeIntervalSinceNow <= 60 } ?? true)
            #expect(error.attempts == (retried ? 3 : 1), "\(error)")
            let sent = await emulator.requestLog().filter { $0.path.hasSuffix("/me") }
            #expect(sent.count == error.attempts)
            #expect(waits.all.count == error.attempts - 1)
            #expect(GraphClient.isTokenError(error) == GraphCredentialRows.isTokenError(error))
            if GraphCredentialRows.isTokenError(error) {
                #expect(try await tokens.currentCredential()?.token == nil, "a token error clears the token")
                #expect(tokens.invalidation?.subcode == subcode)
            }
            if error.recovery.action == .requestPermissions, let permission = error.recovery.permissions.first {
                #expect(!permission.isEmpty)
            }
        }
    }

    @Test("An expired token: the token is cleared, the attempter logs in once, the request is replayed once")
    func recoveryReplaysOnce() async throws {
        try await withEmulator { emulator in
            try await emulator.inject(error: "graph/190/463", path: "/me", times: 1)
            let tokens = StaticCredential(token: try await emulator.token())
            let login = EmulatorLogin(emulator: emulator, tokens: tokens)
            let client = graphClient(emulator, tokens: tokens, attempter: login)
            let response = try await client.send(GraphRequest(path: "me", fields: ["id", "name"]))
            let profile = try response.decode(Profile.self)
            #expect(profile.name == "Alice Example")
            #expect(response.attempts == 2)
            #expect(login.calls.current == 1)
            #expect(await emulator.requestLog().filter { $0.path.hasSuffix("/me") }.count == 2)
        }
    }

    @Test("A failed recovery returns the token error once; onTokenError .invalidate at once; both clear the token")
    func recoveryFails() async throws {
        try await withEmulator { emulator in
            let tokens = StaticCredential(token: try await emulator.token())
            try await emulator.setUserState(.passwordChanged)
            let login = EmulatorLogin(emulator: emulator, tokens: tokens, succeeds: false)
            let client = graphClient(emulator, tokens: tokens, attempter: login)
            let failed = try await #require(throws: MendError.self) { try await client.send(GraphRequest(path: "me")) }
            #expect(failed.matches(.Graph.accessTokenInvalid, .passwordChanged))
            #expect(failed.attempts == 1)
            #expect(login.calls.current == 1)
            #expect(try await tokens.currentCredential()?.token == nil)
            #expect(tokens.invalidation?.subcode == .passwordChanged)

            try await emulator.setUserState(.active)
            tokens.set(Credential(token: try await emulator.token()))
            try await emulator.setUserState(.passwordChanged)
            let skipped = try await #require(throws: MendError.self) {
                try await client.send(GraphRequest(path: "me", onTokenError: .invalidate))
            }
            #expect(skipped.matches(.Graph.accessTokenInvalid, .passwordChanged))
            #expect(login.calls.current == 1, "onTokenError: .invalidate runs no attempter")
            #expect(try await tokens.currentCredential()?.token == nil, "but the dead token is still cleared")
        }
    }

    @Test(
        "onTokenError: .keep returns the token error at once and keeps the token; an override is never cleared")
    func keepsTheTokenWhenAsked() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.token()
            let tokens = StaticCredential(token: token)
            try await emulator.setUserState(.passwordChanged)
            let login = EmulatorLogin(emulator: emulator, tokens: tokens)
            let client = graphClient(emulator, tokens: tokens, attempter: login)
            let kept = try await #require(throws: MendError.self) {
                try await client.send(GraphRequest(path: "me", onTokenError: .keep))
            }
            #expect(kept.matches(.Graph.accessTokenInvalid, .passwordChanged))
            #expect(login.calls.current == 0)
            #expect(try await tokens.currentCredential()?.token == token)
            #expect(tokens.invalidation == nil)

            var overridden = GraphRequest(path: "me")
            overridden.tokenOverride = token
            _ = try await #require(throws: MendError.self) { try await client.send(overridden) }
            #expect(login.calls.current == 0)
            #expect(try await tokens.currentCredential()?.token == token)
        }
    }

    @Test("1,000 concurrent requests when the token expires: one recovery, every completion exactly once")
    func concurrentExpiry() async throws {
        try await withEmulator { emulator in
            let tokens = StaticCredential(token: try await emulator.token(lifetime: 3600))
            await emulator.advanceClock(by: 7200)
            let login = EmulatorLogin(emulator: emulator, tokens: tokens)
            let client = graphClient(emulator, tokens: tokens, attempter: login)
            let completions = Collected()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<1000 {
                    group.addTask {
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            client.send(GraphRequest(path: "me", fields: ["id"])) { outcome in
                                if case .success(let response) = outcome, response.attempts == 2 {
                                    completions.append(index)
                                } else {
                                    completions.append(-1 - index)
                                }
                                continuation.resume()
                            }
                        }
                    }
                }
            }
            let all = completions.all
            #expect(all.count == 1000)
            #expect(Set(all) == Set(0..<1000), "every request succeeded after exactly one replay")
            #expect(login.calls.current == 1)
        }
    }
}

/// Which errors the Graph client treats as token errors (102, 190 recoverable).
enum GraphCredentialRows {
    static func isTokenError(_ error: MendError) -> Bool {
        (error.code == .Graph.sessionInvalid || error.code == .Graph.accessTokenInvalid)
            && error.category == .recoverable
    }
}

/// Values appended from many tasks.
final class Collected: Sendable {
    private let values = Locked<[Int]>([])
    func append(_ value: Int) { values.withLock { $0.append(value) } }
    var all: [Int] { values.withLock { $0 } }
}
