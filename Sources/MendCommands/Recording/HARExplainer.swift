public import Foundation
public import MendCore
public import MendRecording

/// Explains the failed exchanges of a HAR — from a browser, a proxy or a Mend recording — in order.
///
/// An exchange failed when its status is 400 or more, when it got no response (status 0: a transport failure, with
/// Chromium's `_error` naming it), or when a 200 carries GraphQL errors. Each answer is classified by ``Explainer``, as
/// `mend explain` would; a Mend recording's `_mend` field is checked against that reading.
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
        /// The recording's `_mend` and this explainer's reading of the answer, when they name different errors
        /// (``error`` is then the reading for a status-only `_mend`, the `_mend` for any other); `nil` when they
        /// agree, when the entry has no `_mend`, or when there is no answer to read (status 0).
        public var disagreement: Disagreement?
    }

    /// Classifies the bodies.
    public var explainer: Explainer

    /// An explainer with `explainer`'s settings.
    public init(explainer: Explainer = Explainer()) {
        self.explainer = explainer
    }

    /// The failed exchanges of `document`, in order.
    ///
    /// A Mend recording's `_mend` is checked against this explainer's own reading of the answer (status 400 or
    /// more): when they name different errors, the failure says so (``Failure/disagreement``). The reading wins
    /// over a status-only `_mend` (`http/…`: a recorder that did not know the API); a `_mend` from any other decoder
    /// (an app's own) wins over the reading.
    public func failures(in document: HARDocument) -> [Failure] {
        document.entries.enumerated().compactMap { index, entry in
            let status = entry.response.status
            let url = Redactor.standard.redact(text: entry.request.url)
            let recorded = recorded(entry)
            let reading = recorded == nil || status >= 400 ? read(entry, status: status) : nil
            var disagreement: Disagreement?
            let error: MendError
            switch (recorded, reading) {
            case (let recorded?, let reading?) where !Self.sameError(recorded, reading):
                error = recorded.domain == .http ? reading : recorded
                disagreement = Disagreement(recorded: recorded, read: reading)
            case (let recorded?, _): error = recorded
            case (nil, let reading?): error = reading
            case (nil, nil): return nil
            }
            return Failure(
                index: index, method: entry.request.method, url: url, status: status, error: error,
                disagreement: disagreement)
        }
    }

    /// A recording's `_mend` and this explainer's reading of the same answer, when they differ.
    public struct Disagreement: Sendable {
        /// What the recording's `_mend` names.
        public var recorded: MendError
        /// What this explainer reads in the answer (what `mend explain` says of its body).
        public var read: MendError
    }

    private static func sameError(_ one: MendError, _ other: MendError) -> Bool {
        one.code == other.code && one.subcode == other.subcode
    }

    /// The error a Mend recording's `_mend` names.
    private func recorded(_ entry: HAREntry) -> MendError? {
        guard let recorded = entry.mend?.error, !recorded.domain.isEmpty else { return nil }
        var error = MendError(
            code: MendError.Code(MendError.Domain(rawValue: recorded.domain), recorded.code),
            subcode: recorded.subcode.map { MendError.Subcode(rawValue: $0) },
            developerMessage: recorded.message, catalog: explainer.catalog)
        error.referenceID = recorded.referenceID ?? Self.referenceID(entry)
        return error
    }

    /// This explainer's own reading of the entry's answer.
    private func read(_ entry: HAREntry, status: Int) -> MendError? {
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
            guard case .success(let json) = JSONValue.parse(body, duplicateMembers: .lastWins),
                json["errors"]?.arrayValue?.isEmpty == false
            else { return nil }
            return try? explainer.explain(.init(body: body, status: status, headers: headers, kind: .graphql)).error
        }
        return ExplainingErrorDecoder.read(explainer, body: body, status: status, headers: headers)
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
