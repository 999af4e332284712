import Foundation
import Hummingbird
import MendCore
import NIOCore

/// Reading request bodies within the configured size limit.
enum RequestBody {
    /// Reads and validates a body against `schema`: a JSON object (by `Content-Type`, or a body that starts with `{`)
    /// or, where the schema allows it, a form (the first of a repeated field wins). An empty body is `{}` when the
    /// schema does not require one. Throws rest/400 naming what is wrong.
    static func read(
        _ schema: RequestSchema, from request: Request, limit: Int
    ) async throws -> RequestSchema.Values {
        let buffer = try await request.body.collect(upTo: limit)
        let data = Data(buffer.readableBytesView)
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.isEmpty {
            guard !schema.bodyRequired else { throw ServerFailure.badRequest("A request body is required.") }
            return try schema.validate([:])
        }
        let declaredJSON = request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true
        if declaredJSON || trimmed.hasPrefix("{") || !schema.encodings.contains(.form) {
            guard schema.encodings.contains(.json), case .success(let value) = JSONValue.parse(data),
                let object = value.objectValue
            else {
                throw ServerFailure.badRequest(
                    "The body must be \(schema.encodings.contains(.form) ? "a form or " : "")a JSON object.")
            }
            return try schema.validate(object)
        }
        var fields: [String: JSONValue] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = .string(parts.count == 2 ? decode(parts[1]) : "") }
        }
        return try schema.validate(fields)
    }

    private static func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}
