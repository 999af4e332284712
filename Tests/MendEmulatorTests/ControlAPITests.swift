import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The control API under `/_emulator/` and the fault kinds.
struct ControlAPITests {
    @Test func runningTimeAndDelayedAnswersFollowThePipelineClock() async throws {
        // The emulator's running time comes from the clock it is given (MendHTTP's PipelineClock), so a test moves
        // it without the control API; advancing on command still adds to it, and a frozen clock ignores the source.
        let offset = OffsetClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let running = Emulator(
            configuration: EmulatorConfiguration(startTime: start, clockMode: .running), clock: offset.pipeline())
        offset.advance(by: 3600)
        let later = await running.now()
        #expect(later.timeIntervalSince(start) >= 3600)
        _ = await running.advanceClock(by: 60)
        #expect(await running.now().timeIntervalSince(later) >= 60)
        let frozen = Emulator(
            configuration: EmulatorConfiguration(startTime: start, clockMode: .frozen), clock: offset.pipeline())
        offset.advance(by: 3600)
        #expect(await frozen.now() == start)
        // A delayed answer waits on the same clock: one that records its waits sees the fault's delay.
        let waits = LockedDurations()
        let recording = PipelineClock(sleep: { waits.append($0) })
        try await withEmulator(clock: recording) { running in
            _ = try await running.emulator.injectFault(
                FaultRule(kind: .delay, path: "/me", delayMilliseconds: 2500, times: 1))
            _ = try? await URLSession.shared.data(from: running.url("/v25.0/me"))
        }
        #expect(waits.values == [.milliseconds(2500)])
    }

