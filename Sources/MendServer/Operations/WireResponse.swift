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
        return Response(status: status, headers: jsonHeaders, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        if !value.write(into: &bytes) { bytes = Array("null".utf8) }
        return json(bytes: bytes, status: status)
    }

    /// A JSON answer whose text is `bytes`.
    static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: jsonHeaders, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The header fields of every JSON answer, made once (each answer copies them, without building them again).
    static let jsonHeaders: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]

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
            body: ResponseBody(byteBuffer: ByteBuffer(string: body(error, extra: failure.extraMembers).jsonText())))
    }

    private static func body(_ error: MendError, extra: [String: JSONValue]) -> JSONValue {
        let body = error.wireBody(redactingMessages: false)
        guard !extra.isEmpty, case .object(let members) = body else { return body }
        return .object(members.merging(extra) { current, _ in current })
    }
}
