public import Foundation
public import HTTPTypes
import Logging
public import MendCore

/// A successful response: its head, its whole body (within the size limit), and how many tries it took.
public struct APIResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body.
    public var body: Data
    /// How many times the request was sent, re-authentication replays included.
    public var attempts: Int
    /// Where the answer came from: the network, or a client's response store (``LastKnownGood``).
    public var source: Source
    /// Why the answer is stale and how old it is, when a stored answer stood in for a transient failure
    /// (``LastKnownGood``); `nil` for a network answer and a fresh stored one.
    public var staleness: Staleness?

    /// Where an answer came from.
    public enum Source: Sendable, Hashable {
        /// The server answered this request.
        case network
        /// A response store answered: a fresh entry (``LastKnownGood/Mode/httpCaching``), or a stale one standing
        /// in for a failure (``APIResponse/staleness``).
        case store
    }

    /// Creates a response.
    package init(head: HTTPResponse, body: Data, attempts: Int) {
        self.head = head
        self.body = body
        self.attempts = attempts
        self.source = .network
        self.staleness = nil
    }

    /// A response made from a stored answer.
    package init(stored answer: StoredAnswer, attempts: Int, staleness: Staleness?) {
        self.head = HTTPResponse(status: .init(code: answer.status), headerFields: answer.headerFields)
        self.body = answer.body
        self.attempts = attempts
        self.source = .store
        self.staleness = staleness
    }

    /// Decodes the body as JSON into `type`; a body that does not fit throws a classified `malformedResponse`.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(MendError) -> T {
        do {
            return try decoder.decode(type, from: body)
        } catch {
            var mendError = MendError(
                code: .Transport.malformedResponse,
                developerMessage: "The response body does not decode as \(T.self): \(Self.describe(error))",
                catalog: .core)
            mendError.response = ResponseExcerpt(
                status: head.status.code, headers: head.headerFields.map { ($0.name.canonicalName, $0.value) },
                body: body)
            mendError.underlying = DecodingFailure(description: Self.describe(error))
            mendError.attempts = attempts
            throw mendError
        }
    }

    /// The body parsed as JSON, or a classified error.
    public func json() throws(MendError) -> JSONValue {
        switch JSONValue.parse(body, maxBytes: .max, duplicateMembers: .lastWins) {
        case .success(let value): return value
        case .failure:
            var mendError = MendError(
                code: .Transport.malformedResponse, developerMessage: "The body is not JSON.", catalog: .core)
            mendError.attempts = attempts
            throw mendError
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return String(describing: error) }
        switch decodingError {
        case .keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)' at \(path(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath))"
        case .valueNotFound(let type, let context):
            return "null where \(type) was expected at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "invalid data at \(path(context.codingPath))"
        @unknown default:
            return "undecodable"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty
            ? "the top level"
            : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// A decoding failure's description, kept as the underlying error of a `malformedResponse`.
package struct DecodingFailure: Error, Sendable, CustomStringConvertible {
    /// What did not decode, and where.
    package var description: String
}
