import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// The admin API (`/v1/admin/…`), through HTTP: its tokens, its routes, what its changes do to the users' clients,
/// and what the audit log keeps of them.
@Suite struct AdminAPITests {
    static let ops = AdminToken.generate(id: "ops")
    static let support = AdminToken.generate(id: "support-2026")

    /// The admin tokens on, two of them (a rotation in progress), and passkeys (whose admin routes need them).
    static func withAdmin(_ configuration: inout ServerConfiguration) {
        configuration.admin.tokens = [ops.configuration, support.configuration]
        configuration.passkeys.relyingPartyID = "example.com"
    }

    /// Sends an admin request; `token` is the bearer (the `ops` token by default, none with `nil`).
    static func send(
        _ stack: TestStack, _ method: HTTPRequest.Method, _ path: String, token: String? = ops.token,
        body: JSONValue? = nil, client: ServerClient? = nil
    ) async throws -> JSONValue {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        return try await (client ?? stack.client).client.send(
            APIRequest(
                method: method, url: stack.client.url(path), headers: headers,
                body: body.map { Data($0.jsonText().utf8) })
        ).json()
    }

    /// A path of `endpoint` with its parameters filled in.
    static func path(_ endpoint: RouteTable.Endpoint, id: String) -> String {
        endpoint.path.replacingOccurrences(of: ":id", with: id).replacingOccurrences(of: ":passkey", with: "pk_x")
    }

    static var adminEndpoints: [RouteTable.Endpoint] { RouteTable.all.filter(\.admin) }

    @Test(
        "Every admin route refuses a missing, a wrong or a session's token with 401", arguments: TestDatabase.available)
    func refusesWithoutTheToken(database: TestDatabase) async throws {
        try await TestStack.run(database: database, configure: Self.withAdmin) { stack in
            let session = try await stack.login()
            let userID = try #require(session["user"]?["id"]?.stringValue)
            let access = try #require(session["access_token"]?.stringValue)
            #expect(Self.adminEndpoints.count == 8)
            for endpoint in Self.adminEndpoints {
                let path = Self.path(endpoint, id: userID)
                for token in [nil, "mend_admin_" + String(repeating: "A", count: 43), access, "", Self.ops.token + "x"]
                {
                    let refused = await stack.client.failure {
                        try await Self.send(stack, endpoint.method, path, token: token)
                    }
                    #expect(refused?.httpStatus == 401, "\(endpoint.method) \(path)")
                    #expect(refused?.code == .REST.accessDenied)
                    let challenge = refused?.header("WWW-Authenticate")
                    #expect(
                        challenge
                            == (token?.isEmpty ?? true
                                ? #"Bearer realm="mend-admin""# : #"Bearer realm="mend-admin", error="invalid_token""#))
                }
            }
            // Nothing was changed by the refused calls: the session and the user are still there.
            _ = try await stack.client.get("/v1/session", bearer: access)
            // Three wrong tokens per route (the empty one is no token).
            #expect(stack.server.backend.metrics.render().contains("mend_admin_refused_total 24"))
            // Both configured tokens are accepted.
            for token in [Self.ops.token, Self.support.token] {
                let users = try await Self.send(stack, .get, "/v1/admin/users", token: token)
                #expect(users["users"]?.arrayValue?.count == 1)
            }
        }
    }

    @Test(
        "Without MEND_ADMIN_TOKENS every admin path is 404 to every method; /openapi.json does not list them")
    func offByDefault() async throws {
        try await TestStack.run { stack in
            for endpoint in Self.adminEndpoints {
                for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
                    let path = Self.path(endpoint, id: "x")
                    let missing = await stack.client.failure { try await Self.send(stack, method, path) }
                    #expect(missing?.httpStatus == 404 && missing?.code == .REST.notFound, "\(method) \(path)")
                    #expect(missing?.header("Allow") == nil, "\(method) \(path)")
                    // Failed before: 405 with "/v1/admin/users answers GET, not PUT."
                    #expect(missing?.developerMessage.contains(", not ") == false, "\(method) \(path)")
                }
            }
            let document = try await stack.client.get("/openapi.json").json()
            let paths = document["paths"]?.objectValue?.keys.sorted() ?? []
            #expect(!paths.contains { $0.hasPrefix("/v1/admin") })
        }
        try await TestStack.run(configure: Self.withAdmin) { stack in
            let document = try await stack.client.get("/openapi.json").json()
            for endpoint in Self.adminEndpoints {
                let operation = document["paths"]?[endpoint.openAPIPath]?[endpoint.method.rawValue.lowercased()]
                #expect(operation?["security"] == .array([.object(["admin": .array([])])]))
            }
            #expect(document["components"]?["securitySchemes"]?["admin"]?["scheme"] == .string("bearer"))
        }
    }

