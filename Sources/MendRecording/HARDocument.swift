public import Foundation
import HTTPTypes
public import MendCore

/// A HAR 1.2 document (the HTTP Archive format browsers, Charles, Proxyman, Polly and Replay write), typed: every
/// object keeps the fields it does not know in `other` (``HARFields``), so that a HAR from any tool keeps every field
/// it has. Mend's own additions are `_`-prefixed fields (HAR's extension convention): `_mend` on an entry
/// (``HAREntry/mend``) holds the Mend error the exchange became.
public struct HARDocument: Sendable, Equatable, Codable {
    /// The log.
    public var log: HARLog
    /// Fields beside `log`, kept.
    public var other: HARFields

    /// An empty log, created by Mend.
    public init() {
        log = HARLog(creator: HARCreator(name: "Mend", version: MendVersion.current))
        other = [:]
    }

    /// A document read from a HAR file's bytes.
    ///
    /// - Throws: `transport/14` (`recordingRefused`) when it is not a HAR, its developer message saying what is
    ///   wrong: an empty file, not JSON, JSON cut off or invalid, or JSON without a `log` object holding an
    ///   `entries` array.
    public init(data: Data) throws(MendError) {
        let json: JSONValue
        switch JSONValue.parse(data, maxBytes: Self.maximumSize, duplicateMembers: .lastWins) {
        case .success(let value): json = value
        case .failure(let failure): throw Self.refusal(Self.problem(failure, in: data))
        }
        switch Self.parts(of: json) {
        case .success(let (root, log)):
            self.log = HARLog(json: .object(log))
            self.other = root
        case .failure(let problem): throw Self.refusal(problem.description)
        }
    }

    /// The largest HAR file read: 512 MiB.
    static let maximumSize = 512 << 20

    private static func refusal(_ problem: String) -> MendError {
        MendError(code: .Transport.recordingRefused, developerMessage: "Not a HAR file: \(problem).", catalog: .core)
    }

    /// What is wrong with bytes that are not JSON.
    private static func problem(_ failure: JSONValue.ParseFailure, in data: Data) -> String {
        switch failure {
        case .empty: "the file is empty"
        case .notJSON: "it is not JSON (a HAR file is a JSON object with a log)"
        case .tooLarge(let limit): "it is larger than \(limit >> 20) MiB"
        case .tooDeep(let limit): "its JSON nests deeper than \(limit) levels"
        case .truncated: "its JSON is cut off after \(data.count) bytes (an unfinished string, object or array)"
        case .malformed, .duplicateMember: "its JSON is invalid"
        }
    }

    /// Why a JSON value is not a HAR document.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The top-level object (without `log`) and the `log` object, or what is missing.
    private static func parts(of json: JSONValue) -> Result<([String: JSONValue], [String: JSONValue]), Problem> {
        guard case .object(var root) = json else {
            return .failure(Problem(description: "its top level is \(kind(json)), not an object with a \"log\""))
        }
        guard let logValue = root["log"] else {
            let names = root.keys.sorted().prefix(5).map { "\"\($0.prefix(40))\"" }
            let found = names.isEmpty ? "it is an empty object" : "its fields are \(names.joined(separator: ", "))"
            return .failure(Problem(description: "it has no \"log\" object (\(found))"))
        }
        guard case .object(let log) = logValue else {
            return .failure(Problem(description: "its \"log\" is \(kind(logValue)), not an object"))
        }
        guard let entries = log["entries"] else {
            return .failure(Problem(description: "its \"log\" has no \"entries\" array"))
        }
        guard case .array = entries else {
            return .failure(Problem(description: "its \"log.entries\" is \(kind(entries)), not an array"))
        }
        root["log"] = nil
        return .success((root, log))
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The entries, in order (``HARLog/entries``).
    public var entries: [HAREntry] {
        get { log.entries }
        set { log.entries = newValue }
    }

    /// The whole document as JSON.
    public var json: JSONValue {
        var root = other
        root["log"] = log.json
        return .object(root)
    }

    /// The document as pretty-printed JSON, keys sorted (so that recordings diff well).
    public func data() -> Data { Data(json.jsonText(pretty: true).utf8) }

    /// Decodes a document from any decoder (a HAR's JSON).
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        switch Self.parts(of: json) {
        case .success(let (root, log)):
            self.log = HARLog(json: .object(log))
            self.other = root
        case .failure(let problem):
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Not a HAR file: \(problem)."))
        }
    }

    /// Encodes the document, every field it was read with included.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// Building the HAR entry of one exchange.
enum HARExchange {
    /// The entry of a request and its response (or its transport failure), with its timings; bodies as given.
    static func make(
        request: HTTPRequest, requestBody: Data?, response: HTTPResponse?, responseBody: Data?, failure: MendError?,
        started: Date, waited: Duration, received: Duration
    ) -> HAREntry {
        let url = urlString(request)
        var harRequest = HARRequest(method: request.method.rawValue, url: url)
        harRequest.headers = fields(request.headerFields)
        harRequest.queryString = FormEncoding.decodeFields(URLComponents(string: url)?.percentEncodedQuery ?? "").map {
            HARField(name: $0.name, value: $0.value ?? "")
        }
        harRequest.bodySize = requestBody?.count ?? 0
        if let requestBody, !requestBody.isEmpty {
            harRequest.postData = HARPostData(
                mimeType: request.headerFields[.contentType] ?? "application/octet-stream",
                text: String(decoding: requestBody, as: UTF8.self))
        }
        var harResponse: HARResponse
        if let response {
            let body = responseBody ?? Data()
            harResponse = HARResponse(status: response.status.code, statusText: response.status.reasonPhrase)
            harResponse.headers = fields(response.headerFields)
            let type = response.headerFields[.contentType] ?? ""
            harResponse.content =
                if let text = String(data: body, encoding: .utf8) {
                    HARContent(mimeType: type, text: text, size: body.count)
                } else {
                    HARContent(mimeType: type, text: body.base64EncodedString(), encoding: "base64", size: body.count)
                }
            harResponse.redirectURL = response.headerFields[.location] ?? ""
            harResponse.bodySize = body.count
        } else {
            // No response (a transport failure): HAR's convention for a request that got none.
            harResponse = HARResponse(status: 0, statusText: "")
        }
        let waitMS = milliseconds(waited), receiveMS = milliseconds(received)
        var entry = HAREntry(
            startedDateTime: timestamp(started), time: waitMS + receiveMS, request: harRequest, response: harResponse,
            timings: .object(["send": .double(0), "wait": .double(waitMS), "receive": .double(receiveMS)]))
        if let failure { entry.mend = HARAnnotation(error: MendErrorSummary(failure)) }
        return entry
    }

    static func urlString(_ request: HTTPRequest) -> String {
        "\(request.scheme ?? "http")://\(request.authority ?? "")\(request.path ?? "/")"
    }

    static func fields(_ fields: HTTPFields) -> [HARField] {
        fields.map { HARField(name: $0.name.rawName, value: $0.value) }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 1000).rounded() / 1000
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
