import AsyncHTTPClient
import Foundation
import Logging
import MendCore
import MendEmulator
import MendLogin
import MendTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import SQLKit
import Testing

@testable import MendServer

/// Load with faults: two mend-server instances on one PostgreSQL, many clients doing mixed logins, refreshes, session
/// checks and logouts for a fixed time, while the emulator fails about 10 % of provider calls (503, timeouts, dropped
/// connections). Every answer is checked as it comes; at the end the oracle reads every session back.
///
/// The test command runs a short version (`MEND_LOAD_SECONDS`, default 8; `MEND_LOAD_CONNECTIONS`, default 16);
/// `scripts/load` runs the long one (60 s, 64 connections) and prints the same table.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct ServerLoadTests {
    static let seconds = ProcessInfo.processInfo.environment["MEND_LOAD_SECONDS"].flatMap(Double.init) ?? 8
    static let connections = ProcessInfo.processInfo.environment["MEND_LOAD_CONNECTIONS"].flatMap(Int.init) ?? 16

    /// One answer: its route, status, latency, and the error code of a failure.
    struct Sample: Sendable {
        var route: String
        var status: Int
        var micros: Double
        var code: String?
    }

    /// A client's session as it last knew it.
    struct ClientSession: Sendable {
        var sessionID: String
        var access: String
        var refresh: String
    }

    /// What the load found wrong (each a broken promise, not a slow answer).
    final class Findings: Sendable {
        let problems = Locked<[String]>([])
        func add(_ problem: String) { problems.withLock { if $0.count < 50 { $0.append(problem) } } }
    }

    @Test func mixedTrafficOnTwoInstancesWithProviderFaultsLosesNothing() async throws {
        try await withEmulator { emulator in
            try await PostgresTestDatabase.with(adminURL: TestDatabase.postgresURL!) { url in
                for (path, kind, probability) in [
                    ("/oauth/access_token*", FaultRule.Kind.error, 0.04), ("/oauth/access_token*", .delay, 0.03),
                    ("/oauth/access_token*", .drop, 0.03), ("/me*", .error, 0.04), ("/me*", .delay, 0.03),
                    ("/me*", .drop, 0.03),
                ] {
                    var rule = FaultRule(kind: kind, path: path, probability: probability)
                    if kind == .error { rule.error = "http/503" }
                    if kind == .delay { rule.delayMilliseconds = 1500 }
                    _ = try await emulator.emulator.injectFault(rule)
                }
                var configuration = ServerConfiguration.forEmulator(emulator)
                configuration.storage.databaseURL = url
                configuration.sessions.rateLimits = .unlimited
                configuration.sessions.signingKeys = [.generate(keyID: "load")]
                configuration.providers.timeout = .seconds(1)
                configuration.sessions.accessTokenLifetime = .seconds(60)
                try await withMendServer(configuration: configuration) { first in
                    try await withMendServer(configuration: configuration) { second in
                        try await run(emulator: emulator, servers: [first, second])
                    }
                }
            }
        }
    }

    func run(emulator: RunningEmulator, servers: [RunningMendServer]) async throws {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connections
        let http = HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: clientConfiguration)
        do {
            try await run(emulator: emulator, servers: servers, http: http)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    func run(emulator: RunningEmulator, servers: [RunningMendServer], http: HTTPClient) async throws {
        let findings = Findings()
        let deadline = ContinuousClock.now + .seconds(Self.seconds)
        let bases = servers.map(\.baseURL.absoluteString)

        /// Sends one request to a random instance; checks the answer's shape; returns its status and JSON.
        @Sendable func send(
            _ route: String, method: HTTPMethod, path: String, body: String? = nil, bearer: String? = nil,
            samples: inout [Sample]
        ) async -> (Int, [String: Any]?) {
            var request = HTTPClientRequest(url: bases.randomElement()! + path)
            request.method = method
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
            }
            if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
            let begin = ContinuousClock.now
            do {
                let response = try await http.execute(request, timeout: .seconds(30))
                let data = try await response.body.collect(upTo: 1 << 20)
                let elapsed = ContinuousClock.now - begin
                let micros =
                    Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
                let status = Int(response.status.code)
                let json =
                    data.readableBytes == 0
                    ? nil : try? JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any]
                var code: String?
                if status >= 400 {
                    let error = json?["error"] as? [String: Any]
                    if let domain = error?["domain"] as? String, let number = error?["code"] as? Int,
                        let reference = error?["referenceId"] as? String, !reference.isEmpty
                    {
                        code = "\(domain)/\(number)"
                    } else {
                        findings.add("\(route) answered \(status) without a typed error and reference id")
                        code = "untyped/\(status)"
                    }
                    if status == 500, code == "rest/500" || code?.hasPrefix("untyped") == true {
                        findings.add("\(route) answered a bare 500: \(String(buffer: data).prefix(200))")
                    }
                }
                samples.append(Sample(route: route, status: status, micros: micros, code: code))
                return (status, json)
            } catch {
                findings.add("\(route): no answer (\(error))")
                samples.append(Sample(route: route, status: -1, micros: 0, code: "no answer"))
                return (-1, nil)
            }
        }

        let results = await withTaskGroup(of: ([Sample], [ClientSession], [String], ClientSession?).self) { group in
            for _ in 0..<Self.connections {
                group.addTask {
                    var samples: [Sample] = []
                    var opened: [ClientSession] = []
                    var endedOnPurpose: [String] = []
                    var current: ClientSession?
                    while ContinuousClock.now < deadline {
                        let roll = Int.random(in: 0..<100)
                        if current == nil || roll < 8 {
                            guard let body = try? await emulator.loginCodeBody().jsonText() else { continue }
                            let (status, json) = await send(
                                "POST /v1/login/code", method: .POST, path: "/v1/login/code", body: body,
                                samples: &samples)
                            if status == 200, let json, let id = json["session_id"] as? String,
                                let access = json["access_token"] as? String,
                                let refresh = json["refresh_token"] as? String
                            {
                                current = ClientSession(sessionID: id, access: access, refresh: refresh)
                                opened.append(current!)
                            }
                        } else if let session = current, roll < 40 {
                            let (status, json) = await send(
                                "POST /v1/session/refresh", method: .POST, path: "/v1/session/refresh",
                                body: #"{"refresh_token":"\#(session.refresh)"}"#, samples: &samples)
                            if status == 200, let access = json?["access_token"] as? String,
                                let refresh = json?["refresh_token"] as? String
                            {
                                current?.access = access
                                current?.refresh = refresh
                            } else {
                                findings.add("a refresh of a live session failed: \(status)")
                            }
                        } else if let session = current, roll < 92 {
                            let (status, _) = await send(
                                "GET /v1/session", method: .GET, path: "/v1/session", bearer: session.access,
                                samples: &samples)
                            if status != 200 { findings.add("a live session's check failed: \(status)") }
                        } else if let session = current {
                            let (status, _) = await send(
                                "POST /v1/session/logout", method: .POST, path: "/v1/session/logout", body: "{}",
                                bearer: session.access, samples: &samples)
                            if status == 204 {
                                endedOnPurpose.append(session.sessionID)
                                current = nil
                            } else {
                                findings.add("a logout failed: \(status)")
                            }
                        }
                    }
                    return (samples, opened, endedOnPurpose, current)
                }
            }
            var all: [([Sample], [ClientSession], [String], ClientSession?)] = []
            for await result in group { all.append(result) }
            return all
        }
        let samples = results.flatMap(\.0)
        let opened = results.flatMap(\.1)
        let endedOnPurpose = Set(results.flatMap(\.2))

        // The oracle: every session a client received is in the database, active unless its client logged it out,
        // and every client's last refresh token still rotates.
        let store = servers[0].backend.store.sessions
        for session in opened {
            guard let record = try await store.session(id: session.sessionID) else {
                findings.add("session \(session.sessionID) was lost")
                continue
            }
            if endedOnPurpose.contains(session.sessionID) != (record.revokedAt != nil) {
                findings.add("session \(session.sessionID): revoked \(record.revokedReason ?? "no") unexpectedly")
            }
        }
        var lastSamples: [Sample] = []
        for case let session? in results.map(\.3) {
            let (status, _) = await send(
                "POST /v1/session/refresh", method: .POST, path: "/v1/session/refresh",
                body: #"{"refresh_token":"\#(session.refresh)"}"#, samples: &lastSamples)
            if status != 200 { findings.add("a client's last refresh token no longer rotates: \(status)") }
        }

        print(Self.table(samples, opened: opened.count, endedOnPurpose: endedOnPurpose.count))
        let problems = findings.problems.withLock { $0 }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(opened.count > 0)
    }

    /// Requests, p50/p99 per route, and errors by code.
    static func table(_ samples: [Sample], opened: Int, endedOnPurpose: Int) -> String {
        var lines = [
            "Load with provider faults: 2 instances on PostgreSQL, \(connections) connections, \(Int(seconds)) s",
            "route                       requests       p50 ms     p99 ms",
        ]
        for (route, group) in Dictionary(grouping: samples, by: \.route).sorted(by: { $0.key < $1.key }) {
            let latencies = group.filter { $0.status > 0 }.map(\.micros).sorted()
            guard !latencies.isEmpty else { continue }
            lines.append(
                route.padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(
                        format: "%8d   %10.1f %10.1f", group.count, latencies[latencies.count / 2] / 1000,
                        latencies[latencies.count * 99 / 100] / 1000))
        }
        let errors = Dictionary(grouping: samples.compactMap(\.code), by: { $0 }).mapValues(\.count)
        lines.append(
            "errors by code: "
                + (errors.isEmpty
                    ? "none"
                    : errors.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
                        .joined(separator: ", ")))
        lines.append("sessions opened \(opened), logged out \(endedOnPurpose); \(samples.count) requests in all")
        return lines.joined(separator: "\n")
    }
}
