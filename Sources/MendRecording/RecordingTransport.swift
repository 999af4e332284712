public import Foundation
public import HTTPTypes
public import MendCore
public import MendHTTP

/// When a ``RecordingTransport`` records and when it replays (Ruby VCR's modes).
public enum RecordMode: String, Sendable, CaseIterable {
    /// Record when the file does not exist yet; replay it, and only it, when it does.
    case once
    /// Replay what the file has; record (and append) every request it has no answer for.
    case newEpisodes
    /// Replay only: a request the file has no answer for is `transport/13`.
    case none
    /// Record everything, replacing the file.
    case all
}

/// A transport that records the exchanges of the transport it wraps into a HAR 1.2 file, every secret redacted into
/// a stable placeholder, and — as its ``RecordMode`` says — replays them.
///
/// Each exchange is written as soon as it completes (a crash loses nothing), after the fail-closed scan: a
/// token-shaped or high-entropy string that survived redaction, or any secret the redaction replaced (raw,
/// base64 or URL-encoded), stops the write with `transport/14` naming where it sits, and the request fails with it.
/// A transport failure is recorded with the Mend error it became (`_mend`), and replayed as the same error; an HTTP
/// error is recorded with the error `errorDecoder` makes of it, so that `mend explain --har` needs no
/// re-classification.
///
/// ```swift
/// let transport = try RecordingTransport(
///     wrapping: AsyncHTTPClientTransport(), file: URL(filePath: "Fixtures/login.har"), mode: .once)
/// let client = APIClient(transport: transport)
/// ```
///
/// Replayed responses carry placeholders where the recording had secrets (`<mend:access_token:1>`): a client that
/// sends a token it got from a replayed answer sends its placeholder, which matches. A request answered live in
/// ``RecordMode/newEpisodes`` reaches the real service with whatever placeholder it carries.
public final class RecordingTransport: HTTPTransport, Sendable {
    /// The recording as written so far.
    private let document: Locked<HARDocument>
    private let upstream: any HTTPTransport
    private let cassette: Cassette
    private let records: Bool
    private let replays: Bool
    private let redactor: ExchangeRedactor
    private let errorDecoder: any ErrorDecoder
    private let catalog: ErrorCatalog
    private let maximumBodySize: Int
    private let clock: PipelineClock

    /// The file the recording is written to.
    public let file: URL
    /// The mode, as decided from the one asked for and whether the file existed (``RecordMode/once`` becomes
    /// ``RecordMode/none`` or ``RecordMode/all``).
    public let effectiveMode: RecordMode

    /// Wraps `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The transport that reaches the service when recording.
    ///   - file: The HAR file.
    ///   - mode: When to record and when to replay.
    ///   - rules: What is redacted, and what the scan accepts.
    ///   - errorDecoder: How an HTTP error answer is classified for the recording's `_mend` field (the decoder
    ///     the client uses: `GraphErrorDecoder()`, `MendServiceErrorDecoder()`, …; by default by status).
    ///   - catalog: The catalog `errorDecoder` classifies with.
    ///   - maximumBodySize: The largest body recorded (and passed on); a larger one is `transport/9`.
    ///   - clock: The clock of the entries' times and timings, and of a replayed JWT's time claims.
    /// - Throws: `transport/14` when the file exists but cannot be read as a HAR, or a mode needs it and it is
    ///   missing.
    public init(
        wrapping upstream: any HTTPTransport, file: URL, mode: RecordMode = .once, rules: RedactionRules = .standard,
        errorDecoder: any ErrorDecoder = HTTPStatusErrorDecoder(), catalog: ErrorCatalog = .core,
        maximumBodySize: Int = 32 << 20, clock: PipelineClock = .system
    ) throws(MendError) {
        let existing = try Self.read(file, required: mode == .none)
        let effective: RecordMode =
            switch mode {
            case .once: existing == nil ? .all : .none
            default: mode
            }
        let document = effective == .all ? HARDocument() : existing ?? HARDocument()
        self.document = Locked(document)
        self.upstream = upstream
        self.file = file
        self.effectiveMode = effective
        self.records = effective != .none
        self.replays = effective != .all
        self.cassette = Cassette(entries: replays ? document.entries : [], rules: rules)
        self.redactor = ExchangeRedactor(
            rules: rules, placeholders: PlaceholderTable(continuing: document.json.jsonText()))
        self.errorDecoder = errorDecoder
        self.catalog = catalog.addingMissing(errorDecoder.errorSpaces)
        self.maximumBodySize = maximumBodySize
        self.clock = clock
    }