    @Test(
        "Users are found by id, provider subject and part of an e-mail; a user's detail lists identities and sessions",
        arguments: TestDatabase.available)
    func findsUsers(database: TestDatabase) async throws {
        try await TestStack.run(database: database, configure: Self.withAdmin) { stack in
            let alice = try await stack.login()
            stack.clock.advance(by: 5)
            let bob = try await stack.login(userID: DevicesTests.bob)
            let aliceID = try #require(alice["user"]?["id"]?.stringValue)
            let bobID = try #require(bob["user"]?["id"]?.stringValue)
            let bobEmail = try #require(bob["user"]?["email"]?.stringValue)

            let everyone = try await Self.send(stack, .get, "/v1/admin/users")
            #expect(everyone["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [bobID, aliceID])
            let page = try await Self.send(stack, .get, "/v1/admin/users?limit=1&offset=1")
            #expect(page["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [aliceID])
            for query in [
                bobID, DevicesTests.bob, String(bobEmail.prefix(5)).uppercased(),
                bobEmail.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            ] {
                let found = try await Self.send(stack, .get, "/v1/admin/users?query=\(query)")
                #expect(found["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [bobID], "\(query)")
            }
            // LIKE's wildcards are plain characters in a query.
            let wildcard = try await Self.send(stack, .get, "/v1/admin/users?query=%25")
            #expect(wildcard["users"]?.arrayValue?.isEmpty == true)
            // A control character is refused, never cut: a NUL ended the search string, so that `%00` found every
            // user with an e-mail and `alice@…%00zzz` found alice.
            for query in ["%00", String(bobEmail.prefix(5)) + "%00zzz", "a%0Ab", "%7F", "%C2%85"] {
                let refused = await stack.client.failure {
                    try await Self.send(stack, .get, "/v1/admin/users?query=\(query)")
                }
                #expect(refused?.httpStatus == 400, "\(query)")
                #expect(refused?.developerMessage.contains("control character") == true, "\(query)")
            }
            let bad = await stack.client.failure { try await Self.send(stack, .get, "/v1/admin/users?limit=0") }
            #expect(bad?.httpStatus == 400 && bad?.developerMessage.contains("limit") == true)

            let detail = try await Self.send(stack, .get, "/v1/admin/users/\(aliceID)")
            #expect(detail["user"]?["id"]?.stringValue == aliceID)
            #expect(detail["identities"]?.arrayValue?.first?["provider"] == .string("facebook"))
            let sessions = detail["sessions"]?.arrayValue ?? []
            #expect(sessions.map { $0["id"] } == [alice["session_id"]])
            #expect(sessions.first?["provider"] == .string("facebook") && sessions.first?["flow"] == .string("code"))
            // No token of any kind in an admin answer.
            #expect(!detail.jsonText().contains("token"))
            let unknown = await stack.client.failure { try await Self.send(stack, .get, "/v1/admin/users/nobody") }
            #expect(unknown?.httpStatus == 404)
        }
    }

