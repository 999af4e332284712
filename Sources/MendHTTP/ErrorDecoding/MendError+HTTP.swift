public import Foundation
public import HTTPTypes
public import MendCore

extension MendError {
    /// An error for an HTTP status whose body says nothing the API's decoder understands.
    ///
    /// 4xx and 5xx statuses without a catalog entry of their own are classified by their class (400, 500).
    /// `Retry-After` sets `MendError.Recovery.notBefore`; `detail` explains the body (an HTML page…).
    package static func httpStatus(
        response: HTTPResponse, body: Data, decoded: DecodedBody, context: ErrorDecodingContext, detail: String? = nil
    ) -> MendError {
        let status = response.status.code
        var error = MendError(
            code: Code(.http, status),
            developerMessage: "HTTP \(status) \(response.status.reasonPhrase)" + (detail.map { ": \($0)" } ?? ""),
            catalog: context.catalog)
        error.attach(response: response, body: body, json: decoded.json, context: context)
        return error
    }

    /// A transport-domain error for an unreadable body: `nonJSONBody`, `malformedResponse`, `emptyResponse` or
    /// `responseTooLarge`, with the response attached.
    package static func unreadableBody(
        _ decoded: DecodedBody, response: HTTPResponse, body: Data, context: ErrorDecodingContext
    ) -> MendError? {
        let code: Code
        let message: String
        switch decoded {
        case .json, .validJSON: return nil
        case .empty:
            code = .Transport.emptyResponse
            message = "The response body was empty where JSON was expected."
        case .notJSON(let looksLikeHTML):
            code = .Transport.nonJSONBody
            message =
                looksLikeHTML ? "The response body was an HTML page, not JSON." : "The response body was not JSON."
        case .malformed:
            code = .Transport.malformedResponse
            message = "The response body was invalid or truncated JSON."
        case .tooLarge(let limit):
            code = .Transport.responseTooLarge
            message = "The response body exceeded the limit of \(limit) bytes."
        }
        var error = MendError(code: code, developerMessage: message, catalog: context.catalog)
        error.attach(response: response, body: body, json: nil, context: context)
        return error
    }

    /// A short phrase that describes an unreadable body, for developer messages of status errors.
    package static func describe(_ decoded: DecodedBody) -> String? {
        switch decoded {
        case .json, .validJSON: nil
        case .empty: "empty body"
        case .notJSON(let looksLikeHTML): looksLikeHTML ? "HTML body" : "non-JSON body"
        case .malformed: "invalid or truncated JSON body"
        case .tooLarge(let limit): "body over the \(limit)-byte limit"
        }
    }

    /// Attaches a redacted excerpt of the response, the request id header as reference id (when none is set yet),
    /// and the `Retry-After` time.
    public mutating func attach(
        response: HTTPResponse, body: Data, json: JSONValue?, context: ErrorDecodingContext
    ) {
        let headers = response.headerFields.map { (name: $0.name.canonicalName, value: $0.value) }
        let excerptBody =
            body.count > context.maximumBodySize ? body.prefix(ResponseExcerpt.defaultBodyLimit * 4) : body
        var excerpt = ResponseExcerpt(
            status: response.status.code, headers: headers, body: Data(excerptBody), json: json,
            redactor: context.redactor)
        excerpt.bodyByteCount = body.count
        self.response = excerpt
        if referenceID == nil, let requestID = response.headerFields[context.requestIDHeader], !requestID.isEmpty {
            referenceID = String(requestID.prefix(128))
        }
        if let retryAfter = response.headerFields[.retryAfter],
            let date = RetryAfter.date(from: retryAfter, now: context.now)
        {
            notBefore = date
        }
    }
}
