import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import Testing

/// Nodes, edges, paging, publishing, `ids`, batches, `appsecret_proof`, usage headers and throttling.
struct GraphSurfaceTests {
    @Test(arguments: Mode.allCases)
    func meWithFieldsHonoursTheEmailPermission(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, emulator in
            let withEmail = try await emulator.issueToken(userID: alice, scopes: ["email"])
            let me = try await client.get(
                "\(v)/me?fields=id,name,email,picture%7Burl%7D,first_name&access_token=\(withEmail)")
            #expect(me.status == 200)
            #expect(me.json?["id"]?.stringValue == alice)
            #expect(me.json?["email"]?.stringValue == "alice@example.com")
            #expect(me.json?["first_name"]?.stringValue == "Alice")
            #expect(me.json?["picture"]?["data"]?["url"]?.stringValue != nil)
            #expect(me.header("facebook-api-version") == "v25.0")
            #expect(me.header("x-fb-trace-id") != nil)
            #expect(me.header("x-app-usage") != nil)

            let without = try await emulator.issueToken(userID: bob, scopes: [])
            let bobMe = try await client.get("/me?fields=email,name&access_token=\(without)")
            #expect(bobMe.json?["email"] == nil)
            #expect(bobMe.json?["name"]?.stringValue == "Bob Example")
            let byHeader = try await client.get("\(v)/me", headers: [.authorization: "Bearer \(without)"])
            #expect(byHeader.json?["id"]?.stringValue == bob)
        }
    }

    @Test func unknownFieldsObjectsAndMissingTokensFailAsTheProviderDoes() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let field = try await client.get("\(v)/me?fields=id,shoe_size&access_token=\(token)")
            #expect(field.json?["error"]?["code"]?.intValue == 100)
            #expect(field.json?["error"]?["message"]?.stringValue?.contains("(shoe_size)") == true)
            let missing = try await client.get("\(v)/123456789?access_token=\(token)")
            #expect(missing.json?["error"]?["code"]?.intValue == 100)
            #expect(missing.json?["error"]?["error_subcode"]?.intValue == 33)
            #expect(missing.json?["error"]?["type"]?.stringValue == "GraphMethodException")
            let noToken = try await client.get("\(v)/me")
            #expect(noToken.json?["error"]?["code"]?.intValue == 2500)
            #expect(noToken.header("www-authenticate") != nil)
            let garbage = try await client.get("\(v)/me?access_token=garbage")
            #expect(garbage.json?["error"]?["code"]?.intValue == 190)
            #expect(
                garbage.json?["error"]?["message"]?.stringValue
                    == "Invalid OAuth access token - Cannot parse access token")
            let other = try await client.get("\(v)/\(bob)?fields=id,name&access_token=\(token)")
            #expect(other.json?["name"]?.stringValue == "Bob Example")
        }
    }

    @Test func permissionsCanBeRevokedOneByOneOrAllAtOnce() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, scopes: ["email", "user_posts"])
            let one = try await client.delete("\(v)/me/permissions/user_posts?access_token=\(token)")
            #expect(one.json?["success"]?.boolValue == true)
            let list = try await client.get("\(v)/me/permissions?access_token=\(token)")
            #expect(
                list.json?["data"]?.arrayValue?.contains(
                    .object(["permission": .string("user_posts"), "status": .string("declined")])) == true)
            let all = try await client.delete("\(v)/me/permissions?access_token=\(token)")
            #expect(all.json?["success"]?.boolValue == true)
            let after = try await client.get("\(v)/me?access_token=\(token)")
            #expect(after.json?["error"]?["error_subcode"]?.intValue == 458)
        }
    }

    @Test func feedPagesWithCursorsAndNextPreviousURLs() async throws {
        try await withEmulatorClient(.live) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, scopes: ["user_posts"])
            let first = try await client.get("\(v)/me/feed?limit=10&access_token=\(token)")
            let data = try #require(first.json?["data"]?.arrayValue)
            #expect(data.count == 10)
            #expect(data.first?["message"]?.stringValue == "Post 30 by Alice")
            let next = try #require(first.json?["paging"]?["next"]?.stringValue)
            #expect(next.hasPrefix("http://"))
            #expect(first.json?["paging"]?["previous"] == nil)
            let nextURL = try #require(URLComponents(string: next))
            let second = try await client.get(nextURL.path + "?" + (nextURL.percentEncodedQuery ?? ""))
            let page2 = try #require(second.json?["data"]?.arrayValue)
            #expect(page2.first?["message"]?.stringValue == "Post 20 by Alice")
            let previous = try #require(second.json?["paging"]?["previous"]?.stringValue)
            let previousURL = try #require(URLComponents(string: previous))
            let back = try await client.get(previousURL.path + "?" + (previousURL.percentEncodedQuery ?? ""))
            #expect(back.json?["data"]?.arrayValue == data)
            let cursors = try #require(first.json?["paging"]?["cursors"])
            #expect(cursors["before"]?.stringValue != nil && cursors["after"]?.stringValue != nil)
        }
    }

    @Test func friendsNeedUserFriendsAndCarryATotalCount() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let without = try await emulator.issueToken(userID: alice, scopes: [])
            let hidden = try await client.get("\(v)/me/friends?access_token=\(without)")
            #expect(hidden.json?["data"]?.arrayValue == [])
            #expect(hidden.json?["summary"]?["total_count"]?.intValue == 2)
            let with = try await emulator.issueToken(userID: alice, scopes: ["user_friends"])
            let page = try await client.get("\(v)/me/friends?limit=1&access_token=\(with)")
            #expect(page.json?["data"]?.arrayValue?.first?["name"]?.stringValue == "Bob Example")
            #expect(page.json?["paging"]?["next"]?.stringValue != nil)
        }
    }

    @Test func publishingNeedsThePermissionAndRefusesDuplicates() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let reader = try await emulator.issueToken(userID: alice, scopes: [])
            let denied = try await client.post("\(v)/me/feed", form: [("message", "hi"), ("access_token", reader)])
            #expect(denied.status == 403)
            #expect(denied.json?["error"]?["code"]?.intValue == 200)
            let response = HTTPResponse(status: .init(code: denied.status), headerFields: denied.headers)
            let error = try #require(
                GraphErrorDecoder().decodeError(
                    response: response, body: denied.body, context: ErrorDecodingContext(catalog: .everySpace)))
            #expect(error.recovery.permissions == ["publish_actions"])

            let writer = try await emulator.issueToken(userID: alice, scopes: ["publish_actions"])
            let posted = try await client.post("\(v)/me/feed", form: [("message", "Hello!"), ("access_token", writer)])
            let id = try #require(posted.json?["id"]?.stringValue)
            #expect(id.hasPrefix("\(alice)_"))
            let duplicate = try await client.post(
                "\(v)/me/feed", form: [("message", "Hello!"), ("access_token", writer)])
            #expect(duplicate.json?["error"]?["code"]?.intValue == 506)
            #expect(duplicate.json?["error"]?["error_user_title"]?.stringValue == "Duplicate Status Message")
            let post = try await client.get("\(v)/\(id)?fields=message,from&access_token=\(writer)")
            #expect(post.json?["message"]?.stringValue == "Hello!")
            #expect(post.json?["from"]?["name"]?.stringValue == "Alice Example")
        }
    }

    @Test func idsReturnsOneObjectPerIDAndCountsEachCall() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let reply = try await client.get("\(v)/?ids=\(alice),\(bob)&fields=name&access_token=\(token)")
            #expect(reply.json?[alice]?["name"]?.stringValue == "Alice Example")
            #expect(reply.json?[bob]?["name"]?.stringValue == "Bob Example")
            #expect(reply.header("x-app-usage") == #"{"call_count":1,"total_cputime":0,"total_time":0}"#)
            let missing = try await client.get("\(v)/?ids=\(alice),nobody&access_token=\(token)")
            #expect(missing.json?["error"]?["code"]?.intValue == 803)
        }
    }

    @Test(arguments: [Mode.direct, .live])
    func batchRunsEachItemAndRefusesMoreThanFifty(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, scopes: ["publish_actions"])
            let batch =
                #"[{"method":"GET","relative_url":"me?fields=id,name"},{"method":"GET","relative_url":"v25.0/nobody"},{"method":"POST","relative_url":"me/feed","body":"message=From+a+batch"}]"#
            let reply = try await client.post("/", form: [("access_token", token), ("batch", batch)])
            #expect(reply.status == 200)
            let items = try #require(reply.json?.arrayValue)
            #expect(items.count == 3)
            #expect(items[0]["code"]?.intValue == 200)
            let body0 = try JSONValue.parse(Data(items[0]["body"]!.stringValue!.utf8)).get()
            #expect(body0["name"]?.stringValue == "Alice Example")
            #expect(items[0]["headers"]?.arrayValue?.isEmpty == false)
            #expect(items[1]["code"]?.intValue == 400)
            let body1 = try JSONValue.parse(Data(items[1]["body"]!.stringValue!.utf8)).get()
            #expect(body1["error"]?["error_subcode"]?.intValue == 33)
            #expect(items[2]["code"]?.intValue == 200)

            let tooMany =
                "[" + Array(repeating: #"{"method":"GET","relative_url":"me"}"#, count: 51).joined(separator: ",") + "]"
            let refused = try await client.post("/", form: [("access_token", token), ("batch", tooMany)])
            #expect(refused.json?["error"]?["type"]?.stringValue == "GraphBatchException")
        }
    }

    @Test func appSecretProofIsCheckedWhenTheAppRequiresIt() async throws {
        var app = EmulatedApp.default
        app.requiresAppSecretProof = true
        let secret = app.secret
        try await withEmulatorClient(.router, configuration: testConfiguration(apps: [app])) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let missing = try await client.get("\(v)/me?access_token=\(token)")
            #expect(
                missing.json?["error"]?["message"]?.stringValue
                    == "API calls from the server require an appsecret_proof argument")
            let wrong = try await client.get("\(v)/me?access_token=\(token)&appsecret_proof=abcd")
            #expect(
                wrong.json?["error"]?["message"]?.stringValue == "Invalid appsecret_proof provided in the API argument")
            let proof = HMAC<SHA256>.authenticationCode(
                for: Data(token.utf8), using: SymmetricKey(data: Data(secret.utf8))
            )
            .map { String(format: "%02x", $0) }.joined()
            let right = try await client.get("\(v)/me?access_token=\(token)&appsecret_proof=\(proof)")
            #expect(right.status == 200)
        }
    }

    @Test(arguments: [
        (EmulatedApp.RateLimits(appCallsPerHour: 3), 4, nil as Int?),
        (EmulatedApp.RateLimits(userCallsPerHour: 3), 17, 2_446_079),
        (EmulatedApp.RateLimits(businessCallsPerHour: 3), 80001, nil),
    ])
    func throttlingStartsPastTheLimitAndEndsWithTheWindow(
        limits: EmulatedApp.RateLimits, code: Int, subcode: Int?
    ) async throws {
        var app = EmulatedApp.default
        app.limits = limits
        let businessID = app.businessID
        try await withEmulatorClient(.router, configuration: testConfiguration(apps: [app])) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            for _ in 0..<3 { #expect(try await client.get("\(v)/me?access_token=\(token)").status == 200) }
            await emulator.advanceClock(by: 600)
            let throttled = try await client.get("\(v)/me?access_token=\(token)")
            #expect(throttled.json?["error"]?["code"]?.intValue == code)
            #expect(throttled.json?["error"]?["error_subcode"]?.intValue == subcode)
            #expect(throttled.json?["error"]?["is_transient"]?.boolValue == true)
            let response = HTTPResponse(status: .init(code: throttled.status), headerFields: throttled.headers)
            let now = await emulator.now()
            let error = try #require(
                GraphErrorDecoder().decodeError(
                    response: response, body: throttled.body,
                    context: ErrorDecodingContext(catalog: .everySpace, now: now)))
            #expect(error.category == .transient)
            if code == 80001 {
                let usage = try #require(throttled.header("x-business-use-case-usage"))
                let parsed = try JSONValue.parse(Data(usage.utf8)).get()
                let regain = parsed[businessID]?.arrayValue?.first?["estimated_time_to_regain_access"]?.intValue
                #expect(regain == 50)
                #expect(error.recovery.notBefore == now.addingTimeInterval(50 * 60))
            }
            if code == 4 {
                let usage = try JSONValue.parse(Data(throttled.header("x-app-usage")!.utf8)).get()
                #expect((usage["call_count"]?.intValue ?? 0) > 100)
            }
            await emulator.advanceClock(by: 3600)
            #expect(try await client.get("\(v)/me?access_token=\(token)").status == 200)
        }
    }

    @Test func appNodeServesAnErrorConfigurationThatMendMerges() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let reply = try await client.get("\(v)/app?fields=ios_sdk_error_categories&access_token=\(token)")
            #expect(reply.json?["id"]?.stringValue == appID)
            let categories = try #require(reply.json?["ios_sdk_error_categories"])
            #expect(categories.arrayValue?.map { $0["name"]?.stringValue } == ["transient", "login", "other"])
            let merged = try ErrorCatalog.everySpace.merging(providerConfiguration: categories)
            #expect(merged.entry(code: .Graph.accessTokenInvalid, subcode: .passwordChanged).category == .recoverable)
            #expect(merged.serverRecoveryText(code: .Graph.accessTokenInvalid, subcode: nil)?.suggestion != nil)
        }
    }
}