    @Test func faultsAreAddedListedCountedAndRemovedOverHTTP() async throws {
        try await withEmulatorClient(.live) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let added = try await client.postJSON(
                "/_emulator/faults", #"{"error":"graph/190/463","path":"/me","method":"GET","times":2}"#)
            #expect(added.status == 201)
            let id = try #require(added.json?["id"]?.stringValue)
            for _ in 0..<2 {
                let reply = try await client.get("\(v)/me?access_token=\(token)")
                #expect(reply.json?["error"]?["error_subcode"]?.intValue == 463)
            }
            #expect(try await client.get("\(v)/me?access_token=\(token)").status == 200)
            let list = try await client.get("/_emulator/faults")
            #expect(list.json?.arrayValue?.first?["hits"]?.intValue == 2)
            #expect(try await client.delete("/_emulator/faults/\(id)").status == 200)
            #expect(try await client.delete("/_emulator/faults/\(id)").status == 404)
            let invalid = try await client.postJSON("/_emulator/faults", #"{"error":"login/302"}"#)
            #expect(invalid.status == 400)
            #expect(invalid.json?["error"]?["message"]?.stringValue?.contains("client") == true)
            #expect(try await client.postJSON("/_emulator/faults", #"{"error":"nonsense"}"#).status == 400)
            #expect(try await client.postJSON("/_emulator/faults", "{}").status == 400)
        }
    }

    @Test func faultsMatchOnUserAndMethod() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let aliceToken = try await emulator.issueToken(userID: alice)
            let bobToken = try await emulator.issueToken(userID: bob)
            try await emulator.injectFault(FaultRule(kind: .error, error: "graph/190/459", method: "GET", userID: bob))
            #expect(try await client.get("\(v)/me?access_token=\(aliceToken)").status == 200)
            #expect(
                try await client.get("\(v)/me?access_token=\(bobToken)").json?["error"]?["error_subcode"]?.intValue
                    == 459)
        }
    }

    @Test func aFractionOfRequestsIsDeterministicForTheSeed() async throws {
        func run() async throws -> [Int] {
            let emulator = Emulator(configuration: testConfiguration())
            try await emulator.injectFault(FaultRule(kind: .error, error: "graph/2", probability: 0.5))
            let token = try await emulator.issueToken(userID: alice)
            var statuses: [Int] = []
            for _ in 0..<40 {
                let answer = await emulator.handle(
                    EmulatorRequest(method: .get, target: "\(v)/me?access_token=\(token)"))
                statuses.append(answer.status.code)
            }
            return statuses
        }
        let first = try await run()
        let second = try await run()
        #expect(first == second)
        let failures = first.filter { $0 == 500 }.count
        #expect(failures > 5 && failures < 35)
    }

    @Test func bodyFaultsBreakTheBodyTheWayClientsMustSurvive() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let decoder = GraphErrorDecoder()
            func decode(_ reply: Reply) -> MendError? {
                decoder.decodeError(
                    response: HTTPResponse(status: .init(code: reply.status), headerFields: reply.headers),
                    body: reply.body, context: ErrorDecodingContext(catalog: .everySpace))
            }
            try await emulator.injectFault(FaultRule(kind: .malformedJSON, path: "/me", times: 1))
            #expect(decode(try await client.get("\(v)/me?access_token=\(token)"))?.code == .Transport.malformedResponse)
            try await emulator.injectFault(FaultRule(kind: .truncatedJSON, path: "/me", times: 1))
            let truncated = try await client.get("\(v)/me?access_token=\(token)")
            #expect(truncated.status == 200)
            #expect(truncated.json == nil)
            #expect(decode(truncated)?.code == .Transport.malformedResponse)
            try await emulator.injectFault(FaultRule(kind: .html, path: "/me", status: 503, retryAfter: "7", times: 1))
            let html = try await client.get("\(v)/me?access_token=\(token)")
            #expect(html.status == 503)
            #expect(html.text.contains("<html>"))
            let htmlError = try #require(decode(html))
            #expect(htmlError.code == .HTTP.serviceUnavailable)
            #expect(htmlError.category == .transient)
            #expect(html.header("retry-after") == "7")
            try await emulator.injectFault(FaultRule(kind: .empty, path: "/me", times: 1))
            let empty = try await client.get("\(v)/me?access_token=\(token)")
            #expect(empty.status == 500 && empty.body.isEmpty)
            try await emulator.injectFault(
                FaultRule(
                    kind: .status, path: "/me", status: 418, body: "teapot", contentType: "text/plain",
                    headers: ["X-Extra": "1"], times: 1))
            let custom = try await client.get("\(v)/me?access_token=\(token)")
            #expect(custom.status == 418 && custom.text == "teapot" && custom.header("x-extra") == "1")
            try await emulator.injectFault(.error("http/502", path: "/me", times: 1))
            #expect(decode(try await client.get("\(v)/me?access_token=\(token)"))?.code == .HTTP.badGateway)
            try await emulator.injectFault(.error("transport/8", path: "/me", times: 1))
            #expect(decode(try await client.get("\(v)/me?access_token=\(token)"))?.code == .Transport.nonJSONBody)
            try await emulator.injectFault(.error("transport/10", path: "/me", times: 1))
            #expect(decode(try await client.get("\(v)/me?access_token=\(token)"))?.code == .Transport.emptyResponse)
        }
    }

    @Test func theRequestLogRedactsTokensAndSecrets() async throws {
        try await withEmulatorClient(.live) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            _ = try await client.get("\(v)/me?fields=id&access_token=\(token)")
            _ = try await client.get(
                "\(v)/oauth/access_token?client_id=\(appID)&client_secret=\(appSecret)&code=AQ1234567890123456789012345"
            )
            let log = try await client.get("/_emulator/requests")
            let text = log.text
            #expect(!text.contains(token))
            #expect(!text.contains(appSecret))
            #expect(!text.contains("AQ1234567890123456789012345"))
            let entries = try #require(log.json?.arrayValue)
            #expect(entries.count == 2)
            #expect(entries[0]["method"]?.stringValue == "GET")
            #expect(entries[0]["path"]?.stringValue == "\(v)/me")
            #expect(entries[0]["status"]?.intValue == 200)
            #expect(entries[0]["userID"]?.stringValue == alice)
            #expect(entries[0]["query"]?.stringValue?.contains("fields=id") == true)
            #expect(entries[0]["timestamp"]?.stringValue == "2026-01-01T00:00:00Z")
            #expect(entries[1]["status"]?.intValue == 400)
            #expect(try await client.delete("/_emulator/requests").status == 200)
            #expect(try await client.get("/_emulator/requests").json?.arrayValue == [])
        }
    }

    @Test func clockTokensConsentKeysStatusAndReset() async throws {
        try await withEmulatorClient(.live) { client, emulator in
            let advanced = try await client.postJSON("/_emulator/clock/advance", #"{"seconds":3600}"#)
            #expect(advanced.json?["now"]?.stringValue == "2026-01-01T01:00:00Z")
            #expect(try await client.get("/_emulator/clock").json?["now"]?.stringValue == "2026-01-01T01:00:00Z")
            let issued = try await client.postJSON("/_emulator/tokens", #"{"userID":"\#(bob)","scopes":["email"]}"#)
            let token = try #require(issued.json?["access_token"]?.stringValue)
            #expect(
                try await client.get("\(v)/me?fields=email&access_token=\(token)").json?["email"]?.stringValue
                    == "bob@example.com")
            #expect(try await client.postJSON("/_emulator/consent", #"{"mode":"grantAll"}"#).status == 200)
            let dialog = try await client.get(
                "\(v)/dialog/oauth?client_id=\(appID)&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback")
            #expect(dialog.status == 302)
            let rotated = try await client.postJSON("/_emulator/keys/rotate", "{}")
            #expect(rotated.json?["kid"]?.stringValue?.count == 40)
            let status = try await client.get("/_emulator/status")
            #expect(status.json?["users"]?.arrayValue?.count == 3)
            #expect(status.json?["graphVersion"]?.stringValue == "v25.0")
            #expect(try await client.postJSON("/_emulator/reset", "{}").status == 200)
            #expect(try await client.get("/_emulator/clock").json?["now"]?.stringValue == "2026-01-01T00:00:00Z")
            // Same seed, same requests: the same token again.
            let again = try await client.postJSON("/_emulator/tokens", #"{"userID":"\#(bob)","scopes":["email"]}"#)
            #expect(again.json?["access_token"]?.stringValue == token)
            #expect(try await client.get("/_emulator/nothing").status == 404)
            _ = emulator
        }
    }

    @Test func theControlAPIIsOffOutsideTestMode() async throws {
        try await withEmulatorClient(.router, configuration: testConfiguration(testMode: false)) { client, _ in
            let reply = try await client.get("/_emulator/status")
            #expect(reply.status == 400)
            #expect(reply.json?["error"]?["code"]?.intValue == 2500)
        }
    }
}

/// The client test kit's catalog (for tests that build without the emulator) is the emulator's: the same spaces in the
/// same order, row for row.
@Test func theClientTestKitsCatalogIsEverySpace() {
    #expect(ErrorCatalog.everyClientSpace.domains == ErrorCatalog.everySpace.domains)
    #expect(ErrorCatalog.everyClientSpace.entries == ErrorCatalog.everySpace.entries)
}

/// Durations recorded from any task.
final class LockedDurations: @unchecked Sendable {
    // Every access holds the lock.
    private let lock = NSLock()
    private var recorded: [Duration] = []

    func append(_ duration: Duration) { lock.withLock { recorded.append(duration) } }
    var values: [Duration] { lock.withLock { recorded } }
}
