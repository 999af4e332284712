import Foundation
import MendCore
import MendEmulator
import Testing

@Suite("The payload-budget fault and Graph's cache headers")
struct PayloadBudgetTests {
    static let phrase = "Please reduce the amount of data you're asking for, then retry your request"

    @Test("An edge request over the budget gets Graph's code 1 asking for less data, with HTTP 500")
    func overBudget() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, scopes: ["user_posts"])
            let added = try await client.postJSON("/_emulator/faults", #"{"payloadBudget":40,"path":"/me/feed"}"#)
            #expect(added.status == 201, "\(added.text)")
            #expect(added.json?["kind"]?.stringValue == "payloadBudget")
            #expect(added.json?["payloadBudget"]?.intValue == 40)
            // 25 × 2 fields = 50 > 40.
            let refused = try await client.get("\(v)/me/feed?limit=25&fields=id,message&access_token=\(token)")
            #expect(refused.status == 500)
            let error = try #require(refused.json?["error"])
            #expect(error["code"]?.intValue == 1)
            #expect(error["message"]?.stringValue == Self.phrase)
            #expect(error["error_user_msg"]?.stringValue == Self.phrase)
            #expect(error["type"]?.stringValue == "OAuthException")
            #expect(error["error_subcode"] == nil)
            #expect(error["fbtrace_id"]?.stringValue?.isEmpty == false)
            #expect(refused.header("cache-control") == "private, no-cache, no-store, must-revalidate")
            // 20 × 2 = 40 fits; no `fields` counts as one field (25 × 1); a node is not an edge.
            #expect(try await client.get("\(v)/me/feed?limit=20&fields=id,message&access_token=\(token)").status == 200)
            #expect(try await client.get("\(v)/me/feed?access_token=\(token)").status == 200)
            #expect(try await client.get("\(v)/me?fields=id,name,email&limit=99&access_token=\(token)").status == 200)
            // No limit: the emulator's default page of 25 (× 2 fields) is over the budget.
            #expect(try await client.get("\(v)/me/feed?fields=id,message&access_token=\(token)").status == 500)
            // Only the refused requests count as hits.
            let list = try await client.get("/_emulator/faults")
            #expect(list.json?.arrayValue?.first?["hits"]?.intValue == 2)
        }
    }

    @Test("A budget must be at least 1; a payloadBudget fault needs one")
    func invalidBudgets() async throws {
        try await withEmulatorClient(.direct) { client, _ in
            let zero = try await client.postJSON("/_emulator/faults", #"{"payloadBudget":0}"#)
            #expect(zero.status == 400)
            #expect(zero.json?["error"]?["message"]?.stringValue?.contains("payloadBudget") == true, "\(zero.text)")
            #expect(try await client.postJSON("/_emulator/faults", #"{"kind":"payloadBudget"}"#).status == 400)
        }
    }

    @Test("Graph answers carry Graph's cache headers, successes and errors alike", arguments: Mode.allCases)
    func cacheHeaders(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            for reply in [
                try await client.get("\(v)/me?access_token=\(token)"),
                try await client.get("\(v)/me/friends?access_token=\(token)"),
                try await client.get("\(v)/999999999999999?access_token=\(token)"),
            ] {
                #expect(
                    reply.header("cache-control") == "private, no-cache, no-store, must-revalidate", "\(reply.text)")
                #expect(reply.header("pragma") == "no-cache")
                #expect(reply.header("expires") == "Sat, 01 Jan 2000 00:00:00 GMT")
            }
        }
    }
}
