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
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.jsonText())))
    }

    /// The failure as `MendError.wireBody`, with `referenceId` = the request id. Its messages must have been
    /// redacted by the server's redactor (``ServerFailure/redacted(with:)``: the standard shapes and the app secret),
    /// so the body does not redact them again.
    static func failure(_ failure: ServerFailure, requestID: String) -> Response {
        assert(failure.isRedacted, "a failure answered without the server's redaction")
        var error = failure.error
        error.referenceID = requestID
        var headers = failure.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: failure.status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: error.wireBody(redactingMessages: false).jsonText())))
    }
}
