public import Foundation
public import HTTPTypes
import MendCore
public import MendHTTP

/// A transport that answers from a Swift closure, recording every request: for tests without sockets.
///
/// ```swift
/// let transport = InMemoryTransport { request, _ in .json(200, #"{"id":"1"}"#) }
/// let client = APIClient(transport: transport)
/// ```
public final class InMemoryTransport: HTTPTransport {
    /// What the closure answers.
    public enum Reply: Sendable {
        /// A response.
        case response(HTTPResponse, Data)
        /// A failure below HTTP (a transport `MendError`, or any error).
        case failure(any Error)

        /// A response with a JSON body.
        public static func json(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Reply {
            .response(Self.head(status, headers + [("Content-Type", "application/json")]), Data(body.utf8))
        }

        /// A response with an HTML body.
        public static func html(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Reply {
            .response(Self.head(status, headers + [("Content-Type", "text/html")]), Data(body.utf8))
        }

        /// A response with any body.
        public static func status(_ status: Int, body: Data = Data(), headers: [(String, String)] = []) -> Reply {
            .response(Self.head(status, headers), body)
        }

        static func head(_ status: Int, _ headers: [(String, String)]) -> HTTPResponse {
            var fields = HTTPFields()
            for (name, value) in headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            return HTTPResponse(status: .init(code: status), headerFields: fields)
        }
    }

    /// A request as the transport received it.
    public struct RecordedRequest: Sendable {
        /// The head.
        public var head: HTTPRequest
        /// The body.
        public var body: Data?
        /// The time the pipeline gave the exchange (`nil`: none).
        public var timeout: Duration?
    }

    private let handler: @Sendable (HTTPRequest, Data?) async throws -> Reply
    private let recorded = Locked<[RecordedRequest]>([])

    /// Creates a transport that answers with `handler`.
    public init(handler: @escaping @Sendable (HTTPRequest, Data?) async throws -> Reply) {
        self.handler = handler
    }

    /// Creates a transport that answers with `replies` in order, then repeats the last one.
    public convenience init(replies: [Reply]) {
        let index = Locked<Int>(0)
        self.init { _, _ in
            let position = index.withLock { index in
                defer { index += 1 }
                return index
            }
            return replies[min(position, replies.count - 1)]
        }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    /// How many requests were received.
    public var requestCount: Int { recorded.withLock { $0.count } }

    /// Sends `request` and returns the response head and its body.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, timeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody) {
        try Task.checkCancellation()
        let data: Data?
        if let body, case .complete(let bytes) = try await body.collect(upTo: .max) { data = bytes } else { data = nil }
        recorded.withLock { $0.append(RecordedRequest(head: request, body: data, timeout: timeout)) }
        switch try await handler(request, data) {
        case .response(let head, let bytes): return (head, HTTPBody(bytes))
        case .failure(let error): throw error
        }
    }
}
