import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP

extension EmulatorState {
    /// The response that replaces the real one, or `nil` when the real handler runs (and ``finish(_:rule:)`` then
    /// transforms its response).
    mutating func replacement(for rule: FaultRule) -> EmulatorResponse? {
        let status = rule.status.map { HTTPResponse.Status(code: $0) }
        switch rule.kind {
        case .error:
            guard let text = rule.error, let parsed = FaultRule.parse(error: text) else { return nil }
            return catalogResponse(parsed, rule: rule)
        case .status:
            var response = EmulatorResponse(status: status ?? .internalServerError, body: Data((rule.body ?? "").utf8))
            response.headers[.contentType] = rule.contentType ?? "application/json; charset=UTF-8"
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
        case .truncatedJSON, .delay, .connectionLost:
            return nil
        }
    }

    /// Applies what a fault adds to any response: truncation, a cut connection, the delay, `Retry-After`, headers.
    func finish(_ response: EmulatorResponse, rule: FaultRule) -> EmulatorResponse {
        var response = response
        switch rule.kind {
        case .truncatedJSON:
            response.body = response.body.prefix(max(1, response.body.count / 2))
            response.headers[.contentType] = response.headers[.contentType] ?? "application/json; charset=UTF-8"
        case .connectionLost:
            response.delivery = .cutAfter(bytes: response.body.count / 2)
        default: break
        }
        if let milliseconds = rule.delayMilliseconds { response.delay = .milliseconds(milliseconds) }
        if let retryAfter = rule.retryAfter { response.headers[.retryAfter] = retryAfter }
        for (name, value) in (rule.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        return response
    }

    /// A catalog error rendered as its API renders it.
    mutating func catalogResponse(_ error: FaultRule.CatalogError, rule: FaultRule) -> EmulatorResponse {
        let status = rule.status.map { HTTPResponse.Status(code: $0) }
        switch error.domain {
        case .graph:
            var failure = GraphFailure.catalog(code: error.code, subcode: error.subcode, message: rule.message)
            if let status { failure.status = status }
            return render(.failure(failure))
        case .rest:
            var failure = RESTFailure.standard(code: error.code)
            if let message = rule.message { failure.message = message }
            var response = failure.response(referenceID: random.digits(18))
            if let status { response.status = status }
            return response
        case .graphQL:
            let entry = ErrorCatalog.everySpace.entry(code: MendError.Code(.graphQL, error.code))
            if error.code == 12 {
                return .json(.object([:]), status: status ?? .ok)
            }
            var extensions: [(String, JSONValue?)] = [("code", .string(entry.wireName))]
            extensions.append(("fbtrace_id", .string(traceID())))
            let body = JSONValue.object([
                "data": .null,
                "errors": .array([
                    .object([
                        "message": .string(rule.message ?? entry.summary), "extensions": .object(extensions),
                    ])
                ]),
            ])
            return .json(body, status: status ?? .ok)
        case .http:
            let code = HTTPResponse.Status(code: error.code)
            return EmulatorResponse(
                status: code, headers: [.contentType: "text/plain; charset=utf-8"],
                body: Data((rule.message ?? "\(code.code) \(code.reasonPhrase)").utf8))
        case .transport:
            switch error.code {
            case 2:
                return EmulatorResponse(
                    status: .gatewayTimeout, delay: .milliseconds(rule.delayMilliseconds ?? 30_000))
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
