import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@Suite("Fallback decoding: statuses and unreadable bodies")
struct HTTPStatusErrorDecoderTests {
    @Test(
        "A 5xx is never a success, whatever its body",
        arguments: [
            "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", "", #"{"ok":true}"#,
            "upstream timeout",
        ])
    func serverErrorsAreErrors(body: String) throws {
        for status in [500, 502, 503, 504, 520] {
            let error = try #require(decode(HTTPStatusErrorDecoder(), status, body))
            #expect(error.category == .transient)
            #expect(error.httpStatus == status)
        }
    }

    @Test(
        "Successes must carry readable JSON",
        arguments: [
            ("", MendError.Code.Transport.emptyResponse),
            ("<html><body>Sign in to the Wi-Fi</body></html>", .Transport.nonJSONBody),
            ("plain text", .Transport.nonJSONBody),
            (#"{"data":[{"id":"1"#, .Transport.malformedResponse),
        ])
    func unreadableSuccesses(body: String, code: MendError.Code) throws {
        let error = try #require(decode(HTTPStatusErrorDecoder(), 200, body))
        #expect(error.code == code)
        #expect(error.httpStatus == 200)
        #expect(error.referenceIDOrNone == "-1")
    }

    @Test("Readable successes, 204 without a body, and non-JSON APIs pass")
    func successes() {
        #expect(decode(HTTPStatusErrorDecoder(), 200, #"{"id":"1"}"#) == nil)
        #expect(decode(HTTPStatusErrorDecoder(), 200, "true") == nil)
        #expect(decode(HTTPStatusErrorDecoder(), 204, "") == nil)
        let lenient = ErrorDecodingContext(catalog: .everyClientSpace, expectsJSON: false, now: fixedNow)
        #expect(decode(HTTPStatusErrorDecoder(), 200, "<html></html>", context: lenient) == nil)
    }

    @Test("Oversized bodies are refused at the limit, with a bounded excerpt")
    func oversized() throws {
        let context = ErrorDecodingContext(catalog: .everyClientSpace, maximumBodySize: 1024, now: fixedNow)
        let body = String(repeating: "a", count: 10_000)
        let error = try #require(decode(HTTPStatusErrorDecoder(), 200, body, context: context))
        #expect(error.code == .Transport.responseTooLarge)
        #expect(error.response?.bodyByteCount == 10_000)
        #expect((error.response?.body?.count ?? 0) <= ResponseExcerpt.defaultBodyLimit)
        let lenient = ErrorDecodingContext(
            catalog: .everyClientSpace, expectsJSON: false, maximumBodySize: 1024, now: fixedNow)
        #expect(decode(HTTPStatusErrorDecoder(), 200, body, context: lenient)?.code == .Transport.responseTooLarge)
    }

    @Test(
        "Retry-After sets the earliest retry time",
        arguments: [
            ("120", 120.0), ("0", 0.0), ("Thu, 15 Jan 2027 08:00:30 GMT", 30.0),
            ("Thursday, 15-Jan-27 08:00:30 GMT", 30.0),
            ("Thu Jan 15 08:00:30 2027", 30.0), ("Thu, 01 Jan 2026 00:00:00 GMT", 0.0), ("99999999", 86_400.0),
        ])
    func retryAfter(value: String, seconds: Double) throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // Fri, 15 Jan 2027 08:00:00 GMT
        let error = try #require(
            decode(
                HTTPStatusErrorDecoder(), 503, "", headers: [("Retry-After", value)],
                context: ErrorDecodingContext(catalog: .everyClientSpace, now: now)))
        #expect(error.recovery.notBefore == now.addingTimeInterval(seconds))
    }

    @Test("Unparsable Retry-After values are ignored", arguments: ["soon", "-5", "", "1.5"])
    func badRetryAfter(value: String) throws {
        let error = try #require(decode(HTTPStatusErrorDecoder(), 503, "", headers: [("Retry-After", value)]))
        #expect(error.recovery.notBefore == nil)
    }
}
