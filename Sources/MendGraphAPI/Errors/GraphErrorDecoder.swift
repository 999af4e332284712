public import Foundation
public import HTTPTypes
public import MendCore
public import MendHTTP

/// Decodes the Graph API's errors into classified `MendError`s.
///
/// - A body with the error envelope becomes a `MendError.Domain.graph` error, whatever the status: every
///   field is kept (message → developer message, `error_user_title`/`error_user_msg` → the user's title and
///   message, `fbtrace_id` → reference id, `is_transient` → transient), classified through the catalog (a row keyed
///   by a phrase matches the message or the user's title and message); permission
///   errors name the missing permissions; rate limits carry the wait (`Retry-After`, the business-use-case
///   `estimated_time_to_regain_access` in minutes, the ad account's `reset_time_duration` in seconds).
/// - A non-2xx without the envelope (an HTML 503, an empty 500) is an HTTP status error — never a success — with
///   the `x-fb-trace-id` header as reference id and the `WWW-Authenticate` text as developer message.
/// - A 2xx whose body is not JSON, is truncated or is too large is a transport error.
public struct GraphErrorDecoder: ErrorDecoder {
    /// The Graph space.
    public var errorSpaces: [ErrorSpace] { [.graph] }

    private let catalogOverride: (@Sendable () -> ErrorCatalog?)?
    /// Where the usage headers of every error response go, read once here (a Graph client's usage step's tracker).
    let usageSink: UsageTracker?

    /// Creates the decoder.
    ///
    /// - Parameter catalog: Supplies the catalog to classify with (the provider's merged error configuration),
    ///   or `nil` to use the context's.
    public init(catalog: (@Sendable () -> ErrorCatalog?)? = nil) {
        self.init(catalog: catalog, usageSink: nil)
    }

    init(catalog: (@Sendable () -> ErrorCatalog?)?, usageSink: UsageTracker?) {
        self.catalogOverride = catalog
        self.usageSink = usageSink
    }

    /// Returns the error that `response` and `body` carry, or `nil` for a success.
    public func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        var context = context
        if let catalog = catalogOverride?() { context.catalog = catalog }
        // A success is parsed only when it starts like the error envelope (or the legacy `error_code` shape).
        let mayCarryError =
            response.status.kind != .successful || JSONValue.startsWithMember("error", in: body)
            || JSONValue.startsWithMember("error_code", in: body)
        if mayCarryError {
            let decoded = DecodedBody(body, limit: context.maximumBodySize)
            if let json = decoded.json, let envelope = GraphErrorEnvelope(json: json) {
                let usage = usageSink.map { _ in GraphUsage(fields: response.headerFields, now: context.now) }
                usageSink?.record(usage ?? nil)
                return error(for: envelope, json: json, response: response, body: body, context: context, usage: usage)
            }
        }
        var fallbackContext = context
        fallbackContext.requestIDHeader = GraphAPI.traceIDHeader
        guard var error = HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: fallbackContext)
        else { return nil }
        usageSink?.record(GraphUsage(fields: response.headerFields, now: context.now))
        if error.referenceID == nil, let requestID = response.headerFields[GraphAPI.requestIDHeader] {
            error.referenceID = String(requestID.prefix(128))
        }
        if let authenticate = response.headerFields[.wwwAuthenticate] {
            error.developerMessage +=
                " — WWW-Authenticate: \(context.redactor.redact(text: String(authenticate.prefix(500))))"
        }
        return error
    }

    /// Builds the error for an envelope, as the decoder does, for callers that hold the parsed parts (batches).
    public func error(
        for envelope: GraphErrorEnvelope, json: JSONValue?, response: HTTPResponse, body: Data,
        context: ErrorDecodingContext
    ) -> MendError {
        self.error(
            for: envelope, json: json, response: response, body: body, context: context, usage: nil)
    }

    /// The error for an envelope; `usage` is the response's usage when it was read already.
    func error(
        for envelope: GraphErrorEnvelope, json: JSONValue?, response: HTTPResponse, body: Data,
        context: ErrorDecodingContext, usage: GraphUsage??
    ) -> MendError {
        let developerMessage = [envelope.type, envelope.message].compactMap { $0 }.joined(separator: ": ")
        // A row keyed by a phrase is looked for in the user's title and message too: Graph sometimes says "Please
        // reduce the amount of data you're asking for" only there.
        var error = MendError(
            code: MendError.Code(.graph, envelope.code),
            subcode: envelope.subcode.map(MendError.Subcode.init(rawValue:)),
            developerMessage: developerMessage.isEmpty ? nil : developerMessage,
            providerTexts: [envelope.userTitle, envelope.userMessage].compactMap { $0 },
            isTransient: envelope.isTransient,
            catalog: context.catalog)
        error.attach(response: response, body: body, json: json, context: context)
        error.serverUserTitle = envelope.userTitle
        error.serverUserMessage = envelope.userMessage
        error.referenceID = envelope.traceID ?? response.headerFields[GraphAPI.traceIDHeader] ?? error.referenceID
        if error.recovery.action == .requestPermissions { error.requestedPermissions = envelope.missingPermissions }
        if error.recovery.action == .waitForRateLimit || error.category == .transient,
            let delay = (usage ?? GraphUsage(fields: response.headerFields, now: context.now))?.regainAccessDelay
        {
            let usageWait = context.now.addingTimeInterval(min(delay, RetryAfter.maximumDelay))
            error.notBefore = max(error.notBefore ?? usageWait, usageWait)
        }
        return error
    }

    /// The latest time the usage headers ask to wait until, if they ask for a wait (``GraphUsage``'s reading).
    @_spi(MendFuzzing) public static func usageWait(in fields: HTTPFields, now: Date) -> Date? {
        GraphUsage(fields: fields, now: now)?.regainAccessDelay.map {
            now.addingTimeInterval(min($0, RetryAfter.maximumDelay))
        }
    }
}
