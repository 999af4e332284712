extension MendError {
    /// An error code within a ``Domain``. An open set: compare codes, never switch exhaustively over them.
    ///
    /// Codes are grouped by domain, each in the module that speaks it: `.HTTP.serviceUnavailable` and
    /// `.Transport.timedOut` here, `.Graph.accessTokenInvalid` in MendGraphAPI, `.REST.updateConflict` in MendHTTP,
    /// `.GraphQL.unauthenticated` in MendGraphQL, `.Login.passwordChanged` and `.Session.loggedOut` in MendLogin.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The domain the code belongs to.
        public var domain: Domain
        /// The numeric code: the provider's own where it has one (Graph 190, REST 409, login 302).
        public var rawValue: Int

        /// Creates a code in `domain`.
        public init(_ domain: Domain, _ rawValue: Int) {
            self.domain = domain
            self.rawValue = rawValue
        }

        /// `domain/rawValue`, such as `graph/190`.
        public var description: String { "\(domain.rawValue)/\(rawValue)" }
    }

    /// A provider's subcode (Graph `error_subcode`). An open set.
    public struct Subcode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        /// The numeric subcode.
        public var rawValue: Int
        /// Creates a subcode.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Creates a subcode from a literal.
        public init(integerLiteral value: Int) { self.rawValue = value }
        /// The number.
        public var description: String { String(rawValue) }
    }
}

extension MendError.Code {

    /// Plain HTTP statuses, for APIs whose error bodies say nothing more. 4xx and 5xx statuses without an entry
    /// of their own are classified as 400 and 500.
    public enum HTTP {
        /// 400 Bad Request (and any 4xx without an entry of its own).
        public static let badRequest = MendError.Code(.http, 400)
        /// 401 Unauthorized.
        public static let unauthorized = MendError.Code(.http, 401)
        /// 403 Forbidden.
        public static let forbidden = MendError.Code(.http, 403)
        /// 404 Not Found.
        public static let notFound = MendError.Code(.http, 404)
        /// 405 Method Not Allowed.
        public static let methodNotAllowed = MendError.Code(.http, 405)
        /// 408 Request Timeout.
        public static let requestTimeout = MendError.Code(.http, 408)
        /// 409 Conflict.
        public static let conflict = MendError.Code(.http, 409)
        /// 410 Gone.
        public static let gone = MendError.Code(.http, 410)
        /// 413 Content Too Large.
        public static let contentTooLarge = MendError.Code(.http, 413)
        /// 422 Unprocessable Content.
        public static let unprocessableContent = MendError.Code(.http, 422)
        /// 425 Too Early.
        public static let tooEarly = MendError.Code(.http, 425)
        /// 429 Too Many Requests.
        public static let tooManyRequests = MendError.Code(.http, 429)
        /// 500 Internal Server Error (and any 5xx without an entry of its own).
        public static let internalServerError = MendError.Code(.http, 500)
        /// 501 Not Implemented.
        public static let notImplemented = MendError.Code(.http, 501)
        /// 502 Bad Gateway.
        public static let badGateway = MendError.Code(.http, 502)
        /// 503 Service Unavailable.
        public static let serviceUnavailable = MendError.Code(.http, 503)
        /// 504 Gateway Timeout.
        public static let gatewayTimeout = MendError.Code(.http, 504)
    }

    /// Failures before or below HTTP, and responses that cannot be read.
    public enum Transport {
        /// 0: a failure of a type Mend does not know; the original is kept (as text) as the underlying error.
        public static let unclassified = MendError.Code(.transport, 0)
        /// The device is offline.
        public static let notConnected = MendError.Code(.transport, 1)
        /// The request timed out (or its deadline passed).
        public static let timedOut = MendError.Code(.transport, 2)
        /// TLS failed: the secure connection could not be established or verified.
        public static let secureConnectionFailed = MendError.Code(.transport, 3)
        /// DNS failed: the host could not be found.
        public static let cannotFindHost = MendError.Code(.transport, 4)
        /// The connection was lost (or dropped by the server) mid-request.
        public static let connectionLost = MendError.Code(.transport, 5)
        /// The transport was cancelled by something other than the caller's task (tasks throw `CancellationError`).
        public static let cancelled = MendError.Code(.transport, 6)
        /// The body claimed to be JSON but was invalid or truncated.
        public static let malformedResponse = MendError.Code(.transport, 7)
        /// The body was not JSON (HTML, plain text) where JSON was expected.
        public static let nonJSONBody = MendError.Code(.transport, 8)
        /// The body exceeded the configured size limit and was not read further.
        public static let responseTooLarge = MendError.Code(.transport, 9)
        /// The body was empty where content was expected.
        public static let emptyResponse = MendError.Code(.transport, 10)
        /// The request could not be built (an invalid URL, an unencodable body).
        public static let invalidRequest = MendError.Code(.transport, 11)
        /// The server refused the connection.
        public static let cannotConnect = MendError.Code(.transport, 12)
        /// A replayed recording (MendRecording) has no answer for the request: the developer message names the
        /// closest recorded request and how it differs.
        public static let replayMismatch = MendError.Code(.transport, 13)
        /// A recording (MendRecording) was not written: a token-shaped or high-entropy string survived redaction
        /// (the developer message says where), or the file could not be read or written.
        public static let recordingRefused = MendError.Code(.transport, 14)
        /// A response store could not be read: file I/O failed (its folder's permissions, a full or failing disk).
        public static let cacheReadFailed = MendError.Code(.transport, 15)
        /// A stored answer no longer decodes (truncated, written by another version, or not this user's): the store
        /// dropped it; fetching again is not affected.
        public static let invalidCacheData = MendError.Code(.transport, 16)
        /// Only stored answers were asked for (GraphQL's `cacheOnly` policy), and none is stored for the request.
        public static let notCached = MendError.Code(.transport, 17)
    }
}
