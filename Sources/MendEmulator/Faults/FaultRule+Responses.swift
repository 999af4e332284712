import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP

/// What an injected fault does to a response: the response that replaces the real one, or what it changes in the
/// real one.
extension FaultRule {
    /// The response that replaces the real one, or `nil` when the real handler runs (and ``finish(_:)`` then
    /// transforms its response).
    func replacement(context: inout EmulatorContext) -> EmulatorResponse? {
        let status = self.status.map { HTTPResponse.Status(code: $0) }
        switch self.kind {
        case .error:
            guard let text = self.error, let parsed = FaultRule.parse(error: text) else { return nil }
            return catalogResponse(parsed, context: &context)
        case .status:
            var response = EmulatorResponse(status: status ?? .internalServerError, body: Data((self.body ?? "").utf8))
            response.headers[.contentType] = self.contentType ?? "application/json; charset=UTF-8"
            return response
        case .malformedJSON:
            return EmulatorResponse(
                status: status ?? .ok, headers: [.contentType: "application/json; charset=UTF-8"],
                body: Data(#"{"data": [{"id": "1", "name": "Alice"},, {"id": }"#.utf8))
        case .html:
            let code = status ?? .badGateway
            let page = """
                <!DOCTYPE html><html><head><title>\(code.code) \(code.reasonPhrase)</title></head>\
                <body><h1>\(code.reasonPhrase)</h1><p>The upstream server is temporarily unavailable.</p></body></html>
                """
            return EmulatorResponse(
                status: code, headers: [.contentType: "text/html; charset=utf-8"], body: Data(page.utf8))
        case .empty:
            return EmulatorResponse(status: status ?? .internalServerError)
        case .drop:
            return EmulatorResponse(status: .internalServerError, delivery: .drop)
        case .payloadBudget:
            // Graph's answer to a request for too much data: code 1 with HTTP 500, the words in the message and
            // the user text, and no `is_transient` (sending the same request again fails again).
            var failure = GraphFailure(
                code: 1, message: self.message ?? GraphFailure.reduceData, userMessage: GraphFailure.reduceData,
                isTransient: false, status: status ?? .internalServerError)
            failure.includesTransientFlag = false
            return context.render(.failure(failure))
        case .truncatedJSON, .delay, .connectionLost:
            return nil
        }
    }

    /// Applies what a fault adds to any response: truncation, a cut connection, the delay, `Retry-After`, headers.
    func finish(_ response: EmulatorResponse) -> EmulatorResponse {
        var response = response
        switch self.kind {
        case .truncatedJSON:
            response.body = response.body.prefix(max(1, response.body.count / 2))
            response.headers[.contentType] = response.headers[.contentType] ?? "application/json; charset=UTF-8"
        case .connectionLost:
            response.delivery = .cutAfter(bytes: response.body.count / 2)
        default: break
        }
        if let milliseconds = self.delayMilliseconds { response.delay = .milliseconds(milliseconds) }
        if let retryAfter = self.retryAfter { response.headers[.retryAfter] = retryAfter }
        for (name, value) in (self.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        return response
    }

    /// A catalog error rendered as its API renders it.
    func catalogResponse(_ error: CatalogError, context: inout EmulatorContext) -> EmulatorResponse {
        let status = self.status.map { HTTPResponse.Status(code: $0) }
        switch error.domain {
        case .graph:
            var failure = GraphFailure.catalog(code: error.code, subcode: error.subcode, message: self.message)
            if let status { failure.status = status }
            return context.render(.failure(failure))
        case .rest:
            var failure = RESTFailure.standard(code: error.code)
            if let message = self.message { failure.message = message }
            var response = failure.response(referenceID: context.random.digits(18))
            if let status { response.status = status }
            return response
        case .graphQL:
            let entry = ErrorCatalog.everySpace.entry(code: MendError.Code(.graphQL, error.code))
            if error.code == 12 {
                return .json(.object([:]), status: status ?? .ok)
            }
            var extensions: [(String, JSONValue?)] = [("code", .string(entry.wireName))]
            extensions.append(("fbtrace_id", .string(context.traceID())))
            let body = JSONValue.object([
                "data": .null,
                "errors": .array([
                    .object([
                        "message": .string(self.message ?? entry.summary), "extensions": .object(extensions),
                    ])
                ]),
            ])
            return .json(body, status: status ?? .ok)
        case .http:
            let code = HTTPResponse.Status(code: error.code)
            return EmulatorResponse(
                status: code, headers: [.contentType: "text/plain; charset=utf-8"],
                body: Data((self.message ?? "\(code.code) \(code.reasonPhrase)").utf8))
        case .transport:
            switch error.code {
            case 2:
                return EmulatorResponse(
                    status: .gatewayTimeout, delay: .milliseconds(self.delayMilliseconds ?? 30_000))
            case 5:
                var response = EmulatorResponse.json(
                    .object(["data": .array(Array(repeating: .string("x"), count: 64))]))
                response.delivery = .cutAfter(bytes: response.body.count / 2)
                return response
            case 7:
                return EmulatorResponse(
                    status: .ok, headers: [.contentType: "application/json"], body: Data(#"{"id": "1", "name": "#.utf8))
            case 8:
                return .html("<!DOCTYPE html><html><body><h1>Sorry, something went wrong.</h1></body></html>")
            case 9:
                let chunk = String(repeating: "x", count: 1024)
                let body = "[" + Array(repeating: "\"\(chunk)\"", count: 11 * 1024).joined(separator: ",") + "]"
                return EmulatorResponse(status: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8))
            case 10:
                return EmulatorResponse(status: .ok, headers: [.contentType: "application/json"])
            default:
                return EmulatorResponse(status: .internalServerError, delivery: .drop)
            }
        default:
            return EmulatorResponse(status: .internalServerError, delivery: .drop)
        }
    }
}
