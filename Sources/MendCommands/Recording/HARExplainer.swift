public import Foundation
public import MendCore
public import MendRecording

/// Explains the failed exchanges of a HAR — from a browser, a proxy or a Mend recording — in order.
///
/// An exchange failed when its status is 400 or more, when it got no response (status 0: a transport failure, with
/// Chromium's `_error` naming it), or when a 200 carries GraphQL errors. A Mend recording's `_mend` field is used as
/// it is; anything else is classified by ``Explainer``, as `mend explain` would.
public struct HARExplainer: Sendable {
    /// One failed exchange.
    public struct Failure: Sendable {
        /// Its position among the HAR's entries (0-based).
        public var index: Int
        /// The request's method.
        public var method: String
        /// The request's URL, redacted.
        public var url: String
        /// The response's status (0: none).
        public var status: Int
        /// The error it became.
        public var error: MendError
    }

    /// Classifies the bodies.
    public var explainer: Explainer

    /// An explainer with `explainer`'s settings.
    public init(explainer: Explainer = Explainer()) {
        self.explainer = explainer
    }

    /// The failed exchanges of `document`, in order.
    public func failures(in document: HARDocument) -> [Failure] {
        document.entries.enumerated().compactMap { index, entry in
            let status = entry.response.status
            let url = Redactor.standard.redact(text: entry.request.url)
            guard let error = error(of: entry, status: status) else { return nil }
            return Failure(index: index, method: entry.request.method, url: url, status: status, error: error)
        }
    }

    private func error(of entry: HAREntry, status: Int) -> MendError? {
        if let recorded = entry.mend?.error, !recorded.domain.isEmpty {
            var error = MendError(
                code: MendError.Code(MendError.Domain(rawValue: recorded.domain), recorded.code),
                subcode: recorded.subcode.map { MendError.Subcode(rawValue: $0) },
                developerMessage: recorded.message, catalog: explainer.catalog)
            error.referenceID = recorded.referenceID ?? Self.referenceID(entry)
            return error
        }
        if status == 0 {
            // No response: a transport failure, named by Chromium's `_error` when it gives one.
            let reason = entry.browserError ?? ""
            if reason.contains("ERR_ABORTED") { return nil }
            return MendError(
                code: Self.transportCode(reason),
                developerMessage: reason.isEmpty
                    ? "The request got no response." : "The request got no response: \(reason).",
                catalog: explainer.catalog)
        }
        let body = entry.response.content.bytes.map { Data($0) } ?? Data()
        let headers = entry.response.headers.map { (name: $0.name, value: $0.value) }
        if status < 400 {
            // A success, unless it is a GraphQL answer with errors.
            guard case .success(let json) = JSONValue.parse(body), json["errors"]?.arrayValue?.isEmpty == false
            else { return nil }
            return try? explainer.explain(.init(body: body, status: status, headers: headers, kind: .graphql)).error
        }
        return (try? explainer.explain(.init(body: body, status: status, headers: headers, kind: .auto)))?.error
            ?? (try? explainer.explain(.init(body: body, status: status, headers: headers, kind: .http)))?.error
    }

    /// The reference id a response carries in a header (`x-fb-trace-id`, `X-Request-Id`).
    static func referenceID(_ entry: HAREntry) -> String? {
        ["x-fb-trace-id", "x-request-id", "x-fb-request-id"].lazy.compactMap { entry.response.header($0) }.first
    }

    /// A transport code for Chromium's `net::ERR_…` names.
    static func transportCode(_ reason: String) -> MendError.Code {
        let table: [(String, MendError.Code)] = [
            ("ERR_INTERNET_DISCONNECTED", .Transport.notConnected), ("ERR_NETWORK_CHANGED", .Transport.connectionLost),
            ("TIMED_OUT", .Transport.timedOut), ("ERR_NAME_NOT_RESOLVED", .Transport.cannotFindHost),
            ("ERR_CONNECTION_REFUSED", .Transport.cannotConnect), ("ERR_CONNECTION_RESET", .Transport.connectionLost),
            ("ERR_CONNECTION_CLOSED", .Transport.connectionLost), ("ERR_EMPTY_RESPONSE", .Transport.emptyResponse),
            ("ERR_CERT_", .Transport.secureConnectionFailed), ("ERR_SSL_", .Transport.secureConnectionFailed),
        ]
        return table.first { reason.contains($0.0) }?.1 ?? MendError.Code(.transport, 0)
    }
}
