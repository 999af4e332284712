import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import Testing

/// `/v1/objects/{type}/{id}`: CRUD with revisions and the status error space.
struct RESTObjectTests {
    static let key: HTTPFields = [RESTKey.header: "emulator-api-key"]

    func decode(_ reply: Reply) -> MendError? {
        let response = HTTPResponse(status: .init(code: reply.status), headerFields: reply.headers)
        return RESTErrorDecoder().decodeError(
            response: response, body: reply.body, context: ErrorDecodingContext(catalog: .everySpace))
    }

    func expectError(_ reply: Reply, _ code: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == (code == 100 ? 500 : code), sourceLocation: sourceLocation)
        let status = reply.json?["status"]
        #expect(status?["code"]?.stringValue == String(code), sourceLocation: sourceLocation)
        #expect(status?["message"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(status?["additionalMessages"]?.arrayValue != nil, sourceLocation: sourceLocation)
        #expect(status?["referenceId"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(decode(reply)?.code == MendError.Code(.rest, code), sourceLocation: sourceLocation)
    }

    @Test(arguments: [Mode.router, .live])
    func crudWithRevisionsAndConflicts(mode: Mode) async throws {
        try await withEmulatorClient(mode) { client, emulator in
            let created = try await client.postJSON(
                "/v1/objects/note", #"{"title":"one","key":"k1"}"#, headers: Self.key)
            #expect(created.status == 201)
            let id = try #require(created.json?["object"]?["__id"]?.stringValue)
            #expect(created.json?["object"]?["__revision"]?.stringValue == "1")
            let read = try await client.get("/v1/objects/note/\(id)", headers: Self.key)
            #expect(read.json?["object"]?["title"]?.stringValue == "one")

            var headers = Self.key
            headers[.contentType] = "application/json"
            let updated = try await client.send(
                .put, "/v1/objects/note/\(id)?revision=1", headers, Data(#"{"title":"two"}"#.utf8))
            #expect(updated.json?["object"]?["__revision"]?.stringValue == "2")
            let stale = try await client.send(
                .put, "/v1/objects/note/\(id)?revision=1", headers, Data(#"{"title":"three"}"#.utf8))
            expectError(stale, 409)
            #expect(decode(stale)?.category == .recoverable)
            var ifMatch = headers
            ifMatch[.ifMatch] = "\"1\""
            expectError(try await client.send(.put, "/v1/objects/note/\(id)", ifMatch, Data("{}".utf8)), 412)
            expectError(try await client.postJSON("/v1/objects/note", #"{"key":"k1"}"#, headers: Self.key), 435)
            expectError(try await client.postJSON("/v1/objects/note", "[1,2]", headers: Self.key), 400)
            #expect(try await client.send(.delete, "/v1/objects/note/\(id)", Self.key, nil).status == 200)
            expectError(try await client.get("/v1/objects/note/\(id)", headers: Self.key), 404)
            expectError(try await client.get("/v1/objects/note/\(id)"), 401)
            expectError(try await client.get("/v1/objects/note/\(id)", headers: [RESTKey.header: "wrong"]), 420)
            var session = Self.key
            session[HTTPField.Name("Appacitive-Session")!] = "not-a-session"
            expectError(try await client.get("/v1/objects/note/\(id)", headers: session), 421)
            let token = try await emulator.issueToken(userID: alice)
            session[HTTPField.Name("Appacitive-Session")!] = token
            expectError(try await client.get("/v1/objects/note/\(id)", headers: session), 404)
        }
    }

    @Test func subscriptionAndUsageLimits() async throws {
        var configuration = testConfiguration()
        configuration.restCallsPerMinute = 2
        try await withEmulatorClient(.router, configuration: configuration) { client, _ in
            _ = try await client.get("/v1/objects/note/1", headers: Self.key)
            _ = try await client.get("/v1/objects/note/1", headers: Self.key)
            let limited = try await client.get("/v1/objects/note/1", headers: Self.key)
            expectError(limited, 403)
            #expect(limited.header("retry-after") == "60")
        }
        var unpaid = testConfiguration()
        unpaid.restSubscriptionValid = false
        try await withEmulatorClient(.router, configuration: unpaid) { client, _ in
            expectError(try await client.get("/v1/objects/note/1", headers: Self.key), 402)
        }
    }

    @Test(arguments: [436, 500, 512, 100])
    func theRestOfTheSpaceIsReachableByFaults(code: Int) async throws {
        try await withEmulatorClient(.router) { client, emulator in
            try await emulator.injectFault(.error("rest/\(code)", path: "/v1/*"))
            expectError(try await client.get("/v1/objects/note/1", headers: Self.key), code)
        }
    }
}
