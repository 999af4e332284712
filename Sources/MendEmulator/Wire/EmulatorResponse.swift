public import Foundation
public import HTTPTypes
public import MendCore

/// A response as the emulator's handlers produce it, plus what the transport should do with it (faults).
public struct EmulatorResponse: Sendable {
    /// What happens on the connection.
    public enum Delivery: Sendable, Hashable {
        /// Send the response.
        case normal
        /// Close the connection without sending anything.
        case drop
        /// Send the head and the first `bytes` of the body (with the full `Content-Length`), then close.
        case cutAfter(bytes: Int)
    }

    /// The status.
    public var status: HTTPResponse.Status
    /// The headers.
    public var headers: HTTPFields
    /// The body.
    public var body: Data
    /// What happens on the connection.
    public var delivery: Delivery
    /// How long to wait before answering.
    public var delay: Duration?

    /// Creates a response.
    public init(
        status: HTTPResponse.Status, headers: HTTPFields = [:], body: Data = Data(), delivery: Delivery = .normal,
        delay: Duration? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delivery = delivery
        self.delay = delay
    }

    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Self {
        var fields = headers
        fields[.contentType] = "application/json; charset=UTF-8"
        return EmulatorResponse(status: status, headers: fields, body: Data(value.jsonText().utf8))
    }

    /// An HTML page.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Self {
        EmulatorResponse(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: Data(text.utf8))
    }

    /// A redirect (302 Found).
    static func redirect(to location: String) -> Self {
        EmulatorResponse(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// The body parsed as JSON, if it is JSON.
    public var json: JSONValue? {
        if case .success(let value) = JSONValue.parse(body) { return value }
        return nil
    }
}

extension JSONValue {
    /// Builds an object from pairs, skipping `nil` values.
    static func object(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for (key, value) in pairs { if let value { members[key] = value } }
        return .object(members)
    }

    /// A JSON value from an optional string.
    static func string(_ text: String?) -> JSONValue? { text.map(JSONValue.string) }
}
