public import Foundation
import HTTPTypes
public import MendCore

/// A HAR 1.2 document (the HTTP Archive format browsers, Charles, Proxyman, Polly and Replay write), kept as JSON so
/// that a HAR from any tool keeps every field it has. Mend's own additions are `_`-prefixed fields (HAR's extension
/// convention): `_mend` on an entry holds the Mend error the exchange became.
public struct HARDocument: Sendable, Equatable {
    /// The whole document.
    public var json: JSONValue

    /// An empty log, created by Mend.
    public init() {
        json = .object([
            "log": .object([
                "version": .string("1.2"),
                "creator": .object(["name": .string("Mend"), "version": .string(MendVersion.current)]),
                "entries": .array([]),
            ])
        ])
    }

    /// A document read from a HAR file's bytes.
    ///
    /// - Throws: `transport/14` (`recordingRefused`) when it is not a HAR (no
    ///   `log.entries` array).
    public init(data: Data) throws(MendError) {
        guard case .success(let json) = JSONValue.parse(data, maxBytes: 512 << 20),
            json["log"]?["entries"]?.arrayValue != nil
        else {
            throw MendError(
                code: .Transport.recordingRefused,
                developerMessage: "Not a HAR file: it has no log.entries array.", catalog: .core)
        }
        self.json = json
    }

    /// The entries, in order.
    public var entries: [JSONValue] {
        get { json["log"]?["entries"]?.arrayValue ?? [] }
        set {
            guard case .object(var root) = json, case .object(var log) = root["log"] ?? .object([:]) else { return }
            log["entries"] = .array(newValue)
            root["log"] = .object(log)
            json = .object(root)
        }
    }

    /// The document as pretty-printed JSON, keys sorted (so that recordings diff well).
    public func data() -> Data { Data(json.jsonText(pretty: true).utf8) }
}

/// Building the HAR entry of one exchange.
enum HAREntry {
    /// The entry of a request and its response (or its transport failure), with its timings; bodies as given.
    static func make(
        request: HTTPRequest, requestBody: Data?, response: HTTPResponse?, responseBody: Data?, failure: MendError?,
        started: Date, waited: Duration, received: Duration
    ) -> JSONValue {
        let url = urlString(request)
        var requestObject: [String: JSONValue] = [
            "method": .string(request.method.rawValue), "url": .string(url), "httpVersion": .string("HTTP/1.1"),
            "cookies": .array([]), "headers": headers(request.headerFields),
            "queryString": .array(
                ExchangeRedactor.decodeForm(URLComponents(string: url)?.percentEncodedQuery ?? "").map { pair in
                    .object(["name": .string(pair.name), "value": .string(pair.value ?? "")])
                }),
            "headersSize": .int(-1), "bodySize": .int(requestBody?.count ?? 0),
        ]
        if let requestBody, !requestBody.isEmpty {
            requestObject["postData"] = .object([
                "mimeType": .string(request.headerFields[.contentType] ?? "application/octet-stream"),
                "text": .string(String(decoding: requestBody, as: UTF8.self)),
            ])
        }
        var responseObject: [String: JSONValue]
        if let response {
            let body = responseBody ?? Data()
            let type = response.headerFields[.contentType] ?? ""
            var content: [String: JSONValue] = ["size": .int(body.count), "mimeType": .string(type)]
            if let text = String(data: body, encoding: .utf8) {
                content["text"] = .string(text)
            } else {
                content["text"] = .string(body.base64EncodedString())
                content["encoding"] = .string("base64")
            }
            responseObject = [
                "status": .int(response.status.code), "statusText": .string(response.status.reasonPhrase),
                "httpVersion": .string("HTTP/1.1"), "cookies": .array([]), "headers": headers(response.headerFields),
                "content": .object(content), "redirectURL": .string(response.headerFields[.location] ?? ""),
                "headersSize": .int(-1), "bodySize": .int(body.count),
            ]
        } else {
            // No response (a transport failure): HAR's convention for a request that got none.
            responseObject = [
                "status": .int(0), "statusText": .string(""), "httpVersion": .string(""), "cookies": .array([]),
                "headers": .array([]), "content": .object(["size": .int(0), "mimeType": .string("")]),
                "redirectURL": .string(""), "headersSize": .int(-1), "bodySize": .int(-1),
            ]
        }
        let waitMS = milliseconds(waited), receiveMS = milliseconds(received)
        var entry: [String: JSONValue] = [
            "startedDateTime": .string(timestamp(started)), "time": .double(waitMS + receiveMS),
            "request": .object(requestObject), "response": .object(responseObject), "cache": .object([:]),
            "timings": .object(["send": .double(0), "wait": .double(waitMS), "receive": .double(receiveMS)]),
        ]
        if let failure { entry["_mend"] = annotation(failure) }
        return .object(entry)
    }

    /// The `_mend` field: the Mend error an exchange became, as `mend explain` shows it.
    static func annotation(_ error: MendError) -> JSONValue {
        .object([
            "error": .object([
                "domain": .string(error.domain.rawValue), "code": .int(error.code.rawValue),
                "subcode": error.subcode.map { .int($0.rawValue) } ?? .null, "name": .string(error.name),
                "category": .string(error.category.rawValue), "recovery": .string(error.recovery.action.rawValue),
                "message": .string(error.developerMessage),
                "referenceId": error.referenceID.map(JSONValue.string) ?? .null,
            ])
        ])
    }

    static func urlString(_ request: HTTPRequest) -> String {
        "\(request.scheme ?? "http")://\(request.authority ?? "")\(request.path ?? "/")"
    }

    static func headers(_ fields: HTTPFields) -> JSONValue {
        .array(fields.map { .object(["name": .string($0.name.rawName), "value": .string($0.value)]) })
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
