public import Foundation
public import HTTPTypes
public import MendCore

/// The fallback decoder: classifies by HTTP status alone, and refuses unreadable success bodies.
///
/// - 2xx: a success, unless JSON is expected and the body is empty, not JSON, truncated or too large.
/// - anything else (1xx and 3xx reaching an API client included): an `MendError.Domain.http` error
///   for the status.
public struct HTTPStatusErrorDecoder: ErrorDecoder {
    /// Creates the decoder.
    public init() {}

    /// Returns the error that `response` and `body` carry, or `nil` for a success.
    public func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        // Read once: `HTTPResponse` keeps its status as text and parses it on every read.
        let status = response.status
        if status.kind == .successful {
            if Self.accepts(status, body: body, expectsJSON: context.expectsJSON, limit: context.maximumBodySize) {
                return nil
            }
            guard context.expectsJSON else {
                // Not accepted without JSON expected: the body is over the limit.
                return MendError.unreadableBody(
                    .tooLarge(limit: context.maximumBodySize), response: response, body: body, context: context)
            }
            // Success bodies are checked for structure only: a full parse would cost more than the request.
            let checked = DecodedBody(validating: body, limit: context.maximumBodySize)
            if status.code == 204, case .empty = checked { return nil }
            return MendError.unreadableBody(checked, response: response, body: body, context: context)
        }
        let decoded = DecodedBody(body, limit: context.maximumBodySize)
        var error = MendError.httpStatus(
            response: response, body: body, decoded: decoded, context: context, detail: MendError.describe(decoded))
        if let message = Self.message(in: decoded.json) {
            error.developerMessage += " — \(context.redactor.redact(text: message))"
        }
        return error
    }

    /// Whether the decoder accepts `response` with `body` without looking further: 2xx, within `limit`, and — when JSON
    /// is expected — structurally valid JSON. The client asks this before building a decoding context; `false` leaves
    /// the verdict (an error, or a 204's empty body accepted) to ``decodeError(response:body:context:)``.
    package static func accepts(_ response: HTTPResponse, body: Data, expectsJSON: Bool, limit: Int) -> Bool {
        accepts(response.status, body: body, expectsJSON: expectsJSON, limit: limit)
    }

    private static func accepts(_ status: HTTPResponse.Status, body: Data, expectsJSON: Bool, limit: Int) -> Bool {
        guard status.kind == .successful else { return false }
        guard expectsJSON else { return body.count <= limit }
        return JSONValue.validateStructure(body, maxBytes: limit) == nil
    }

    /// A message from common JSON error shapes (`message`, `error`, `error_description`, `detail`, `title`).
    static func message(in json: JSONValue?) -> String? {
        guard let json else { return nil }
        for key in ["message", "error_description", "detail", "title", "error"] {
            if let text = json[key]?.stringValue, !text.isEmpty { return String(text.prefix(500)) }
            if let text = json[key]?["message"]?.stringValue, !text.isEmpty { return String(text.prefix(500)) }
        }
        return nil
    }
}
