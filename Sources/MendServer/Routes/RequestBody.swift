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

    private static func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}
