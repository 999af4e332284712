import Foundation
import HTTPTypes
import Hummingbird
import MendCore
import NIOCore

/// JSON responses, and the Mend error shape for failures.
enum WireResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.jsonText())))
    }

    /// The failure as `MendError.wireBody`, with `referenceId` = the request id. The messages are redacted with
    /// `redactor`, the server's own, which knows the app secret (a provider's message may echo it); `wireBody` adds
    /// the standard redaction of tokens and codes.
    static func failure(_ failure: ServerFailure, requestID: String, redactor: Redactor) -> Response {
        var error = failure.error
        error.referenceID = requestID
        error.developerMessage = redactor.redact(text: error.developerMessage)
        error.additionalMessages = error.additionalMessages.map { redactor.redact(text: $0) }
        var headers = failure.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: failure.status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: error.wireBody.jsonText())))
    }
}