    @Test("An admin's reason that quotes a refresh token and an admin token keeps neither")
    func reasonQuotingTokens() async throws {
        // Failed before: MendCore's Redactor knew neither mrt_ nor mend_admin_, and the reason reached the user's
        // session/17 message, both audit events and the audit log line as the admin typed it.
        let capture = LogCapture()
        try await TestStack.run(logger: capture.logger(), configure: Self.withAdmin) { stack in
            let phone = try await stack.login()
            let phoneID = try #require(phone["session_id"]?.stringValue)
            let refresh = try #require(phone["refresh_token"]?.stringValue)
            // (A reason is at most 200 bytes: an access token, a JWT, does not fit; a JWT was redacted already.)
            let reason = "leaked in ticket 42: \(refresh) and \(Self.support.token)"
            _ = try await Self.send(
                stack, .post, "/v1/admin/sessions/\(phoneID)/end", body: .object(["reason": .string(reason)]))
            let refusal = await stack.client.failure { try await stack.client.refresh(phone["refresh_token"]) }
            #expect(refusal?.isSession(.Session.revoked) == true)
            let message = refusal?.developerMessage ?? ""
            #expect(message.contains("ended by an administrator: leaked in ticket 42: "), "\(message)")
            let audit = try await Self.send(stack, .get, "/v1/admin/audit?limit=200").jsonText()
            #expect(audit.contains("leaked in ticket 42"))
            #expect(capture.text.contains("leaked in ticket 42"), "the audit log line")
            for secret in [refresh, Self.support.token] {
                #expect(!message.contains(secret), "session/17's message")
                #expect(!audit.contains(secret), "the audit events")
                #expect(!capture.text.contains(secret), "the server's log")
            }
        }
    }

