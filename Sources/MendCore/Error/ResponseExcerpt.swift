public import Foundation

/// A bounded, redacted copy of the HTTP response behind an error: safe to log, store and show to developers.
public struct ResponseExcerpt: Sendable, Hashable {
    /// The default bound of ``body`` in characters.
    public static let defaultBodyLimit = 2048

    /// The headers an excerpt keeps (others are dropped): the ones that explain errors and rate limits.
    static let keptHeaders: Set<String> = [
        "content-type", "retry-after", "www-authenticate", "x-fb-trace-id", "x-fb-request-id",
        "facebook-api-version", "x-app-usage", "x-ad-account-usage", "x-business-use-case-usage", "x-request-id",
        "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "date", "dpop-nonce",
    ]

    /// The HTTP status.
    public var status: Int?
    /// Selected headers (content type, `Retry-After`, `WWW-Authenticate`, trace, request-id, usage and rate-limit
    /// headers, `Date`, `DPoP-Nonce`), lower-cased names, sensitive values redacted.
    public var headers: [String: String]
    /// The start of the body as text, redacted, at most ``defaultBodyLimit`` characters unless set otherwise.
    public var body: String?
    /// Whether ``body`` was cut.
    package var isBodyTruncated: Bool
    /// The size of the whole body in bytes, as received.
    package var bodyByteCount: Int
    /// The parsed JSON body (redacted), when the body was JSON.
    public var json: JSONValue?

    /// Creates an excerpt holding only a status (or nothing).
    package init(status: Int?) {
        self.status = status
        self.headers = [:]
        self.body = nil
        self.isBodyTruncated = false
        self.bodyByteCount = 0
        self.json = nil
    }

    /// Creates an excerpt from a response, redacting and bounding everything it keeps.
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - headers: The response headers as name/value pairs.
    ///   - body: The body bytes (only the first `bodyLimit * 4` bytes are read).
    ///   - json: The body already parsed, if the caller parsed it; it is redacted here.
    ///   - redactor: The redactor, carrying the request's own secrets.
    ///   - bodyLimit: The bound of ``body`` in characters.
    package init(
        status: Int?,
        headers: [(name: String, value: String)],
        body: Data,
        json: JSONValue? = nil,
        redactor: Redactor = .standard,
        bodyLimit: Int = defaultBodyLimit
    ) {
        self.status = status
        var kept: [String: String] = [:]
        for (name, value) in headers {
            let lowered = name.lowercased()
            guard Self.keptHeaders.contains(lowered) else { continue }
            let redacted = redactor.redact(headerName: lowered, value: String(value.prefix(bodyLimit)))
            kept[lowered] = kept[lowered].map { "\($0), \(redacted)" } ?? redacted
        }
        self.headers = kept
        self.bodyByteCount = body.count
        self.json = json.map { redactor.redact(json: $0) }
        if body.isEmpty {
            self.body = nil
            self.isBodyTruncated = false
        } else {
            // Redact a generous prefix first, then cut, so a cut never leaves half a secret behind.
            let prefix = body.prefix(max(bodyLimit, 1) * 4)
            let text = redactor.redact(text: String(decoding: prefix, as: UTF8.self))
            self.body = String(text.prefix(bodyLimit))
            self.isBodyTruncated = text.count > bodyLimit || body.count > prefix.count
        }
    }
}
