import Foundation
import HTTPTypes
import MendCore

extension EmulatorState {
    /// The most requests one batch may hold.
    static let maximumBatchSize = 50

    /// `POST /` with `batch=[{"method", "relative_url", "body"}, …]`: each item runs as its own request and answers
    /// with its status, headers and body (as a string).
    mutating func batch(_ request: EmulatorRequest) -> EmulatorResponse {
        guard let text = request.parameter("batch") else {
            return render(.failure(GraphFailure(code: 100, message: "(#100) The parameter batch is required")))
        }
        guard case .success(let value) = JSONValue.parse(Data(text.utf8)), let items = value.arrayValue else {
            return render(.failure(GraphFailure(code: 100, message: "(#100) The parameter batch must be a JSON array")))
        }
        guard items.count <= Self.maximumBatchSize else {
            return render(
                .failure(
                    GraphFailure(
                        code: 100, message: "(#100) Too many requests in batch message. Maximum batch size is 50",
                        type: "GraphBatchException")))
        }
        let includeHeaders = request.parameter("include_headers") != "false"
        var results: [JSONValue] = []
        for item in items {
            let method = HTTPRequest.Method(item["method"]?.stringValue?.uppercased() ?? "GET") ?? .get
            var target = item["relative_url"]?.stringValue ?? ""
            if !target.hasPrefix("/") { target = "/" + target }
            var body = Data((item["body"]?.stringValue ?? "").utf8)
            let itemRequest0 = EmulatorRequest(method: method, target: target, baseURL: request.baseURL)
            if itemRequest0.parameter("access_token") == nil, let token = request.accessToken {
                let separator = body.isEmpty ? "" : "&"
                body.append(contentsOf: Array("\(separator)access_token=\(FormEncoding.escape(token))".utf8))
            }
            let itemRequest = EmulatorRequest(
                method: method, target: target, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: body, baseURL: request.baseURL)
            let response: EmulatorResponse
            switch EmulatorRoute.resolve(
                method: method.rawValue, segments: itemRequest.segments, hasIDs: itemRequest.parameter("ids") != nil)
            {
            case .graph(let version, let route) where route != .batch:
                response = handleGraph(itemRequest, version: version, route: route)
            default:
                response = render(.failure(GraphFailure(code: 2500, message: "Unknown path components: \(target)")))
            }
            var members: [(String, JSONValue?)] = [
                ("code", .int(response.status.code)), ("body", .string(String(decoding: response.body, as: UTF8.self))),
            ]
            if includeHeaders {
                members.append(
                    (
                        "headers",
                        .array(
                            response.headers.map {
                                .object(["name": .string($0.name.canonicalName), "value": .string($0.value)])
                            })
                    ))
            }
            results.append(.object(members))
        }
        return render(.success(.array(results)))
    }
}
