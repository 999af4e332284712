import Foundation
import MendCore

/// Cursor paging as the provider does it: `limit`, `before`/`after` cursors, and `next`/`previous` URLs.
struct Paging {
    var items: [JSONValue]
    var ids: [String]

    /// The page of `items` for the request's `limit`, `after` and `before`, with the `paging` object.
    static func page(
        items: [JSONValue], ids: [String], request: EmulatorRequest, path: String
    ) -> (data: [JSONValue], paging: JSONValue?) {
        let limit = limit(of: request)
        var start = 0
        var end = min(limit, items.count)
        if let after = request.parameter("after").flatMap(decode), let index = ids.firstIndex(of: after) {
            start = index + 1
            end = min(start + limit, items.count)
        } else if let before = request.parameter("before").flatMap(decode), let index = ids.firstIndex(of: before) {
            end = index
            start = max(0, end - limit)
        }
        guard start < end else { return ([], nil) }
        var paging: [(String, JSONValue?)] = [
            ("cursors", .object(["before": .string(encode(ids[start])), "after": .string(encode(ids[end - 1]))]))
        ]
        var query = request.query
        query.removeValue(forKey: "after")
        query.removeValue(forKey: "before")
        query["limit"] = String(limit)
        if end < items.count {
            var next = query
            next["after"] = encode(ids[end - 1])
            paging.append(("next", .string(url(request: request, path: path, query: next))))
        }
        if start > 0 {
            var previous = query
            previous["before"] = encode(ids[start])
            paging.append(("previous", .string(url(request: request, path: path, query: previous))))
        }
        return (Array(items[start..<end]), .object(paging))
    }

    /// The page size a request gets: its `limit` between 1 and 100, or 25 without one.
    static func limit(of request: EmulatorRequest) -> Int {
        min(max(Int(request.parameter("limit") ?? "") ?? 25, 1), 100)
    }

    static func url(request: EmulatorRequest, path: String, query: [String: String]) -> String {
        request.baseURL + path + "?" + FormEncoding.encode(query.sorted { $0.key < $1.key })
    }

    static func encode(_ id: String) -> String {
        Base64URL.encode(Data("cursor:\(id)".utf8))
    }

    static func decode(_ cursor: String) -> String? {
        guard let data = Base64URL.decode(cursor), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("cursor:")
        else { return nil }
        return String(text.dropFirst(7))
    }
}
