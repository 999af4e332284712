import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

// A provider's error space declared outside MendCore, with public API only — what a newcomer writes to teach Mend
// another provider's errors (see `ErrorSpace`'s documentation). Nothing here is known to MendCore.

extension MendError.Domain {
    fileprivate static let acme = Self(rawValue: "acme")
}

extension MendError.Code {
    fileprivate enum Acme {
        static let quotaExceeded = MendError.Code(.acme, 7)
        static let accountClosed = MendError.Code(.acme, 9)
    }
}

extension ErrorSpace {
    fileprivate static let acme = ErrorSpace(
        domain: .acme,
        entries: [
            .row(.acme, nil, "acmeError", .other, .contactSupport, .generic, "An Acme error without a row."),
            .row(.acme, 7, "quotaExceeded", .transient, .waitForRateLimit, .rateLimited, "Wait for the quota."),
            .row(.acme, 9, "accountClosed", .recoverable, .visitProvider, .accountCheckpointed, "Reopen the account."),
        ])
}

/// Acme answers errors as `{"acme_error": {"code": 7, "detail": "…"}}`.
private struct AcmeErrorDecoder: ErrorDecoder {
    var errorSpaces: [ErrorSpace] { [.acme] }

    func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        let decoded = DecodedBody(body, limit: context.maximumBodySize)
        guard let fields = decoded.json?["acme_error"], let code = fields["code"]?.intValue else {
            return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        var error = MendError(
            code: MendError.Code(.acme, code), developerMessage: fields["detail"]?.stringValue ?? "Acme error \(code)",
            catalog: context.catalog)
        error.attach(response: response, body: body, json: decoded.json, context: context)
        return error
    }
}

@Suite("A provider's error space, declared outside MendCore")
struct ProviderErrorSpaceTests {
    @Test("Its decoder brings its rows: the error is classified, retried and worded by them")
    func classifiedRetriedAndWorded() async throws {
        let transport = InMemoryTransport(replies: [
            .json(429, #"{"acme_error":{"code":7,"detail":"quota"}}"#),
            .json(403, #"{"acme_error":{"code":9,"detail":"closed"}}"#),
        ])
        let client = APIClient(
            transport: transport,
            configuration: .init(errorDecoder: AcmeErrorDecoder(), clock: PipelineClock(sleep: { _ in })),
            steps: .standard())
        let error = try await #require(throws: MendError.self) {
            try await client.send(APIRequest(method: .get, url: URL(string: "https://api.acme.test/v1/things")!))
        }
        // The quota error was transient by Acme's row, so the pipeline retried it; the second answer is final.
        #expect(transport.requestCount == 2)
        #expect(error.matches(.Acme.accountClosed))
        #expect(error.name == "accountClosed")
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .visitProvider)
        #expect(error.attempts == 2)
        #expect(error.userTitle(locale: Locale(identifier: "en")) == "Account Needs Attention")
    }

    @Test("A catalog that has the space classifies its codes; one without it gives them the generic other row")
    func catalogsAreExplicit() {
        let withAcme = ErrorCatalog.core.adding(.acme)
        #expect(withAcme.entry(code: .Acme.quotaExceeded).category == .transient)
        #expect(withAcme.entry(code: MendError.Code(.acme, 1234)).name == "acmeError")
        #expect(withAcme.domains.contains(.acme))
        #expect(!ErrorCatalog.core.domains.contains(.acme))
        let unknown = ErrorCatalog.core.entry(code: .Acme.quotaExceeded)
        #expect(unknown.category == .other)
        #expect(unknown.isAutomaticallyRetryable == false)
    }
}
