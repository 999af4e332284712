/// A fault to inject into matching requests: what to match, what to do, and how often.
///
/// In JSON (the control API's `POST /_emulator/faults`), every key is optional but the action:
///
/// ```json
/// {"method": "GET", "path": "/me*", "userID": "100000000000001",
///  "error": "graph/190/460", "times": 1}
/// ```
///
/// `path` is compared with the request's path both with and without its version prefix (`/v25.0`); `*` matches
/// any run of characters. The action is ``Kind-swift.enum``; `error` alone implies ``Kind-swift.enum/error``.
public struct FaultRule: Sendable, Codable, Hashable {
    /// What the fault does.
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        /// Any catalog error, rendered as its API renders it (`graph/190/460`, `rest/409`, `graphql/1`,
        /// `http/503`, `transport/5`).
        case error
        /// A given status, body, content type and headers.
        case status
        /// A 200 (or `status`) whose body is invalid JSON.
        case malformedJSON
        /// The real response with its body cut in half (the `Content-Length` matches the cut body).
        case truncatedJSON
        /// An HTML error page, as a proxy sends (502 unless `status` says otherwise).
        case html
        /// An empty body (500 unless `status` says otherwise).
        case empty
        /// Only a delay (`delayMilliseconds`), then the real response.
        case delay
        /// The connection is closed without a response.
        case drop
        /// The real response's head and half of its body, then the connection is closed.
        case connectionLost
        /// A Graph edge request (`GET /me/feed`) that asks for more than ``FaultRule/payloadBudget`` — its `limit`
        /// (the emulator's default page of 25 without one) times the number of its `fields` (at least 1) — gets
        /// Graph's code 1 "Please reduce the amount of data you're asking for, then retry your request" with
        /// HTTP 500; a request within the budget, or to anything but an edge, gets the real response and is not
        /// counted as a hit.
        case payloadBudget
    }

    /// The id the emulator assigned.
    public var id: String?
    /// The method to match (`GET`), any when `nil`.
    public var method: String?
    /// The path pattern to match (`/me`, `/me/*`, `*feed*`), any when `nil`.
    public var path: String?
    /// The user whose token the request must carry, any when `nil`.
    public var userID: String?
    /// The app whose token (or `client_id`) the request must carry, any when `nil`.
    public var appID: String?
    /// What the fault does.
    public var kind: Kind
    /// The catalog error for ``Kind-swift.enum/error``: `domain/code[/subcode]`.
    public var error: String?
    /// A message that replaces the error's standard message.
    public var message: String?
    /// The status for ``Kind-swift.enum/status``, ``Kind-swift.enum/html``, ``Kind-swift.enum/empty`` and
    /// ``Kind-swift.enum/malformedJSON`` (and to override an error's status).
    public var status: Int?
    /// The body for ``Kind-swift.enum/status``.
    public var body: String?
    /// The content type for ``Kind-swift.enum/status``.
    public var contentType: String?
    /// Extra headers on the response.
    public var headers: [String: String]?
    /// A `Retry-After` header value (seconds or an HTTP date).
    public var retryAfter: String?
    /// The largest `limit` × number of `fields` a Graph edge request may ask for, for
    /// ``Kind-swift.enum/payloadBudget`` (at least 1).
    public var payloadBudget: Int?
    /// A delay before the response, in milliseconds (with any kind).
    public var delayMilliseconds: Int?
    /// How many matching requests the fault applies to; every one when `nil`.
    public var times: Int?
    /// The fraction of matching requests the fault applies to (drawn from the seeded generator); all when `nil`.
    public var probability: Double?
    /// How many requests the fault was applied to.
    public var hits: Int

    /// Creates a fault.
    public init(
        kind: Kind, error: String? = nil, method: String? = nil, path: String? = nil, userID: String? = nil,
        appID: String? = nil, message: String? = nil, status: Int? = nil, body: String? = nil,
        contentType: String? = nil, headers: [String: String]? = nil, retryAfter: String? = nil,
        delayMilliseconds: Int? = nil, times: Int? = nil, probability: Double? = nil
    ) {
        self.kind = kind
        self.error = error
        self.method = method
        self.path = path
        self.userID = userID
        self.appID = appID
        self.message = message
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
        self.retryAfter = retryAfter
        self.delayMilliseconds = delayMilliseconds
        self.times = times
        self.probability = probability
        self.hits = 0
    }

    /// A catalog error (`"graph/190/460"`) for matching requests.
    public static func error(
        _ error: String, method: String? = nil, path: String? = nil, userID: String? = nil, times: Int? = nil
    ) -> FaultRule {
        FaultRule(kind: .error, error: error, method: method, path: path, userID: userID, times: times)
    }

    /// A payload budget (``Kind-swift.enum/payloadBudget``): Graph edge requests that ask for more than `budget`
    /// (`limit` × number of `fields`) are told to ask for less.
    public static func payloadBudget(
        _ budget: Int, method: String? = nil, path: String? = nil, userID: String? = nil, times: Int? = nil
    ) -> FaultRule {
        var rule = FaultRule(kind: .payloadBudget, method: method, path: path, userID: userID, times: times)
        rule.payloadBudget = budget
        return rule
    }

    enum CodingKeys: String, CodingKey {
        case id, method, path, userID, appID, kind, error, message, status, body, contentType, headers, retryAfter
        case payloadBudget, delayMilliseconds, times, probability, hits
    }

    /// Decodes a fault; `kind` may be left out when `error` (an error), `payloadBudget` (a payload budget),
    /// `status` or `delayMilliseconds` is given.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let error = try container.decodeIfPresent(String.self, forKey: .error)
        let kind: Kind
        if let given = try container.decodeIfPresent(Kind.self, forKey: .kind) {
            kind = given
        } else if error != nil {
            kind = .error
        } else if try container.decodeIfPresent(Int.self, forKey: .payloadBudget) != nil {
            kind = .payloadBudget
        } else if try container.decodeIfPresent(Int.self, forKey: .status) != nil {
            kind = .status
        } else if try container.decodeIfPresent(Int.self, forKey: .delayMilliseconds) != nil {
            kind = .delay
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.kind, .init(codingPath: [], debugDescription: "a fault needs a kind or an error"))
        }
        self.init(
            kind: kind, error: error, method: try container.decodeIfPresent(String.self, forKey: .method),
            path: try container.decodeIfPresent(String.self, forKey: .path),
            userID: try container.decodeIfPresent(String.self, forKey: .userID),
            appID: try container.decodeIfPresent(String.self, forKey: .appID),
            message: try container.decodeIfPresent(String.self, forKey: .message),
            status: try container.decodeIfPresent(Int.self, forKey: .status),
            body: try container.decodeIfPresent(String.self, forKey: .body),
            contentType: try container.decodeIfPresent(String.self, forKey: .contentType),
            headers: try container.decodeIfPresent([String: String].self, forKey: .headers),
            retryAfter: try container.decodeIfPresent(String.self, forKey: .retryAfter),
            delayMilliseconds: try container.decodeIfPresent(Int.self, forKey: .delayMilliseconds),
            times: try container.decodeIfPresent(Int.self, forKey: .times),
            probability: try container.decodeIfPresent(Double.self, forKey: .probability))
        self.payloadBudget = try container.decodeIfPresent(Int.self, forKey: .payloadBudget)
        self.id = try container.decodeIfPresent(String.self, forKey: .id)
        self.hits = try container.decodeIfPresent(Int.self, forKey: .hits) ?? 0
    }

    /// Whether the fault has applications left.
    var isExhausted: Bool { times.map { hits >= $0 } ?? false }
}
