import Foundation
import HTTPTypes
import MendCommands
import MendCore
import MendEmulator
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendLogin
import Testing

func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    return try Data(contentsOf: url)
}

@Suite("Explaining responses")
struct ExplainerTests {
    let explainer = Explainer(now: Date(timeIntervalSince1970: 1_800_000_000))

    @Test("A Graph error body explains without a status")
    func graph() throws {
        let explanation = try explainer.explain(.init(body: fixture("graph-token-expired.json")))
        #expect(explanation.kind == .graph)
        #expect(explanation.error.matches(.Graph.accessTokenInvalid, .tokenExpired))
        #expect(explanation.error.referenceID == "EJplcsCHuLu")
        #expect(explanation.error.httpStatus == 400)
    }

    @Test("A code-1 body asking for less data explains as reduceRequestSize; another code 1 as transient retry")
    func reduceData() throws {
        let reduce = #"""
            {"error":{"message":"Please reduce the amount of data you're asking for, then retry your request",
             "type":"OAuthException","code":1,"fbtrace_id":"AbC123"}}
            """#
        let explained = try explainer.explain(.init(body: Data(reduce.utf8), status: 500))
        #expect(explained.kind == .graph)
        let report = ErrorReport(explained.error, locale: Locale(identifier: "en"))
        #expect(report.name == "reduceData")
        #expect(report.category == "recoverable")
        #expect(report.recovery == "reduceRequestSize")
        #expect(report.recoverySuggestion?.isEmpty == false)
        let other = #"{"error":{"message":"An unknown error has occurred.","type":"OAuthException","code":1}}"#
        let otherReport = ErrorReport(
            try explainer.explain(.init(body: Data(other.utf8), status: 500)).error, locale: Locale(identifier: "en"))
        #expect(otherReport.name == "unknown")
        #expect(otherReport.category == "transient")
        #expect(otherReport.recovery == "retry")
    }

    @Test("A GraphQL response with partial data explains each error with its path")
    func graphQL() throws {
        let explanation = try explainer.explain(.init(body: fixture("graphql-partial.json")))
        #expect(explanation.kind == .graphql)
        #expect(explanation.error.code == .GraphQL.responseHasErrors)
        #expect(explanation.error.category == .recoverable)
        #expect(explanation.error.messageKey == .partialContent)
        #expect(explanation.graphQLErrors.map(\.mendError.code) == [.GraphQL.forbidden, .GraphQL.internalServerError])
        #expect(explanation.graphQLErrors.first?.error.pathText == "me.friends[1]")
    }

    @Test("A single GraphQL error with no data is that error")
    func graphQLSingle() throws {
        let body = #"{"data":null,"errors":[{"message":"Log in","extensions":{"code":"UNAUTHENTICATED"}}]}"#
        let explanation = try explainer.explain(.init(body: Data(body.utf8)))
        #expect(explanation.error.code == .GraphQL.unauthenticated)
    }

    @Test("REST errors explain with the status from the body or the flag")
    func rest() throws {
        let fromBody = try explainer.explain(.init(body: fixture("rest-conflict.json")))
        #expect(fromBody.error.code == .REST.updateConflict)
        #expect(fromBody.error.referenceID == "8f14e45f-ea1c")
        let withStatus = try explainer.explain(.init(body: Data(#"{"message":"nope"}"#.utf8), status: 421))
        #expect(withStatus.error.code == .REST.userAuthenticationError)
    }

    @Test("An HTML page with a status is an HTTP error")
    func html() throws {
        let explanation = try explainer.explain(.init(body: fixture("html-503.html"), status: 503, kind: .graph))
        #expect(explanation.error.code == .HTTP.serviceUnavailable)
        #expect(explanation.error.category == .transient)
    }

    @Test(
        "Bad input gives a typed failure",
        arguments: [
            (Data(), nil, ExplainFailure.emptyInput),
            (Data("<html>oops</html>".utf8), nil, .notJSONWithoutStatus),
            (Data(#"{"error":{"message":"x","code":19"#.utf8), nil, .malformedJSON),
            (Data(#"{"hello":"world"}"#.utf8), nil, .wrongShape),
            (Data("[1,2,3]".utf8), nil, .wrongShape),
            (Data(#"{"id":"1"}"#.utf8), 200, .notAnError),
            (Data(#"{"data":{"me":{"id":"1"}}}"#.utf8), nil, .notAnError),
            (Data("{}".utf8), 999, .invalidStatus(999)),
            (Data(repeating: 0x20, count: (1 << 20) + 1), nil, .inputTooLarge(limit: 1 << 20)),
        ] as [(Data, Int?, ExplainFailure)])
    func badInput(body: Data, status: Int?, expected: ExplainFailure) {
        #expect(throws: expected) { try explainer.explain(.init(body: body, status: status)) }
    }

    @Test("An OAuth error answer is the oauth space: detected from its error value, 400 unless it says invalid_client")
    func oauthAnswers() throws {
        let explainer = Explainer()
        let grant = try explainer.explain(
            Explainer.Input(body: Data(#"{"error":"invalid_grant","error_description":"Bad code"}"#.utf8)))
        #expect(grant.kind == .oauth)
        #expect(grant.error.code == .OAuth.invalidGrant)
        #expect(grant.error.category == .recoverable)
        #expect(grant.error.developerMessage == "invalid_grant (an OAuth error, HTTP 400): Bad code")
        let client = try explainer.explain(Explainer.Input(body: Data(#"{"error":"invalid_client"}"#.utf8)))
        #expect(client.error.code == .OAuth.invalidClient)
        #expect(client.error.developerMessage.contains("HTTP 401"))
        // A value no standard names is not OAuth's: without a status it is not explained as one.
        #expect(throws: ExplainFailure.self) {
            try explainer.explain(Explainer.Input(body: Data(#"{"error":"made_up"}"#.utf8)))
        }
    }

    @Test("docs/errors.md is what `mend errors list --markdown` prints")
    func documentationIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let current = CatalogListing(catalog: .everySpace, locale: Locale(identifier: "en")).markdown()
        #expect(
            page == current, "docs/errors.md is stale: run `swift run mend errors list --markdown > docs/errors.md`")
    }

    /// A GraphQL response is a success only with a 2xx: the client's decoder and `mend explain` agree on every status
    /// (graphql-over-http: a response with data comes with a 2xx; a 3xx or 4xx without errors is the status's error).
    @Test(
        "GraphQL: the client's decoder and mend explain agree, whatever the status and the shape",
        arguments: [200, 204, 301, 304, 400, 404, 409, 429, 500, 503])
    func graphQLDecoderAndExplainAgree(status: Int) throws {
        let bodies = [
            #"{"data":{"viewer":{"id":"1"}}}"#, #"{"data":null,"errors":[{"message":"Not found","path":["viewer"]}]}"#,
            #"{"data":{"viewer":null},"errors":[{"message":"x","extensions":{"code":"FORBIDDEN"}}]}"#,
        ]
        for body in bodies {
            let hasErrors = body.contains("\"errors\"")
            let response = HTTPResponse(status: .init(code: status))
            let context = ErrorDecodingContext(catalog: .everySpace, redactor: Redactor(), maximumBodySize: 1 << 20)
            let decoded = GraphQLResponseDecoder().decodeError(
                response: response, body: Data(body.utf8), context: context)
            let explained: MendError.Code?
            do {
                explained = try explainer.explain(.init(body: Data(body.utf8), status: status, kind: .graphql)).error
                    .code
            } catch .notAnError {
                explained = nil
            }
            if let decoded {
                // The decoder lets a response with GraphQL errors through unless one of them stops the request; the
                // explanation then names the response's errors. Either way both see an error at a failure status.
                #expect(explained != nil, "status \(status), \(body): the decoder says \(decoded.code)")
            } else if status >= 300 {
                #expect(hasErrors, "status \(status), \(body): a success for the decoder")
            } else {
                #expect(explained == nil || hasErrors, "status \(status), \(body)")
            }
            if !hasErrors {
                #expect((decoded?.code) == explained, "status \(status), \(body)")
            }
        }
    }
}