    /// Answers from the recording when the mode replays and it has an answer; else sends `request` upstream and
    /// records the exchange (redacted, scanned, written) before returning it.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, timeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody) {
        var requestBody: Data?
        if let body { requestBody = try await Self.collect(body, limit: maximumBodySize) }
        if replays {
            let key = RequestKey(
                method: request.method.rawValue, url: HARExchange.urlString(request), body: requestBody,
                mediaType: request.headerFields[.contentType], rules: redactor.rules)
            if let entry = cassette.take(
                key, url: HARExchange.urlString(request), body: requestBody,
                mediaType: request.headerFields[.contentType])
            {
                return try cassette.answer(entry, now: clock.now())
            }
            guard records else { throw cassette.mismatch(key) }
        }
        return try await record(request, body: requestBody, timeout: timeout)
    }

    private func record(
        _ request: HTTPRequest, body: Data?, timeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody) {
        let started = clock.now()
        func since(_ date: Date) -> Duration { .seconds(max(0, clock.now().timeIntervalSince(date))) }
        do {
            let (response, responseBody) = try await upstream.send(
                request, body: body.map { HTTPBody($0) }, timeout: timeout)
            let headed = clock.now()
            let waited = Duration.seconds(max(0, headed.timeIntervalSince(started)))
            let data = try await Self.collect(responseBody, limit: maximumBodySize)
            let failure =
                response.status.code >= 400
                ? errorDecoder.decodeError(
                    response: response, body: data, context: ErrorDecodingContext(catalog: catalog)) : nil
            try write(
                HARExchange.make(
                    request: request, requestBody: body, response: response, responseBody: data, failure: failure,
                    started: started, waited: waited, received: since(headed)))
            return (response, HTTPBody(data))
        } catch let error as MendError where error.domain == .transport && error.code != .Transport.recordingRefused {
            try write(
                HARExchange.make(
                    request: request, requestBody: body, response: nil, responseBody: nil, failure: error,
                    started: started, waited: since(started), received: .zero))
            throw error
        }
    }

    /// Redacts and scans the entry, then writes the whole recording (atomically).
    private func write(_ entry: HAREntry) throws(MendError) {
        let redacted = HARRedaction.redact(entry: entry, with: redactor)
        let scan = SecretScan(rules: redactor.rules, knownSecrets: redactor.placeholders.secrets)
        let index = document.withLock { $0.entries.count }
        if let finding = scan.findings(in: redacted, at: "entries[\(index)]").first {
            throw Self.refused("a secret survived redaction at \(finding) (add a rule, or allow the name)")
        }
        if let finding = scan.knownSecretFindings(in: redacted.jsonValue.jsonText()).first {
            throw Self.refused("\(finding.reason) survived redaction in the entry")
        }
        cassette.appendUsed(redacted)
        // Under the lock: concurrent exchanges write in turn, each file holding every entry before it.
        let file = self.file
        let failure: String? = document.withLock { document in
            document.entries.append(redacted)
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try document.data().write(to: file, options: .atomic)
                return nil
            } catch {
                return "cannot write \(file.path): \(error.localizedDescription)"
            }
        }
        if let failure { throw Self.refused(failure) }
    }

    static func refused(_ message: String) -> MendError {
        MendError(
            code: .Transport.recordingRefused, developerMessage: "The recording was not written: \(message).",
            catalog: .core)
    }

    /// The HAR at `file`, or `nil` when there is none (an error if `required`).
    static func read(_ file: URL, required: Bool) throws(MendError) -> HARDocument? {
        guard FileManager.default.fileExists(atPath: file.path) else {
            if required { throw refused("there is no recording at \(file.path) to replay") }
            return nil
        }
        guard let data = try? Data(contentsOf: file) else { throw refused("cannot read \(file.path)") }
        return try HARDocument(data: data)
    }

    static func collect(_ body: HTTPBody, limit: Int) async throws -> Data {
        switch try await body.collect(upTo: limit) {
        case .complete(let data): return data
        case .tooLarge(_, let limit):
            throw MendError(
                code: .Transport.responseTooLarge, developerMessage: "A body exceeded \(limit) bytes while recording.",
                catalog: .core)
        }
    }
}

/// A transport that answers from a HAR recording alone: ``RecordingTransport`` in ``RecordMode/none`` with nothing
/// to wrap. A request the recording has no answer for is `transport/13`, naming the closest recorded request.
public struct ReplayTransport: HTTPTransport {
    private let cassette: Cassette
    private let clock: PipelineClock

    /// Answers from the recording at `file`.
    ///
    /// - Throws: `transport/14` when there is no HAR there.
    public init(
        recording file: URL, rules: RedactionRules = .standard, clock: PipelineClock = .system
    ) throws(MendError) {
        guard let document = try RecordingTransport.read(file, required: true) else {
            throw RecordingTransport.refused("there is no recording at \(file.path) to replay")
        }
        self.init(document: document, rules: rules, clock: clock)
    }

    /// Answers from `document`; `clock` moves a replayed JWT's time claims to its now.
    public init(document: HARDocument, rules: RedactionRules = .standard, clock: PipelineClock = .system) {
        cassette = Cassette(entries: document.entries, rules: rules)
        self.clock = clock
    }

    /// Answers `request` with the first unused recorded exchange that matches it, or throws `transport/13`.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, timeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody) {
        var data: Data?
        if let body { data = try await RecordingTransport.collect(body, limit: 32 << 20) }
        let key = RequestKey(
            method: request.method.rawValue, url: HARExchange.urlString(request), body: data,
            mediaType: request.headerFields[.contentType], rules: cassette.rules)
        guard
            let entry = cassette.take(
                key, url: HARExchange.urlString(request), body: data, mediaType: request.headerFields[.contentType])
        else { throw cassette.mismatch(key) }
        return try cassette.answer(entry, now: clock.now())
    }
}

/// A recorded entry as an answer.
enum Replay {
    /// The response of `entry` as recorded (its body whole), or the transport error it recorded.
    static func answer(_ entry: HAREntry) throws -> (HTTPResponse, Data) {
        let response = entry.response
        guard response.status > 0 else {
            let error = entry.mend?.error
            throw MendError(
                code: MendError.Code(.transport, error?.code ?? 0),
                developerMessage: error?.message ?? "A recorded transport failure.", catalog: .core)
        }
        var fields = HTTPFields()
        for header in response.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            // The body is replayed whole and unencoded.
            if [HTTPField.Name.contentLength, .contentEncoding, .transferEncoding].contains(name) { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let body = response.content.bytes.map { Data($0) } ?? Data()
        return (HTTPResponse(status: .init(code: response.status), headerFields: fields), body)
    }
}
