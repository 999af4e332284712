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
            guard context.expectsJSON else {
                guard body.count <= context.maximumBodySize else {
                    return MendError.unreadableBody(
                        .tooLarge(limit: context.maximumBodySize), response: response, body: body, context: context)
                }
                return nil
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
