import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import Testing

/// Every Graph row of the catalog, injected as a fault, comes back through Mend's own decoder as the same error.
struct ErrorRoundTripTests {
    /// One concrete (code, subcode) per Graph row: ranges use their first code, the catch-all row uses 999.
    static let graphRows: [ErrorCatalog.Entry] = ErrorCatalog.everySpace.entries(in: .graph)

    static func concrete(_ entry: ErrorCatalog.Entry) -> (code: Int, subcode: Int?) {
        (entry.codes?.lowerBound ?? 999, entry.subcode)
    }

    static func decode(_ reply: Reply) -> MendError? {
        let response = HTTPResponse(status: .init(code: reply.status), headerFields: reply.headers)
        return GraphErrorDecoder().decodeError(
            response: response, body: reply.body, context: ErrorDecodingContext(catalog: .everySpace))
    }

    /// `graph/190/460` for every Graph row (short test names; the row is looked up again), and the row's message
    /// phrase after a space for a row that the message selects (`graph/2500 An active access token must be used`).
    static let graphErrors: [String] = graphRows.map(name(of:))

    static func name(of entry: ErrorCatalog.Entry) -> String {
        let (code, subcode) = concrete(entry)
        return "graph/\(code)" + (subcode.map { "/\($0)" } ?? "") + (entry.messagePhrase.map { " \($0)" } ?? "")
    }

    @Test(arguments: graphErrors)
    func graphRowRoundTrips(error: String) async throws {
        let entry = try #require(Self.graphRows.first { Self.name(of: $0) == error })
        let (code, subcode) = Self.concrete(entry)
        try await withEmulatorClient(.router) { client, emulator in
            var fault = FaultRule.error(String(error.prefix { $0 != " " }), path: "/me", times: 1)
            fault.message = entry.messagePhrase.map { "\($0) for this request." }
            try await emulator.injectFault(fault)
            let token = try await emulator.issueToken(userID: alice)
            let reply = try await client.get("\(v)/me?access_token=\(token)")
            let envelope = try #require(reply.json?["error"])
            #expect(envelope["code"]?.intValue == code)
            #expect(envelope["error_subcode"]?.intValue == subcode)
            #expect(envelope["type"]?.stringValue != nil)
            let traceID = try #require(envelope["fbtrace_id"]?.stringValue)
            #expect(reply.header("x-fb-trace-id") == traceID)
            let authenticate = try #require(reply.header("www-authenticate"))
            #expect(authenticate.hasPrefix("OAuth \"Facebook Platform\" \""))
            #expect(reply.status >= 400)

            let decoded = try #require(Self.decode(reply))
            let expected = MendError(
                code: MendError.Code(.graph, code), subcode: subcode.map(MendError.Subcode.init(rawValue:)),
                developerMessage: fault.message, catalog: .everySpace)
            #expect(decoded == expected)
            #expect(decoded.name == entry.name)
            #expect(decoded.category == entry.category)
            #expect(decoded.recovery.action == entry.recovery)
            #expect(decoded.referenceID == traceID)
            #expect(decoded.httpStatus == reply.status)

            // The fault was used once: the next call succeeds.
            let again = try await client.get("\(v)/me?access_token=\(token)")
            #expect(again.status == 200)
        }
    }

    @Test func injectedTokenErrorHasTheProviderEnvelope() async throws {
        try await withEmulatorClient(.live) { client, emulator in
            try await emulator.injectFault(.error("graph/190/460"))
            let reply = try await client.get("\(v)/me?access_token=anything")
            #expect(reply.status == 400)
            let error = try #require(reply.json?["error"])
            #expect(error["type"]?.stringValue == "OAuthException")
            #expect(error["code"]?.intValue == 190)
            #expect(error["error_subcode"]?.intValue == 460)
            #expect(error["message"]?.stringValue?.hasPrefix("Error validating access token") == true)
            #expect(
                reply.header("www-authenticate")?.hasPrefix(
                    #"OAuth "Facebook Platform" "invalid_token" "Error validating"#) == true)
            let decoded = try #require(Self.decode(reply))
            #expect(decoded.matches(.Graph.accessTokenInvalid, .passwordChanged))
        }
    }

    static let restRows: [ErrorCatalog.Entry] = ErrorCatalog.everySpace.entries(in: .rest).filter { $0.codes != nil }

    @Test(arguments: restRows.map { $0.codes!.lowerBound })
    func restRowRoundTrips(code: Int) async throws {
        let entry = ErrorCatalog.everySpace.entry(code: MendError.Code(.rest, code))
        try await withEmulatorClient(.router) { client, emulator in
            try await emulator.injectFault(.error("rest/\(code)", path: "/v1/objects/*"))
            let reply = try await client.get("/v1/objects/note/1", headers: [RESTKey.header: "emulator-api-key"])
            let status = try #require(reply.json?["status"])
            #expect(status["code"]?.intValue == code)
            #expect(status["message"]?.stringValue?.isEmpty == false)
            #expect(status["additionalMessages"]?.arrayValue != nil)
            let referenceID = try #require(status["referenceId"]?.stringValue)
            let response = HTTPResponse(status: .init(code: reply.status), headerFields: reply.headers)
            let decoded = try #require(
                RESTErrorDecoder().decodeError(
                    response: response, body: reply.body, context: ErrorDecodingContext(catalog: .everySpace)))
            #expect(decoded.code == MendError.Code(.rest, code))
            #expect(decoded.name == entry.name)
            #expect(decoded.category == entry.category)
            #expect(decoded.referenceID == referenceID)
        }
    }
}

enum RESTKey {
    static let header = HTTPField.Name("Appacitive-Apikey")!
}
