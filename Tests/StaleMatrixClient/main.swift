// Mend's client in the stale-answer scenario matrix (scripts/stale-peer-matrix.py): an app's pieces as an app would
// put them together — a CredentialsManager that owns the session and purges the response store, a FileResponseStore
// in a private folder, and two APIClients (snapshot and RFC 9111 modes) whose steps keep the user's last good answers.
// One try per request: the matrix asks what is served in place of a failure, not how retries recover (each timeout
// cell would otherwise wait twice).
//
//   MendStaleMatrixClient <baseURL>
//
// Each line on standard input is a JSON request; each answer one JSON line on standard output:
//   {"op":"login","user":"alice","token":"tok-alice"}              -> {"ok":true}
//   {"op":"get","path":"/graph/me","maxStale":600,"timeout":0.5,"cacheMode":"snapshot"}
//        -> {"status":200,"body":"…","stale":false,"ageSeconds":null,"error":null}
//   {"op":"advance","seconds":N}                                    -> {"ok":true}   (the app's clock moves on)
//   {"op":"signout"}                                                -> {"ok":true}
//   {"op":"quit"}

import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendResponseStore

/// The app's clock: the matrix moves it to age the stored answers; waits (retry backoff) are skipped.
final class MatrixClock: Sendable {
    let now = Locked(Date())
    var clock: PipelineClock {
        PipelineClock(sleep: { _ in try Task.checkCancellation() }, now: { self.now.current }, random: { 0.5 })
    }
}

@main
struct StaleMatrixClient {
    static func main() async throws {
        guard CommandLine.arguments.count == 2, let base = URL(string: CommandLine.arguments[1]) else {
            FileHandle.standardError.write(Data("usage: MendStaleMatrixClient <baseURL>\n".utf8))
            exit(2)
        }
        let time = MatrixClock()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mend-stale-matrix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let answers = FileResponseStore(directory: folder, clock: time.clock)
        let credentials = CredentialsManager(store: InMemoryTokenStore(), clock: time.clock, responseStore: answers)
        let transport = AsyncHTTPClientTransport()
        func client(_ mode: LastKnownGood.Mode) -> APIClient {
            APIClient(
                transport: transport, configuration: .init(clock: time.clock),
                steps: .standard(
                    credentialProvider: credentials, retryPolicy: .never,
                    lastKnownGood: LastKnownGood(store: answers, mode: mode)))
        }
        let snapshot = client(.snapshot)
        let httpCaching = client(.httpCaching)

        while let line = readLine() {
            guard let request = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let op = request["op"] as? String
            else {
                reply(["ok": false, "error": "unreadable request"])
                continue
            }
            switch op {
            case "login":
                let user = request["user"] as? String ?? ""
                let token = request["token"] as? String ?? ""
                try await credentials.signIn(
                    Session(issuer: .backend, accessToken: AccessToken(tokenString: token), user: .init(id: user)))
                reply(["ok": true])
            case "advance":
                let seconds = request["seconds"] as? Double ?? 0
                time.now.withLock { $0 = $0.addingTimeInterval(seconds) }
                reply(["ok": true])
            case "signout":
                _ = try? await credentials.logout(revoke: false)
                reply(["ok": true])
            case "get":
                let path = request["path"] as? String ?? "/"
                let maxStale = (request["maxStale"] as? Double).flatMap { $0 > 0 ? Duration.seconds($0) : nil }
                let timeout = (request["timeout"] as? Double).map { Duration.seconds($0) }
                let client = (request["cacheMode"] as? String) == "http" ? httpCaching : snapshot
                let url = base.appendingPathComponent(String(path.drop { $0 == "/" }))
                do {
                    let response = try await client.send(
                        APIRequest(
                            method: .get, url: url,
                            options: RequestOptions(attemptTimeout: timeout, maxStale: maxStale)))
                    reply([
                        "status": response.head.status.code, "body": String(decoding: response.body, as: UTF8.self),
                        "stale": response.staleness != nil, "ageSeconds": response.staleness.map { $0.age } ?? NSNull(),
                        "error": response.staleness.map { "\($0.error.code)" } ?? NSNull(),
                    ])
                } catch let error as MendError {
                    reply([
                        "status": NSNull(), "body": NSNull(), "stale": false, "ageSeconds": NSNull(),
                        "error": "\(error.code)",
                    ])
                } catch {
                    reply([
                        "status": NSNull(), "body": NSNull(), "stale": false, "ageSeconds": NSNull(),
                        "error": "\(type(of: error))",
                    ])
                }
            case "quit":
                return
            default:
                reply(["ok": false, "error": "unknown op \(op)"])
            }
        }
    }

    static func reply(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
