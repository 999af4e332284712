import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// A user's sessions as devices: the list, ending one, the sign-out scopes and the two lifetimes, through HTTP.
@Suite struct DevicesTests {
    static let bob = "100000000000002"

    /// Logs in through the server as `userID` (the emulator's default user without one), sending `client` as the
    /// `Mend-Client` header when given.
    static func login(_ stack: TestStack, client: String?, userID: String? = nil) async throws -> JSONValue {
        let body = try await stack.emulator.loginCodeBody(userID: userID)
        var headers = HTTPFields()
        if let client { headers[SessionClient.header] = client }
        return try await stack.client.post("/v1/login/code", json: body, headers: headers).json()
    }

    static func access(_ session: JSONValue) throws -> String { try #require(session["access_token"]?.stringValue) }

    static func list(_ client: ServerClient, _ session: JSONValue) async throws -> [JSONValue] {
        try await client.get("/v1/sessions", bearer: try access(session)).json()["sessions"]?.arrayValue ?? []
    }

    @Test(
        "The devices list shows what each client sent, newest first, the caller's own marked",
        arguments: TestDatabase.available)
    func devicesList(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let phone = try await Self.login(stack, client: "MendApp/1.2 (iOS 18.1)")
            stack.clock.advance(by: 10)
            let laptop = try await Self.login(stack, client: "mend/0.9 (Linux)")
            stack.clock.advance(by: 10)
            let bare = try await Self.login(stack, client: nil)
            stack.clock.advance(by: 10)
            _ = try await stack.client.refresh(laptop["refresh_token"])

            let sessions = try await Self.list(stack.client, phone)
            #expect(
                sessions.map { $0["id"]?.stringValue } == [bare, laptop, phone].map { $0["session_id"]?.stringValue })
            #expect(sessions.map { $0["current"]?.boolValue } == [false, false, true])
            #expect(sessions.map { $0["client"]?.stringValue } == [nil, "mend/0.9", "MendApp/1.2"])
            #expect(sessions.map { $0["platform"]?.stringValue } == [nil, "Linux", "iOS 18.1"])
            #expect(sessions.allSatisfy { $0["first_address"]?.stringValue == "127.0.0.1" })
            #expect(sessions.allSatisfy { $0["last_address"]?.stringValue == "127.0.0.1" })
            let created = sessions.compactMap { $0["created_at"]?.intValue }
            #expect(created == created.sorted(by: >) && Set(created).count == 3)
            // The laptop refreshed 10 s (on the test clock, plus the real time the test took) after bare's login.
            #expect((sessions[1]["refreshed_at"]?.intValue ?? 0) >= created[0] + 10)
            #expect(sessions[0]["refreshed_at"] == .null && sessions[2]["refreshed_at"] == .null)
            // Bob sees his own sessions only.
            let bob = try await Self.login(stack, client: "Other/1 (Android 15)", userID: Self.bob)
            #expect(try await Self.list(stack.client, bob).map { $0["client"]?.stringValue } == ["Other/1"])
        }
    }

    @Test(
        "A user ends one of their sessions by its id; another user's session is 404 and goes on",
        arguments: TestDatabase.available)
    func endOneSession(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let phone = try await Self.login(stack, client: "MendApp/1.2 (iOS 18.1)")
            let lost = try await Self.login(stack, client: "MendApp/1.2 (iPadOS 18.1)")
            let bob = try await Self.login(stack, client: nil, userID: Self.bob)
            let bobsID = try #require(bob["session_id"]?.stringValue)
            let theirs = await stack.client.failure {
                try await stack.client.delete("/v1/sessions/\(bobsID)", bearer: try Self.access(phone))
            }
            #expect(theirs?.httpStatus == 404 && theirs?.code == .REST.notFound)
            let none = await stack.client.failure {
                try await stack.client.delete("/v1/sessions/ses_nothing", bearer: try Self.access(phone))
            }
            #expect(none?.httpStatus == 404)
            _ = try await stack.client.get("/v1/session", bearer: try Self.access(bob))

            let lostID = try #require(lost["session_id"]?.stringValue)
            let ended = try await stack.client.delete("/v1/sessions/\(lostID)", bearer: try Self.access(phone))
            #expect(ended.head.status == .noContent)
            let refused = await stack.client.failure { try await stack.client.refresh(lost["refresh_token"]) }
            #expect(refused?.isSession(.Session.loggedOut) == true)
            let check = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: Self.access(lost))
            }
            #expect(check?.isSession(.Session.loggedOut) == true)
            #expect(try await Self.list(stack.client, phone).map { $0["id"] } == [phone["session_id"]])
            let unauthenticated = await stack.client.failure {
                try await stack.client.get("/v1/sessions")
            }
            #expect(unauthenticated?.isSession(.Session.accessTokenMissing) == true)
        }
    }

    @Test(
        "Logout scopes: others keeps the caller's session and ends the rest; global ends all",
        arguments: TestDatabase.available)
    func logoutScopes(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let sessions = [
                try await Self.login(stack, client: "a/1"), try await Self.login(stack, client: "b/1"),
                try await Self.login(stack, client: "c/1"),
            ]
            let bob = try await Self.login(stack, client: nil, userID: Self.bob)
            let others = try await stack.client.post(
                "/v1/session/logout", json: .object(["scope": .string("others")]), bearer: try Self.access(sessions[0]),
                expectsJSON: false)
            #expect(others.head.status == .noContent)
            _ = try await stack.client.get("/v1/session", bearer: try Self.access(sessions[0]))
            for ended in sessions.dropFirst() {
                let refused = await stack.client.failure {
                    try await stack.client.get("/v1/session", bearer: try Self.access(ended))
                }
                #expect(refused?.isSession(.Session.loggedOut) == true)
            }
            #expect(try await Self.list(stack.client, sessions[0]).count == 1)
            _ = try await stack.client.get("/v1/session", bearer: try Self.access(bob))

            // global, with the refresh token alone (an expired access token must not stop it).
            let fresh = try await Self.login(stack, client: "d/1")
            let global = try await stack.client.post(
                "/v1/session/logout",
                json: .object(["scope": .string("global"), "refresh_token": fresh["refresh_token"]!]),
                expectsJSON: false)
            #expect(global.head.status == .noContent)
            for ended in [sessions[0], fresh] {
                let refused = await stack.client.failure {
                    try await stack.client.get("/v1/session", bearer: try Self.access(ended))
                }
                #expect(refused?.isSession(.Session.loggedOut) == true)
            }
            _ = try await stack.client.get("/v1/session", bearer: try Self.access(bob))
            let bad = await stack.client.failure {
                try await stack.client.post(
                    "/v1/session/logout", json: .object(["scope": .string("everyone")]), bearer: try Self.access(bob))
            }
            #expect(bad?.httpStatus == 400)
        }
    }

    @Test(
        "The maximum lifetime ends a session with session/15 while a fresh one goes on; the idle one too",
        arguments: TestDatabase.available)
    func lifetimes(database: TestDatabase) async throws {
        try await TestStack.run(
            database: database,
            configure: {
                $0.sessions.maximumLifetime = .seconds(3600)
                $0.sessions.idleLifetime = .seconds(1200)
            }
        ) { stack in
            var old = try await Self.login(stack, client: nil)
            #expect(old["refresh_expires_in"]?.intValue == 1200)
            for _ in 0..<3 {
                stack.clock.advance(by: 900)
                old = try await stack.client.refresh(old["refresh_token"])
            }
            // 45 minutes in (and the real seconds the test took): at most 15 left of the maximum lifetime, and
            // neither token outlives it — both end when the session does.
            let remaining = try #require(old["refresh_expires_in"]?.intValue)
            #expect(remaining <= 900 && remaining > 0)
            #expect(old["expires_in"]?.intValue == remaining)
            let fresh = try await Self.login(stack, client: nil)
            stack.clock.advance(by: 600)
            old = try await stack.client.refresh(old["refresh_token"])
            let last = try #require(old["refresh_expires_in"]?.intValue)
            #expect(last <= 300 && last > 0)
            #expect(old["expires_in"]?.intValue == last, "the access token ends with the session")
            stack.clock.advance(by: 300)
            let ended = await stack.client.failure { try await stack.client.refresh(old["refresh_token"]) }
            #expect(ended?.isSession(.Session.sessionExpired) == true)
            #expect(ended?.developerMessage.contains("maximum lifetime (1h from the login)") == true)
            #expect(ended?.category == .recoverable && ended?.recovery.action == .reauthenticate)
            // The fresh session (25 minutes old) goes on, then ends idle after 20 minutes without a refresh.
            let refreshed = try await stack.client.refresh(fresh["refresh_token"])
            stack.clock.advance(by: 1200)
            let idle = await stack.client.failure { try await stack.client.refresh(refreshed["refresh_token"]) }
            #expect(idle?.isSession(.Session.sessionExpired) == true)
            #expect(idle?.developerMessage.contains("idle lifetime (1200s)") == true)
        }
    }

    @Test func theClientHeaderIsReadOrIgnored() {
        #expect(SessionClient.parse("MendApp/1.2 (iOS 18.1)")! == ("MendApp/1.2", "iOS 18.1"))
        #expect(SessionClient.parse("mend/0.9")! == ("mend/0.9", nil))
        #expect(SessionClient.parse("curl/8.5.0 (x86_64-pc-linux-gnu) extra")! == ("curl/8.5.0", "x86_64-pc-linux-gnu"))
        #expect(SessionClient.parse("") == nil)
        #expect(SessionClient.parse("name\u{7}/1") == nil)
        #expect(SessionClient.parse("ünï/1") == nil)
        #expect(SessionClient.parse(String(repeating: "a", count: 201)) == nil)
        #expect(SessionClient.parse(String(repeating: "a", count: 65)) == nil)
        let client = SessionClient(address: "[2001:db8::1]:443", header: "x/1 (y)")
        #expect(client.addressKey == RateLimiter.addressKey("[2001:db8::1]:443"))
    }
}

/// Signing out elsewhere is seen by every instance.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
struct DevicesInstancesTests {
    @Test func othersEndsTheSessionsOnTheOtherInstanceToo() async throws {
        try await withTwoPostgresInstances { emulator, first, second, _ in
            let clients = [ServerClient(first.baseURL), ServerClient(second.baseURL)]
            let mine = try await clients[0].post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
            let other = try await clients[1].post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
            // The other instance has checked the session once (its view knows it as active).
            _ = try await clients[1].get("/v1/session", bearer: try DevicesTests.access(other))
            let start = ContinuousClock.now
            _ = try await clients[0].post(
                "/v1/session/logout", json: .object(["scope": .string("others")]),
                bearer: try DevicesTests.access(mine),
                expectsJSON: false)
            let (refused, _) = try await clients[1].timeUntilRefused(try DevicesTests.access(other), since: start)
            #expect(refused.isSession(.Session.loggedOut))
            _ = try await clients[1].get("/v1/session", bearer: try DevicesTests.access(mine))
            #expect(try await DevicesTests.list(clients[1], mine).count == 1)
        }
    }
}
