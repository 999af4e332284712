import Foundation
import GraphQL
import Graphiti
import HTTPTypes
import MendCore

/// `POST /graphql`: real execution over the emulator's users and posts, with partial data and spec-shaped errors
/// (`message`, `locations`, `path`, `extensions.code`).
struct GraphQLService: Sendable {
    private let api: EmulatorGraphQLAPI?

    init() {
        api = try? EmulatorGraphQLAPI()
    }

    func handle(_ request: EmulatorRequest, context: GraphQLContext) async -> EmulatorResponse {
        guard request.method == .post || request.method == .get else {
            return Self.errors(
                [Self.error("Use POST for GraphQL requests.", code: "BAD_REQUEST")], status: .methodNotAllowed)
        }
        guard let api else {
            return Self.errors(
                [Self.error("The schema failed to build.", code: "INTERNAL_SERVER_ERROR")], status: .internalServerError
            )
        }
        guard let body = Self.requestBody(request), let query = body.query else {
            return Self.errors([Self.error("The request has no query.", code: "BAD_REQUEST")], status: .badRequest)
        }
        do {
            let result = try await api.execute(
                request: query, context: context, variables: body.variables, operationName: body.operationName)
            // Validation errors carry no path and come without data; execution errors always have a path, and a
            // failure that bubbles to the root makes `data` null (it is never left out then).
            let isValidationFailure =
                result.data == nil && !result.errors.isEmpty && result.errors.allSatisfy { $0.path.elements.isEmpty }
            let errors = result.errors.map { error in
                Self.json(
                    for: error,
                    fallbackCode: isValidationFailure ? "GRAPHQL_VALIDATION_FAILED" : "INTERNAL_SERVER_ERROR")
            }
            var members: [(String, JSONValue?)] = [("errors", errors.isEmpty ? nil : .array(errors))]
            if let data = result.data {
                members.append(("data", Self.json(data)))
            } else if !isValidationFailure {
                members.append(("data", .null))
            }
            return .json(.object(members), status: isValidationFailure ? .badRequest : .ok)
        } catch let error as GraphQLError {
            return Self.errors([Self.json(for: error, fallbackCode: "GRAPHQL_PARSE_FAILED")], status: .badRequest)
        } catch {
            return Self.errors([Self.error("\(error)", code: "INTERNAL_SERVER_ERROR")], status: .internalServerError)
        }
    }

    struct Body {
        var query: String?
        var variables: [String: Map]
        var operationName: String?
    }

    static func requestBody(_ request: EmulatorRequest) -> Body? {
        if request.method == .get || !(request.headers[.contentType] ?? "").contains("json") {
            let variables = request.parameter("variables").flatMap {
                try? JSONDecoder().decode([String: Map].self, from: Data($0.utf8))
            }
            return Body(
                query: request.parameter("query"), variables: variables ?? [:],
                operationName: request.parameter("operationName"))
        }
        struct JSONBody: Decodable {
            var query: String?
            var variables: [String: Map]?
            var operationName: String?
        }
        guard let decoded = try? JSONDecoder().decode(JSONBody.self, from: request.body) else { return nil }
        return Body(query: decoded.query, variables: decoded.variables ?? [:], operationName: decoded.operationName)
    }

    static func json(for error: GraphQLError, fallbackCode: String) -> JSONValue {
        var extensions: [String: JSONValue] = [:]
        for (key, value) in error.extensions { extensions[key] = json(value) }
        if let failure = error.originalError as? GraphQLFieldFailure {
            extensions["code"] = .string(failure.code)
            for (key, value) in failure.extra { extensions[key] = .string(value) }
        }
        if extensions["code"] == nil { extensions["code"] = .string(fallbackCode) }
        let locations = error.locations.map { JSONValue.object(["line": .int($0.line), "column": .int($0.column)]) }
        let path: [JSONValue] = error.path.elements.map {
            switch $0 {
            case .index(let index): .int(index)
            case .key(let key): .string(key)
            }
        }
        return .object([
            ("message", .string(error.message)), ("locations", locations.isEmpty ? nil : .array(locations)),
            ("path", path.isEmpty ? nil : .array(path)), ("extensions", .object(extensions)),
        ])
    }

    static func error(_ message: String, code: String) -> JSONValue {
        .object(["message": .string(message), "extensions": .object(["code": .string(code)])])
    }

    static func errors(_ list: [JSONValue], status: HTTPResponse.Status) -> EmulatorResponse {
        .json(.object(["errors": .array(list)]), status: status)
    }

    static func json(_ map: Map) -> JSONValue {
        guard let data = try? JSONEncoder().encode(map), case .success(let value) = JSONValue.parse(data) else {
            return .null
        }
        return value
    }
}
