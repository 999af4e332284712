// The error spaces every client speaks: HTTP statuses (RFC 9110) and Mend's transport failures.

extension ErrorSpace {
    /// Plain HTTP statuses from an API without a decodable error body (RFC 9110).
    // swift-format-ignore
    public static let http = ErrorSpace(domain: .http, entries: [
        .row(.http, nil, "unexpectedStatus", .other, .contactSupport, .generic, "An HTTP status that is not an error class Mend knows."),
        .row(.http, 400, "badRequest", .other, .changeRequest, .generic, "400 Bad Request, and any 4xx without an entry of its own."),
        .row(.http, 401, "unauthorized", .recoverable, .reauthenticate, .sessionExpired, "401 Unauthorized: re-authenticate, then replay."),
        .row(.http, 403, "forbidden", .other, .none, .accessDenied, "403 Forbidden."),
        .row(.http, 404, "notFound", .other, .none, .notFound, "404 Not Found."),
        .row(.http, 405, "methodNotAllowed", .other, .changeRequest, .generic, "405 Method Not Allowed."),
        .row(.http, 408, "requestTimeout", .transient, .retry, .timedOut, "408 Request Timeout: retry with backoff."),
        .row(.http, 409, "conflict", .recoverable, .reloadAndRetry, .updateConflict, "409 Conflict: reload the resource and apply the change again."),
        .row(.http, 410, "gone", .other, .none, .notFound, "410 Gone."),
        .row(.http, 413, "contentTooLarge", .other, .changeRequest, .invalidInput, "413 Content Too Large."),
        .row(.http, 422, "unprocessableContent", .other, .changeRequest, .invalidInput, "422 Unprocessable Content."),
        .row(.http, 425, "tooEarly", .transient, .retry, .serviceUnavailable, "425 Too Early: retry."),
        .row(.http, 429, "tooManyRequests", .transient, .waitForRateLimit, .rateLimited, "429 Too Many Requests: wait (Retry-After), then retry."),
        .row(.http, 500, "internalServerError", .transient, .retry, .serviceUnavailable, "500 Internal Server Error, and any 5xx without an entry of its own."),
        .row(.http, 501, "notImplemented", .other, .contactSupport, .generic, "501 Not Implemented."),
        .row(.http, 502, "badGateway", .transient, .retry, .serviceUnavailable, "502 Bad Gateway: retry with backoff."),
        .row(.http, 503, "serviceUnavailable", .transient, .retry, .serviceUnavailable, "503 Service Unavailable: retry (Retry-After)."),
        .row(.http, 504, "gatewayTimeout", .transient, .retry, .timedOut, "504 Gateway Timeout: retry with backoff."),
    ])

    /// Failures before or below HTTP: offline, timeout, TLS, DNS, malformed or oversized responses.
    // swift-format-ignore
    public static let transport = ErrorSpace(domain: .transport, entries: [
        .row(.transport, nil, "transportFailure", .transient, .retry, .serverUnreachable, "A transport failure without a code of its own."),
        .row(.transport, 1, "notConnected", .transient, .checkNetwork, .offline, "The device is offline."),
        .row(.transport, 2, "timedOut", .transient, .retry, .timedOut, "The request timed out, or its deadline passed."),
        .row(.transport, 3, "secureConnectionFailed", .other, .checkNetwork, .secureConnectionFailed, "TLS failed: the secure connection could not be established or verified."),
        .row(.transport, 4, "cannotFindHost", .transient, .checkNetwork, .serverUnreachable, "DNS failed: the host could not be found."),
        .row(.transport, 5, "connectionLost", .transient, .retry, .connectionLost, "The connection was lost mid-request."),
        .row(.transport, 6, "cancelled", .other, .none, .cancelled, "The transport was cancelled by something other than the caller's task."),
        .row(.transport, 7, "malformedResponse", .transient, .retry, .unreadableResponse, "The body was invalid or truncated JSON."),
        .row(.transport, 8, "nonJSONBody", .transient, .retry, .unreadableResponse, "The body was not JSON (HTML, text) where JSON was expected."),
        .row(.transport, 9, "responseTooLarge", .other, .contactSupport, .unreadableResponse, "The body exceeded the configured size limit and was not read further."),
        .row(.transport, 10, "emptyResponse", .transient, .retry, .unreadableResponse, "The body was empty where content was expected."),
        .row(.transport, 11, "invalidRequest", .other, .changeRequest, .generic, "The request could not be built (an invalid URL, an unencodable body)."),
        .row(.transport, 12, "cannotConnect", .transient, .retry, .serverUnreachable, "The server refused the connection."),
        .row(.transport, 13, "replayMismatch", .other, .fixConfiguration, .generic, "A replayed recording has no answer for the request; the message names the closest recorded request and how it differs."),
        .row(.transport, 14, "recordingRefused", .other, .fixConfiguration, .generic, "The recording was not written: a secret survived redaction (the message says where), or the file cannot be read or written."),
        .row(.transport, 15, "cacheReadFailed", .other, .fixConfiguration, .generic, "The response store could not be read (file I/O failed): its folder's permissions or disk need fixing."),
        .row(.transport, 16, "invalidCacheData", .transient, .retry, .unreadableResponse, "A stored answer no longer decodes (truncated, another version's, or not this user's): it was dropped; fetch again.", autoRetry: false),
        .row(.transport, 17, "notCached", .other, .none, .generic, "Only stored answers were asked for, and none is stored for the request."),
    ])
}

extension ErrorCatalog {
    /// The rows every client speaks: ``ErrorSpace/transport`` and ``ErrorSpace/http``. Each client module offers a
    /// catalog with its own spaces added (MendGraphAPI's `ErrorCatalog.graph`, MendLogin's `ErrorCatalog.login`, …),
    /// and a client's configuration holds the catalog it classifies with.
    public static let core = ErrorCatalog(spaces: [.transport, .http])
}
