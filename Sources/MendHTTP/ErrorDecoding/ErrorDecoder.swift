public import Foundation
public import HTTPTypes
public import MendCore

/// Turns an HTTP response into the `MendError` it carries, classified through the catalog.
///
/// Each API has its own decoder: the Graph envelope (MendGraphAPI), GraphQL `errors` (MendGraphQL), the REST status
/// error space (``RESTErrorDecoder``), and ``HTTPStatusErrorDecoder`` for APIs whose error bodies say nothing more.
/// A decoder never calls a 5xx a success, and never lets an HTML, empty, truncated or oversized body through.
public protocol ErrorDecoder: Sendable {
    /// Returns the error that `response` and `body` carry, or `nil` when the response is a success.
    func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError?

    /// The error spaces whose rows this decoder produces. A client adds them to its configured catalog when the
    /// catalog lacks their domains (`catalog`).
    var errorSpaces: [ErrorSpace] { get }
}

extension ErrorDecoder {
    /// No spaces beyond MendCore's HTTP and transport spaces.
    public var errorSpaces: [ErrorSpace] { [] }
}

extension ErrorCatalog {
    /// This catalog with each of `spaces` added whose domain it has no rows for.
    package func addingMissing(_ spaces: [ErrorSpace]) -> ErrorCatalog {
        spaces.reduce(self) { catalog, space in catalog.domains.contains(space.domain) ? catalog : catalog.adding(space)
        }
    }
}

/// What a decoder needs besides the response.
public struct ErrorDecodingContext: Sendable {
    /// The catalog that classifies errors.
    public var catalog: ErrorCatalog
    /// The redactor, carrying the request's own secrets (its token).
    public var redactor: Redactor {
        get { requestSecret.map { baseRedactor.adding(secrets: [$0]) } ?? baseRedactor }
        set {
            baseRedactor = newValue
            requestSecret = nil
        }
    }
    private var baseRedactor: Redactor
    /// The request's own secret (its token), added to ``redactor`` only when an error is redacted: a success never
    /// pays for it.
    var requestSecret: String?
    /// Whether a success must carry a JSON body (an API client's default) or may carry anything.
    package var expectsJSON: Bool
    /// Bodies larger than this are refused with `responseTooLarge` instead of being parsed.
    public var maximumBodySize: Int
    /// The header that carries the request id when the body has none (`X-Request-Id` by default).
    package var requestIDHeader: HTTPField.Name
    /// The current time, for `Retry-After` dates.
    package var now: Date

    /// Creates a context.
    public init(
        catalog: ErrorCatalog,
        redactor: Redactor = .standard,
        expectsJSON: Bool = true,
        maximumBodySize: Int = 10 << 20,
        requestIDHeader: HTTPField.Name = .requestID,
        now: Date = Date()
    ) {
        self.catalog = catalog
        self.baseRedactor = redactor
        self.requestSecret = nil
        self.expectsJSON = expectsJSON
        self.maximumBodySize = maximumBodySize
        self.requestIDHeader = requestIDHeader
        self.now = now
    }
}

/// The body of a response as an error decoder sees it.
package enum DecodedBody: Sendable {
    /// No bytes.
    case empty
    /// Valid JSON.
    case json(JSONValue)
    /// JSON whose structure was checked, but which was not parsed (success bodies).
    case validJSON
    /// Not JSON (HTML, text); `looksLikeHTML` tells an HTML page apart.
    case notJSON(looksLikeHTML: Bool)
    /// JSON that is invalid or cut off.
    case malformed
    /// Larger than the limit.
    case tooLarge(limit: Int)

    /// Classifies `body` within `limit` bytes.
    package init(_ body: Data, limit: Int) {
        switch JSONValue.parse(body, maxBytes: limit, duplicateMembers: .lastWins) {
        case .success(let value): self = .json(value)
        case .failure(.empty): self = .empty
        case .failure(.tooLarge(let limit)): self = .tooLarge(limit: limit)
        case .failure(.notJSON):
            let start = String(decoding: body.prefix(512), as: UTF8.self).lowercased()
            self = .notJSON(
                looksLikeHTML: start.contains("<html") || start.contains("<!doctype") || start.contains("<body"))
        case .failure(.malformed), .failure(.truncated), .failure(.duplicateMember), .failure(.tooDeep):
            self = .malformed
        }
    }

    /// Classifies a success body within `limit` bytes by checking its structure only, without parsing it.
    package init(validating body: Data, limit: Int) {
        switch JSONValue.validateStructure(body, maxBytes: limit) {
        case nil: self = .validJSON
        case .empty: self = .empty
        case .tooLarge(let limit): self = .tooLarge(limit: limit)
        case .notJSON:
            let start = String(decoding: body.prefix(512), as: UTF8.self).lowercased()
            self = .notJSON(
                looksLikeHTML: start.contains("<html") || start.contains("<!doctype") || start.contains("<body"))
        case .malformed, .truncated, .duplicateMember, .tooDeep: self = .malformed
        }
    }

    /// Whether the body is (structurally) valid JSON.
    package var isJSON: Bool {
        switch self {
        case .json, .validJSON: true
        default: false
        }
    }

    /// The JSON value, if the body was JSON.
    package var json: JSONValue? {
        if case .json(let value) = self { return value }
        return nil
    }
}
