import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendHTTP
import Testing

private let now = Date(timeIntervalSince1970: 1_800_000_000)

private func decode(_ status: Int, _ body: String, headers: [(String, String)] = []) -> MendError? {
    var fields = HTTPFields()
    for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    return GraphErrorDecoder().decodeError(
        response: HTTPResponse(status: .init(code: status), headerFields: fields), body: Data(body.utf8),
        context: ErrorDecodingContext(catalog: .graph, now: now))
}

@Suite("Graph error decoding")
struct GraphErrorDecoderTests {
    @Test("Every field of the envelope lands in the error")
    func everyField() throws {
        let body = #"""
            {"error":{"message":"Error validating access token: Session has expired","type":"OAuthException",
             "code":190,"error_subcode":463,"error_user_title":"Sitzung abgelaufen",
             "error_user_msg":"Bitte melde dich erneut an.","fbtrace_id":"EJplcsCHuLu","is_transient":false}}
            """#
        let error = try #require(
            decode(400, body, headers: [("x-fb-trace-id", "other"), ("facebook-api-version", "v25.0")]))
        #expect(error.domain == .graph)
        #expect(error.code == .Graph.accessTokenInvalid)
        #expect(error.subcode == .tokenExpired)
        #expect(error.name == "tokenExpired")
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .reauthenticate)
        #expect(error.developerMessage == "OAuthException: Error validating access token: Session has expired")
        #expect(error.userTitle(locale: Locale(identifier: "en")) == "Sitzung abgelaufen")
        #expect(error.userMessage(locale: Locale(identifier: "en")) == "Bitte melde dich erneut an.")
        #expect(error.referenceID == "EJplcsCHuLu")
        #expect(error.httpStatus == 400)
        #expect(error.response?.headers["facebook-api-version"] == "v25.0")
        #expect(error.response?.json?["error"]?["code"] == .int(190))
    }

    @Test(
        "is_transient forces transient; the legacy shapes are read",
        arguments: [
            (
                #"{"error":{"message":"x","code":100,"is_transient":true,"fbtrace_id":"t"}}"#, 100,
                MendError.Category.transient, "x"
            ),
            (#"{"error":{"error_msg":"legacy msg","code":"190","fbtrace_id":"t"}}"#, 190, .recoverable, "legacy msg"),
            (#"{"error":{"error_reason":"reason first","error_msg":"msg","code":2}}"#, 2, .transient, "reason first"),
            (
                #"{"error_code":17,"error_msg":"User request limit reached"}"#, 17, .transient,
                "User request limit reached"
            ),
        ])
    func shapes(body: String, code: Int, category: MendError.Category, message: String) throws {
        let error = try #require(decode(400, body))
        #expect(error.code.rawValue == code)
        #expect(error.category == category)
        #expect(error.developerMessage.hasSuffix(message))
    }

    @Test(
        "Permission errors name the missing permissions",
        arguments: [
            ("(#200) Requires extended permission: publish_to_groups", ["publish_to_groups"]),
            (
                "(#10) This endpoint requires the pages_read_engagement permission or the pages_manage_posts permission",
                ["pages_read_engagement", "pages_manage_posts"]
            ),
            ("(#200) Permissions error", []),
        ])
    func permissions(message: String, expected: [String]) throws {
        let code = message.hasPrefix("(#10)") ? 10 : 200
        let error = try #require(
            decode(403, #"{"error":{"message":"\#(message)","type":"OAuthException","code":\#(code)}}"#))
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .requestPermissions)
        #expect(error.recovery.permissions == expected)
    }

    @Test("Throttling carries the wait from the usage headers (minutes) and Retry-After (seconds)")
    func throttling() throws {
        let usage =
            #"{"1234":[{"type":"pages","call_count":100,"total_cputime":9,"total_time":9,"estimated_time_to_regain_access":7}]}"#
        let error = try #require(
            decode(
                400, #"{"error":{"message":"(#80001) There have been too many calls","code":80001,"fbtrace_id":"x"}}"#,
                headers: [("X-Business-Use-Case-Usage", usage), ("Retry-After", "30")]))
        #expect(error.recovery.action == .waitForRateLimit)
        #expect(error.recovery.notBefore == now.addingTimeInterval(7 * 60))
        let ads = try #require(
            decode(
                400, #"{"error":{"message":"(#17) limit","code":17}}"#,
                headers: [("X-Ad-Account-Usage", #"{"acc_id_util_pct":100,"reset_time_duration":90}"#)]))
        #expect(ads.recovery.notBefore == now.addingTimeInterval(90))
    }

    @Test(
        "A 5xx without the envelope is an error, never a success",
        arguments: [
            ("<html><body>Sorry, something went wrong.</body></html>", 503, MendError.Code.HTTP.serviceUnavailable),
            ("", 500, .HTTP.internalServerError),
            (#"{"error":"invalid_request"}"#, 400, .HTTP.badRequest),
        ])
    func nonEnvelope(body: String, status: Int, code: MendError.Code) throws {
        let error = try #require(
            decode(
                status, body,
                headers: [
                    ("x-fb-trace-id", "Ftrace"),
                    (
                        "WWW-Authenticate",
                        #"OAuth "Facebook Platform" "unknown_error" "An unknown error has occurred.""#
                    ),
                ]))
        #expect(error.code == code)
        #expect(error.referenceID == "Ftrace")
        #expect(error.developerMessage.contains("An unknown error has occurred."))
    }

    @Test("Successes decode to no error; unreadable successes are errors")
    func successes() {
        #expect(decode(200, #"{"id":"1","name":"Ada"}"#) == nil)
        #expect(decode(200, #"{"success":true}"#) == nil)
        #expect(decode(200, #"{"data":[{"id":"1"#)?.code == .Transport.malformedResponse)
        #expect(decode(200, "<html></html>")?.code == .Transport.nonJSONBody)
    }

    @Test(
        "Code 1 asking for less data, in its message or its user text, asks for a smaller request",
        arguments: [
            #"{"error":{"message":"Please reduce the amount of data you're asking for, then retry your request","type":"OAuthException","code":1,"fbtrace_id":"t"}}"#,
            #"{"error":{"message":"Please reduce the amount of data you're asking for","code":1}}"#,
            #"{"error":{"message":"An unknown error occurred","type":"OAuthException","code":1,"error_user_msg":"Please reduce the amount of data you're asking for, then retry your request"}}"#,
            #"{"error":{"message":"An unknown error occurred","code":1,"error_user_title":"Please reduce the amount of data you're asking for","error_user_msg":"Try again with less."}}"#,
            #"{"error":{"message":"Please reduce the amount of data you're asking for, then retry your request","code":1,"is_transient":true}}"#,
        ])
    func reduceData(body: String) throws {
        let error = try #require(decode(500, body))
        #expect(error.code == .Graph.unknown)
        #expect(error.name == "reduceData")
        #expect(error.category == .recoverable)
        #expect(error.recovery.action == .reduceRequestSize)
        #expect(!error.isAutomaticallyRetryable)
    }

    @Test("Any other code 1 stays transient and retried, even when its user text mentions data")
    func otherCodeOne() throws {
        for body in [
            #"{"error":{"message":"An unknown error has occurred.","type":"OAuthException","code":1,"is_transient":true}}"#,
            #"{"error":{"message":"An unknown error has occurred.","code":1,"error_user_msg":"Something went wrong with your data."}}"#,
        ] {
            let error = try #require(decode(500, body))
            #expect(error.name == "unknown", "\(body)")
            #expect(error.category == .transient, "\(body)")
            #expect(error.recovery.action == .retry, "\(body)")
            #expect(error.isAutomaticallyRetryable, "\(body)")
        }
    }

    @Test("The user text selects a phrase row only for its own code")
    func userTextOnlyForItsCode() throws {
        let body =
            #"{"error":{"message":"Invalid parameter","code":100,"error_user_msg":"Please reduce the amount of data you're asking for"}}"#
        let error = try #require(decode(400, body))
        #expect(error.name == "invalidParameter")
    }
}
