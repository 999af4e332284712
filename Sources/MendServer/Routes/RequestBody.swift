import Foundation
import Hummingbird
import NIOCore

/// Reading request bodies within the configured size limit.
enum RequestBody {
    static func json<T: Decodable>(
        _ type: T.Type, from request: Request, limit: Int, expecting fields: String
    ) async throws -> T {
        let buffer = try await request.body.collect(upTo: limit)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw ServerFailure.badRequest("The body must be a JSON object with \(fields).")
        }
    }

    /// An empty body reads as `{}`.
    static func optionalJSON<T: Decodable>(
        _ type: T.Type, from request: Request, limit: Int, expecting fields: String
    )
        async throws -> T
    {
        let buffer = try await request.body.collect(upTo: limit)
        let data = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer.readableBytesView)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ServerFailure.badRequest("The body must be a JSON object with \(fields).")
        }
    }

    /// A form field (`application/x-www-form-urlencoded`), or the same member of a JSON object.
    static func formField(_ name: String, from request: Request, limit: Int) async throws -> String? {
        let buffer = try await request.body.collect(upTo: limit)
        let text = String(buffer: buffer)
        if text.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        {
            return object[name] as? String
        }
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, decode(parts[0]) == name else { continue }
            return decode(parts[1])
        }
        return nil
    }

    /// The fields of a form (`application/x-www-form-urlencoded`) or the string members of a JSON object (by
    /// `Content-Type`, or a body that starts with `{`); the first of a repeated form field wins. A JSON body that is
    /// not an object is refused with rest/400.
    static func fields(from request: Request, limit: Int, expecting fields: String) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: limit)
        let text = String(buffer: buffer)
        let isJSON =
            request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true
            || text.drop { $0.isWhitespace }.hasPrefix("{")
        if isJSON {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw ServerFailure.badRequest("The body must be a form or a JSON object with \(fields).")
            }
            return object.compactMapValues { $0 as? String }
        }
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            if values[name] == nil { values[name] = parts.count == 2 ? decode(parts[1]) : "" }
        }
        return values
    }

    private static func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}
