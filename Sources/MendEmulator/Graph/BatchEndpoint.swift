import Foundation
import HTTPTypes
import MendCore

/// The Graph API's batch requests: each item runs through the Graph surface as its own request.
enum BatchEndpoint {
    /// The most requests one batch may hold.
    static let maximumBatchSize = 50

    /// `POST /` with `batch=[{"method", "relative_url", "body", "name", "omit_response_on_success"}, …]`: each item
    /// runs as its own request and answers with its status, headers and body (as a string). A later item may use an
    /// earlier named item's result, `{result=name:$.data.0.id}`; a named item's response is omitted (`null`) when it
    /// succeeds, unless `omit_response_on_success` is false.
    static func run(_ request: EmulatorRequest, state: inout EmulatorState) -> EmulatorResponse {
        guard let text = request.parameter("batch") else {
            return state.context.render(
                .failure(GraphFailure(code: 100, message: "(#100) The parameter batch is required")))
        }
        guard case .success(let value) = JSONValue.parse(Data(text.utf8)), let items = value.arrayValue else {
            return state.context.render(
                .failure(GraphFailure(code: 100, message: "(#100) The parameter batch must be a JSON array")))
        }
        guard items.count <= Self.maximumBatchSize else {
            return state.context.render(
                .failure(
                    GraphFailure(
                        code: 100, message: "(#100) Too many requests in batch message. Maximum batch size is 50",
                        type: "GraphBatchException")))
        }
        let includeHeaders = request.parameter("include_headers") != "false"
        var results: [JSONValue] = []
        var named: [String: JSONValue] = [:]
        for item in items {
            let method = HTTPRequest.Method(item["method"]?.stringValue?.uppercased() ?? "GET") ?? .get
            guard var target = Self.resolveReferences(item["relative_url"]?.stringValue ?? "", named),
                let bodyText = Self.resolveReferences(item["body"]?.stringValue ?? "", named)
            else {
                let failed = state.context.render(
                    .failure(GraphFailure(code: 100, message: "(#100) A result this request depends on is missing")))
                results.append(
                    .object([
                        ("code", .int(failed.status.code)),
                        ("body", .string(String(decoding: failed.body, as: UTF8.self))),
                    ]))
                continue
            }
            if !target.hasPrefix("/") { target = "/" + target }
            var body = Data(bodyText.utf8)
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
                response = state.handleGraph(itemRequest, version: version, route: route)
            default:
                response = state.context.render(
                    .failure(GraphFailure(code: 2500, message: "Unknown path components: \(target)")))
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
            if let name = item["name"]?.stringValue {
                named[name] = (try? JSONValue.parse(response.body, duplicateMembers: .lastWins).get()) ?? .null
                if response.status.code < 300, item["omit_response_on_success"]?.boolValue ?? true {
                    results.append(.null)
                    continue
                }
            }
            results.append(.object(members))
        }
        return state.context.render(.success(.array(results)))
    }

    /// Replaces each `{result=name:$.path.to.value}` in `text` with the value at that path of the named result;
    /// `nil` when a referenced result or value is missing.
    static func resolveReferences(_ text: String, _ named: [String: JSONValue]) -> String? {
        var output = ""
        var rest = Substring(text)
        while let start = rest.range(of: "{result=") {
            output += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else { return nil }
            let reference = rest[start.upperBound..<end]
            rest = rest[rest.index(after: end)...]
            let parts = reference.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, var value = named[String(parts[0])], parts[1].hasPrefix("$") else { return nil }
            for step in parts[1].dropFirst().split(separator: ".") {
                if let index = Int(step), let array = value.arrayValue {
                    guard index < array.count else { return nil }
                    value = array[index]
                } else if let next = value[String(step)] {
                    value = next
                } else {
                    return nil
                }
            }
            output += value.stringValue ?? value.intValue.map(String.init) ?? value.jsonText()
        }
        return output + rest
    }
}