    @Test(
        "An admin ends one session, then all of a user's: their clients get session/17 with the reason",
        arguments: TestDatabase.available)
    func endsSessions(database: TestDatabase) async throws {
        try await TestStack.run(database: database, configure: Self.withAdmin) { stack in
            let phone = try await stack.login()
            let laptop = try await stack.login()
            let tablet = try await stack.login()
            let bob = try await stack.login(userID: DevicesTests.bob)
            let userID = try #require(phone["user"]?["id"]?.stringValue)
            let phoneID = try #require(phone["session_id"]?.stringValue)

            let one = try await Self.send(
                stack, .post, "/v1/admin/sessions/\(phoneID)/end",
                body: .object(["reason": .string("reported lost\u{7}\nby its owner")]))
            #expect(one == .object(["ended": .bool(true)]))
            for refusal in [
                await stack.client.failure {
                    try await stack.client.get("/v1/session", bearer: try DevicesTests.access(phone))
                },
                await stack.client.failure { try await stack.client.refresh(phone["refresh_token"]) },
            ] {
                #expect(refusal?.isSession(.Session.revoked) == true)
                #expect(
                    refusal?.developerMessage.contains("ended by an administrator: reported lost  by its owner") == true
                )
            }
            let again = try await Self.send(stack, .post, "/v1/admin/sessions/\(phoneID)/end")
            #expect(again == .object(["ended": .bool(false)]))
            _ = try await stack.client.get("/v1/session", bearer: try DevicesTests.access(laptop))

            let all = try await Self.send(
                stack, .post, "/v1/admin/users/\(userID)/logout", token: Self.support.token,
                body: .object(["reason": .string("account compromised")]))
            #expect(all == .object(["sessions_ended": .int(2)]))
            for session in [laptop, tablet] {
                let refusal = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
                #expect(refusal?.isSession(.Session.revoked) == true)
                #expect(refusal?.developerMessage.contains("account compromised") == true)
            }
            // Another user's session goes on.
            _ = try await stack.client.get("/v1/session", bearer: try DevicesTests.access(bob))
            let unknown = await stack.client.failure {
                try await Self.send(stack, .post, "/v1/admin/sessions/ses_nothing/end")
            }
            #expect(unknown?.httpStatus == 404)

            // The audit log names the admin token of each change, and reads back filtered and paged.
            let actions = try await Self.send(stack, .get, "/v1/admin/audit?event=admin_action")
            let events = actions["events"]?.arrayValue ?? []
            #expect(events.map { $0["actor"]?.stringValue } == ["support-2026", "ops", "ops"])
            #expect(
                events.map { $0["detail"]?.stringValue } == [
                    "logout_user: account compromised", "end_session", "end_session: reported lost  by its owner",
                ])
            #expect(events.allSatisfy { $0["user_id"]?.stringValue == userID })
            let ended = try await Self.send(stack, .get, "/v1/admin/audit?event=session_ended&user_id=\(userID)")
            #expect(ended["events"]?.arrayValue?.count == 3)
            let first = try await Self.send(stack, .get, "/v1/admin/audit?limit=2")
            let next = try #require(first["next_before"]?.intValue)
            let second = try await Self.send(stack, .get, "/v1/admin/audit?limit=2&before=\(next)")
            let ids = (first["events"]?.arrayValue ?? []) + (second["events"]?.arrayValue ?? [])
            let numbers = ids.compactMap { $0["id"]?.intValue }
            #expect(numbers.count == 4 && numbers == numbers.sorted(by: >) && Set(numbers).count == 4)
            // The last page says so.
            let whole = try await Self.send(stack, .get, "/v1/admin/audit?limit=200")
            let count = try #require(whole["events"]?.arrayValue?.count)
            #expect(whole["next_before"] == .null)
            let exact = try await Self.send(stack, .get, "/v1/admin/audit?limit=\(count)")
            #expect(exact["next_before"] == .null && exact["events"]?.arrayValue?.count == count)
        }
    }

    @Test("An admin deletes a user as DELETE /v1/me does: revoked at the provider, every session over")
    func deletesUsers() async throws {
        try await TestStack.run(configure: Self.withAdmin) { stack in
            let session = try await stack.login()
            let other = try await stack.login(userID: DevicesTests.bob)
            let userID = try #require(session["user"]?["id"]?.stringValue)
            let answer = try await Self.send(stack, .delete, "/v1/admin/users/\(userID)")
            #expect(answer["deleted"] == .bool(true) && answer["sessions_ended"]?.intValue == 1)
            #expect(answer["revoked_at"] == .array([.string("facebook")]))
            let revocations = await stack.emulator.emulator.revocations()
            #expect(revocations.map(\.userID) == ["100000000000001"])
            let refusal = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: try DevicesTests.access(session))
            }
            #expect(refusal?.isSession(.Session.userDeleted) == true)
            #expect(refusal?.developerMessage.contains("account deleted by an administrator") == true)
            _ = try await stack.client.get("/v1/session", bearer: try DevicesTests.access(other))
            let gone = await stack.client.failure { try await Self.send(stack, .delete, "/v1/admin/users/\(userID)") }
            #expect(gone?.httpStatus == 404)
            // The user row goes first, then the sessions end; the admin's action is written after both.
            let log = try await Self.send(stack, .get, "/v1/admin/audit?user_id=\(userID)&limit=3")
            #expect(
                log["events"]?.arrayValue?.map { $0["event"]?.stringValue } == [
                    "admin_action", "session_ended", "account_deleted",
                ])
            #expect(log["events"]?.arrayValue?.first?["actor"] == .string("ops"))
            #expect(log["events"]?.arrayValue?.first?["detail"] == .string("delete_user"))
        }
    }

    @Test("The admin rate limit counts every request by its address before the token is looked at")
    func rateLimited() async throws {
        try await TestStack.run(
            configure: {
                Self.withAdmin(&$0)
                $0.admin.rateLimit = RateLimitRule(requests: 3, per: .seconds(60))
            }
        ) { stack in
            // A client of its own per request: a MendHTTP client holds its next request until a 429's Retry-After.
            for token in [Self.ops.token, "wrong", Self.ops.token] {
                _ = try? await Self.send(
                    stack, .get, "/v1/admin/users", token: token, client: ServerClient(stack.client.baseURL))
            }
            for token in ["wrong", Self.ops.token] {
                let limited = await stack.client.failure {
                    try await Self.send(
                        stack, .get, "/v1/admin/users", token: token, client: ServerClient(stack.client.baseURL))
                }
                #expect(limited?.httpStatus == 429 && limited?.header("Retry-After") != nil)
            }
            stack.clock.advance(by: 21)
            _ = try await Self.send(stack, .get, "/v1/admin/users", client: ServerClient(stack.client.baseURL))
        }
    }

    @Test func tokensAreConfiguredByTheirDigest() throws {
        let entry = "\(Self.ops.configuration.environmentValue), \(Self.support.configuration.environmentValue)"
        var values = ConfigurationTests.minimal
        values["MEND_ADMIN_TOKENS"] = entry
        let configuration = try ServerConfiguration.load(environment: values)
        #expect(configuration.admin.tokens.map(\.id) == ["ops", "support-2026"])
        #expect(configuration.admin.tokens.match(Self.support.token) == "support-2026")
        #expect(configuration.admin.tokens.match(Self.ops.token) == "ops")
        #expect(configuration.admin.tokens.match(Self.ops.token + " ") == nil)
        #expect(!entry.contains(Self.ops.token) && !"\(configuration.admin)".contains(Self.ops.token))
        #expect(Self.ops.token.hasPrefix("mend_admin_") && Self.ops.token.count == 54)
        for bad in [
            "ops:\(String(repeating: "a", count: 64))", "ops:sha256:abc",
            "o ps:sha256:\(String(repeating: "a", count: 64))",
            "ops:md5:\(String(repeating: "a", count: 64))", Self.ops.token,
            "\(Self.ops.configuration.environmentValue),\(Self.ops.configuration.environmentValue)",
        ] {
            values["MEND_ADMIN_TOKENS"] = bad
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.load(environment: values) }
        }
    }

    @Test(
        "An admin's ending on one instance is refused on the other within the revocation view's bound",
        .enabled(if: TestDatabase.postgresURL != nil, TestDatabase.postgresSkipReason))
    func endsOnEveryInstance() async throws {
        try await withTwoPostgresInstances(configure: Self.withAdmin) { emulator, first, second, _ in
            let clients = [ServerClient(first.baseURL), ServerClient(second.baseURL)]
            let phone = try await clients[0].post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
            let laptop = try await clients[1].post("/v1/login/code", json: try await emulator.loginCodeBody()).json()
            let userID = try #require(phone["user"]?["id"]?.stringValue)
            for (session, client) in [(phone, clients[1]), (laptop, clients[0])] {
                _ = try await client.get("/v1/session", bearer: try DevicesTests.access(session))
            }
            var request = APIRequest(
                method: .post, url: clients[0].url("/v1/admin/users/\(userID)/logout"),
                headers: [.authorization: "Bearer \(Self.ops.token)", .contentType: "application/json"],
                body: Data(#"{"reason":"stolen laptop"}"#.utf8))
            let started = ContinuousClock.now
            #expect(try await clients[0].client.send(request).json() == .object(["sessions_ended": .int(2)]))
            for session in [phone, laptop] {
                let (refusal, _) = try await clients[1].timeUntilRefused(
                    try DevicesTests.access(session), since: started)
                #expect(refusal.isSession(.Session.revoked))
                #expect(refusal.developerMessage.contains("stolen laptop"))
            }
            // The admin API answers on the other instance as well.
            request.head.path = "/v1/admin/users/\(userID)"
            request.head.method = .get
            request.body = nil
            let detail = try await clients[1].client.send(request).json()
            #expect(detail["sessions"]?.arrayValue?.isEmpty == true)
        }
    }
}
