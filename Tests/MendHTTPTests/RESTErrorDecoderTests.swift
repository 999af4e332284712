import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@Suite("REST status error space")
struct RESTErrorDecoderTests {
    @Test(
        "Each status of the space maps to its named error",
        arguments: [
            (400, "badRequest"), (401, "accessDenied"), (402, "paymentRequired"), (403, "usageLimitExceeded"),
            (404, "notFound"), (409, "updateConflict"), (412, "preconditionFailed"), (420, "apiAuthenticationError"),
            (421, "userAuthenticationError"), (435, "duplicateObject"), (436, "incorrectConfiguration"),
            (500, "internalServerError"), (512, "dataAccessError"),
        ])
    func statusSpace(status: Int, name: String) throws {
        let error = try #require(
            decode(RESTErrorDecoder(), status, #"{"code":"\#(status)","message":"m","referenceId":"ref-\#(status)"}"#))
        #expect(error.domain == .rest)
        #expect(error.code.rawValue == status)
        #expect(error.name == name)
        #expect(error.referenceID == "ref-\(status)")
        #expect(error.httpStatus == status)
    }

    @Test("The BaaS envelope under `status`, with field-level messages")
    func nestedEnvelope() throws {
        let body = #"""
            {"status":{"code":"409","message":"Revision mismatch","referenceid":"8f14e45f",
             "additionalmessages":["__revision: expected 3, found 4", {"field":"title","message":"too long"}]}}
            """#
        let error = try #require(decode(RESTErrorDecoder(), 409, body))
        #expect(error.code == .REST.updateConflict)
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .reloadAndRetry)
        #expect(error.referenceID == "8f14e45f")
        #expect(error.additionalMessages == ["__revision: expected 3, found 4", "title: too long"])
        #expect(error.developerMessage.contains("Revision mismatch"))
    }

    @Test("UnknownCause 100 and an error status inside a 200 body")
    func bodyCodes() throws {
        let unknown = try #require(decode(RESTErrorDecoder(), 200, #"{"status":{"code":"100","message":"?"}}"#))
        #expect(unknown.code == .REST.unknownCause)
        let conflict = try #require(decode(RESTErrorDecoder(), 200, #"{"status":{"code":"409","message":"x"}}"#))
        #expect(conflict.code == .REST.updateConflict)
        #expect(decode(RESTErrorDecoder(), 200, #"{"status":{"code":"200","message":"ok"},"object":{}}"#) == nil)
    }

    @Test("The reference id comes from the X-Request-Id header when the body has none, or a configured header")
    func referenceFromHeader() throws {
        let error = try #require(
            decode(RESTErrorDecoder(), 404, #"{"message":"no"}"#, headers: [("X-Request-Id", "req-42")]))
        #expect(error.referenceID == "req-42")
        var context = ErrorDecodingContext(catalog: .everyClientSpace, now: fixedNow)
        context.requestIDHeader = .init("X-Correlation-Id")!
        let custom = try #require(
            decode(RESTErrorDecoder(), 404, "", headers: [("X-Correlation-Id", "c-7")], context: context))
        #expect(custom.referenceID == "c-7")
        #expect(custom.referenceIDOrNone == "c-7")
    }

    @Test(
        "Statuses outside the space keep their HTTP meaning; broken bodies never hide the status",
        arguments: [
            (
                503, "<html><body>Service Unavailable</body></html>", MendError.Code.HTTP.serviceUnavailable,
                MendError.Category.transient
            ),
            (502, "", .HTTP.badGateway, .transient),
            (429, #"{"message":"slow down"}"#, .HTTP.tooManyRequests, .transient),
            (404, "<html>Not Found</html>", .REST.notFound, .other),
            (500, #"{"code":"500","message":"trunc"#, .REST.internalServerError, .transient),
            (418, "I'm a teapot", MendError.Code(.http, 418), .other),
        ])
    func outsideTheSpace(status: Int, body: String, code: MendError.Code, category: MendError.Category) throws {
        let error = try #require(decode(RESTErrorDecoder(), status, body))
        #expect(error.code == code)
        #expect(error.category == category)
        #expect(error.httpStatus == status)
        #expect(error.name == ErrorCatalog.everyClientSpace.entry(code: code).name)
        #expect(error.referenceID == nil)
        #expect(error.referenceIDOrNone == "-1")
    }
}
