public import Foundation
public import HTTPTypes
public import MendCore

/// Decodes the BaaS-style REST status error space: status → named error (400 BadRequest … 512 DataAccessError,
/// 100 UnknownCause), with `code`, `message`, `additionalMessages` and `referenceId` read from the body.
///
/// Bodies may carry the fields at the top level or under `status` or `error` (`{"status": {"code": "409", …}}`);
/// field errors may be strings or `{field, message}` objects. The reference id comes from the body, else from the
/// request-id header of the context. A status outside the REST space (say 503) is classified as a plain HTTP
/// status, so it keeps its meaning (transient). An HTML, empty or truncated error body never hides the status.
public struct RESTErrorDecoder: ErrorDecoder {
    /// The REST status space.
    public var errorSpaces: [ErrorSpace] { [.rest] }

    /// Creates the decoder.
    public init() {}

    /// Returns the error that `response` and `body` carry, or `nil` for a success.
    public func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        if response.status.kind == .successful {
            // Some BaaS APIs answer 200 with an error status in the body (`{"status": {"code": "409", …}}`).
            guard JSONValue.startsWithMember("status", in: body) else {
                return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
            }
            let decoded = DecodedBody(body, limit: context.maximumBodySize)
            if let fields = decoded.json.flatMap(Self.errorFields(in:)), let bodyCode = fields.code,
                bodyCode >= 300 || bodyCode == 100, Self.isRESTCode(bodyCode, context: context)
            {
                return makeError(
                    code: bodyCode, fields: fields, response: response, body: body, decoded: decoded, context: context)
            }
            return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        let decoded = DecodedBody(body, limit: context.maximumBodySize)
        let fields = decoded.json.flatMap(Self.errorFields(in:))
        let status = response.status.code
        let restCode: Int? =
            if let bodyCode = fields?.code, Self.isRESTCode(bodyCode, context: context) {
                bodyCode
            } else if Self.isRESTCode(status, context: context) { status } else { nil }
        guard let restCode else {
            var error = MendError.httpStatus(
                response: response, body: body, decoded: decoded, context: context, detail: MendError.describe(decoded))
            if let fields { apply(fields, to: &error, context: context) }
            return error
        }
        return makeError(
            code: restCode, fields: fields, response: response, body: body, decoded: decoded, context: context)
    }

    private func makeError(
        code: Int, fields: Fields?, response: HTTPResponse, body: Data, decoded: DecodedBody,
        context: ErrorDecodingContext
    ) -> MendError {
        let entry = context.catalog.entry(code: MendError.Code(.rest, code))
        let detail = MendError.describe(decoded).map { " (\($0))" } ?? ""
        var error = MendError(
            code: MendError.Code(.rest, code),
            developerMessage: "\(entry.name) \(code)\(detail)",
            catalog: context.catalog)
        error.attach(response: response, body: body, json: decoded.json, context: context)
        if let fields { apply(fields, to: &error, context: context) }
        return error
    }

    private func apply(_ fields: Fields, to error: inout MendError, context: ErrorDecodingContext) {
        if let message = fields.message, !message.isEmpty {
            error.developerMessage = context.redactor.redact(text: "\(error.developerMessage): \(message)")
        }
        if let referenceID = fields.referenceID, !referenceID.isEmpty { error.referenceID = referenceID }
        error.additionalMessages = fields.additionalMessages.map { context.redactor.redact(text: $0) }
    }

    private static func isRESTCode(_ code: Int, context: ErrorDecodingContext) -> Bool {
        context.catalog.entries(in: .rest).contains { $0.codes?.contains(code) == true }
    }

    struct Fields {
        var code: Int?
        var message: String?
        var referenceID: String?
        var additionalMessages: [String]
    }

    static func errorFields(in json: JSONValue) -> Fields? {
        let candidates = [json["status"], json["error"], json].compactMap { $0 }.filter { $0.objectValue != nil }
        for object in candidates {
            let code = value(in: object, keys: ["code", "statusCode", "status"])?.intValue
            let message = value(in: object, keys: ["message", "msg", "error_description", "description"])?.stringValue
            let reference = value(
                in: object, keys: ["referenceId", "referenceid", "reference_id", "requestId", "request_id", "traceId"])
            let additional = value(
                in: object,
                keys: ["additionalMessages", "additionalmessages", "additional_messages", "errors", "details"])
            guard code != nil || message != nil || reference != nil || additional != nil else { continue }
            return Fields(
                code: code, message: message.map { String($0.prefix(1000)) },
                referenceID: reference.flatMap { $0.stringValue ?? $0.intValue.map(String.init) }.map {
                    String($0.prefix(128))
                },
                additionalMessages: additional.map(messages(in:)) ?? [])
        }
        return nil
    }

    private static func value(in object: JSONValue, keys: [String]) -> JSONValue? {
        for key in keys { if let value = object[key], !value.isNull { return value } }
        return nil
    }

    private static func messages(in value: JSONValue) -> [String] {
        let items = value.arrayValue ?? [value]
        return items.prefix(100).compactMap { item in
            if let text = item.stringValue { return String(text.prefix(500)) }
            guard let message = item["message"]?.stringValue ?? item["msg"]?.stringValue else { return nil }
            if let field = item["field"]?.stringValue ?? item["property"]?.stringValue ?? item["path"]?.stringValue {
                return String("\(field): \(message)".prefix(500))
            }
            return String(message.prefix(500))
        }
    }
}
