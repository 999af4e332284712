import Foundation
public import MendCore

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as types. Every object keeps the fields it does not know —
// a browser's `_initiator`, `_webSocketMessages`, a proxy's own — in `other`, and writes them back, so that a HAR read
// and written again loses nothing. A known field whose value has another type than the format's is kept in `other`
// too. This file is the only place that reads a HAR's members by name.

/// The fields of a HAR object that ``HARDocument`` does not model, kept as they were.
public typealias HARFields = [String: JSONValue]

/// A HAR object read from and written to JSON.
protocol HARObject: Sendable, Equatable {
    init(reading reader: inout HARReader)
    /// The known fields, written over `other`.
    func write(into fields: inout HARFields)
    var other: HARFields { get }
}

extension HARObject {
    init(json: JSONValue) {
        var reader = HARReader(json.objectValue ?? [:])
        self.init(reading: &reader)
    }

    var json: JSONValue {
        var fields = other
        write(into: &fields)
        return .object(fields)
    }
}

/// Takes known members out of an object; what remains is the object's `other`.
struct HARReader {
    private(set) var remaining: HARFields

    init(_ fields: HARFields) { remaining = fields }

    mutating func string(_ key: String) -> String? {
        guard case .string(let value)? = remaining[key] else { return nil }
        remaining[key] = nil
        return value
    }

    mutating func int(_ key: String) -> Int? {
        switch remaining[key] {
        case .int(let value)?:
            remaining[key] = nil
            return value
        case .double(let value)? where value.rounded() == value && abs(value) < 1e15:
            remaining[key] = nil
            return Int(value)
        default: return nil
        }
    }

    mutating func double(_ key: String) -> Double? {
        switch remaining[key] {
        case .double(let value)?:
            remaining[key] = nil
            return value
        case .int(let value)?:
            remaining[key] = nil
            return Double(value)
        default: return nil
        }
    }

    mutating func bool(_ key: String) -> Bool? {
        guard case .bool(let value)? = remaining[key] else { return nil }
        remaining[key] = nil
        return value
    }

    /// Any JSON value, as it is.
    mutating func value(_ key: String) -> JSONValue? {
        defer { remaining[key] = nil }
        return remaining[key]
    }

    mutating func object<T: HARObject>(_ key: String, as type: T.Type = T.self) -> T? {
        guard case .object? = remaining[key], let value = remaining.removeValue(forKey: key) else { return nil }
        return T(json: value)
    }

    /// An array of objects; an array holding anything else stays in `other`.
    mutating func objects<T: HARObject>(_ key: String, as type: T.Type = T.self) -> [T]? {
        guard case .array(let elements)? = remaining[key],
            elements.allSatisfy({ if case .object = $0 { true } else { false } })
        else { return nil }
        remaining[key] = nil
        return elements.map(T.init(json:))
    }

    var other: HARFields { remaining }
}

extension HARFields {
    fileprivate mutating func set(_ key: String, _ value: String?) { if let value { self[key] = .string(value) } }
    fileprivate mutating func set(_ key: String, _ value: Int?) { if let value { self[key] = .int(value) } }
    fileprivate mutating func set(_ key: String, _ value: Bool?) { if let value { self[key] = .bool(value) } }
    fileprivate mutating func set(_ key: String, _ value: JSONValue?) { if let value { self[key] = value } }
    fileprivate mutating func set(_ key: String, _ value: Double) {
        self[key] = value.rounded() == value && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
    }
    fileprivate mutating func set(_ key: String, _ value: (some HARObject)?) { if let value { self[key] = value.json } }
    fileprivate mutating func set(_ key: String, _ values: [some HARObject]?) {
        if let values { self[key] = .array(values.map(\.json)) }
    }
}

/// The `log` of a HAR: who wrote it, its pages and its entries.
public struct HARLog: HARObject, Sendable, Equatable {
    /// The format's version (`1.2`).
    public var version: String
    /// The application that wrote the log.
    public var creator: HARCreator
    /// The browser, when a browser wrote it.
    public var browser: HARCreator?
    /// The pages (a browser's), by id.
    public var pages: [HARPage]?
    /// The exchanges, in order.
    public var entries: [HAREntry]
    /// A comment.
    public var comment: String?
    /// Fields of the log that the format does not define, kept.
    public var other: HARFields

    /// A log with `entries`, written by `creator`.
    public init(creator: HARCreator, entries: [HAREntry] = []) {
        self.version = "1.2"
        self.creator = creator
        self.entries = entries
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        version = reader.string("version") ?? "1.2"
        creator = reader.object("creator") ?? HARCreator(name: "", version: "")
        browser = reader.object("browser")
        pages = reader.objects("pages")
        entries = reader.objects("entries") ?? []
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("version", version)
        fields.set("creator", creator)
        fields.set("browser", browser)
        fields.set("pages", pages)
        fields.set("entries", entries)
        fields.set("comment", comment)
    }
}

/// The application (or browser) that wrote a log.
public struct HARCreator: HARObject, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its version.
    public var version: String
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    /// A creator.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        name = reader.string("name") ?? ""
        version = reader.string("version") ?? ""
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("name", name)
        fields.set("version", version)
        fields.set("comment", comment)
    }
}

/// A page a browser loaded; its `title` is often the page's URL, fragment included.
public struct HARPage: HARObject, Sendable, Equatable {
    /// When the page started loading (ISO 8601).
    package var startedDateTime: String
    /// The page's id, which entries name as `pageref`.
    package var id: String
    /// The page's title.
    public var title: String
    /// The page's timings, as written.
    package var pageTimings: JSONValue
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    init(reading reader: inout HARReader) {
        startedDateTime = reader.string("startedDateTime") ?? ""
        id = reader.string("id") ?? ""
        title = reader.string("title") ?? ""
        pageTimings = reader.value("pageTimings") ?? .object([:])
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("startedDateTime", startedDateTime)
        fields.set("id", id)
        fields.set("title", title)
        fields.set("pageTimings", pageTimings)
        fields.set("comment", comment)
    }
}

/// One exchange: a request, its response, its timings, and Mend's annotation.
public struct HAREntry: HARObject, Sendable, Equatable {
    /// The page it belongs to.
    package var pageref: String?
    /// When the request started (ISO 8601).
    package var startedDateTime: String
    /// The whole exchange's time in milliseconds.
    package var time: Double
    /// The request.
    public var request: HARRequest
    /// The response (status 0 when none came).
    public var response: HARResponse
    /// The cache's state, as written.
    package var cache: JSONValue
    /// The phases' times in milliseconds, as written.
    package var timings: JSONValue
    /// The server's IP address.
    package var serverIPAddress: String?
    /// The connection's id.
    package var connection: String?
    /// A comment.
    public var comment: String?
    /// Mend's annotation (`_mend`): the Mend error the exchange became, the templates of the JWTs it holds.
    public var mend: HARAnnotation?
    /// Fields the format does not define (a browser's `_initiator`, `_webSocketMessages`, …), kept.
    public var other: HARFields

    /// An entry.
    public init(
        startedDateTime: String, time: Double, request: HARRequest, response: HARResponse,
        timings: JSONValue = .object([:])
    ) {
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = .object([:])
        self.timings = timings
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        pageref = reader.string("pageref")
        startedDateTime = reader.string("startedDateTime") ?? ""
        time = reader.double("time") ?? 0
        request = reader.object("request") ?? HARRequest(method: "GET", url: "")
        response = reader.object("response") ?? HARResponse(status: 0, statusText: "")
        cache = reader.value("cache") ?? .object([:])
        timings = reader.value("timings") ?? .object([:])
        serverIPAddress = reader.string("serverIPAddress")
        connection = reader.string("connection")
        comment = reader.string("comment")
        mend = reader.object("_mend")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("pageref", pageref)
        fields.set("startedDateTime", startedDateTime)
        fields.set("time", time)
        fields.set("request", request)
        fields.set("response", response)
        fields.set("cache", cache)
        fields.set("timings", timings)
        fields.set("serverIPAddress", serverIPAddress)
        fields.set("connection", connection)
        fields.set("comment", comment)
        fields.set("_mend", mend)
    }

    /// The entry as JSON, as a HAR file holds it.
    public var jsonValue: JSONValue { json }

    /// Why a browser got no response (Chromium's `_error`, on the entry or its response: `net::ERR_…`).
    public var browserError: String? {
        (other["_error"] ?? response.other["_error"])?.stringValue
    }
}

/// A name and a value: a header, a query parameter.
public struct HARField: HARObject, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    /// A field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        name = reader.string("name") ?? ""
        value = reader.string("value") ?? ""
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("name", name)
        fields.set("value", value)
        fields.set("comment", comment)
    }
}

/// A cookie of a request or response.
public struct HARCookie: HARObject, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// The path, the domain, the expiry (ISO 8601).
    package var path: String?, domain: String?, expires: String?
    /// The flags.
    package var httpOnly: Bool?, secure: Bool?
    /// A comment.
    public var comment: String?
    /// Fields the format does not define (`sameSite`, …), kept.
    public var other: HARFields

    init(reading reader: inout HARReader) {
        name = reader.string("name") ?? ""
        value = reader.string("value") ?? ""
        path = reader.string("path")
        domain = reader.string("domain")
        expires = reader.string("expires")
        httpOnly = reader.bool("httpOnly")
        secure = reader.bool("secure")
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("name", name)
        fields.set("value", value)
        fields.set("path", path)
        fields.set("domain", domain)
        fields.set("expires", expires)
        fields.set("httpOnly", httpOnly)
        fields.set("secure", secure)
        fields.set("comment", comment)
    }
}

/// A request.
public struct HARRequest: HARObject, Sendable, Equatable {
    /// The method.
    public var method: String
    /// The absolute URL, query included.
    public var url: String
    /// The HTTP version.
    package var httpVersion: String
    /// The cookies.
    public var cookies: [HARCookie]
    /// The header fields, in order.
    public var headers: [HARField]
    /// The query's parameters, decoded.
    public var queryString: [HARField]
    /// The body.
    public var postData: HARPostData?
    /// The header's and body's sizes in bytes (-1: unknown).
    package var headersSize: Int, bodySize: Int
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    /// A request without headers or body.
    public init(method: String, url: String) {
        self.method = method
        self.url = url
        self.httpVersion = "HTTP/1.1"
        self.cookies = []
        self.headers = []
        self.queryString = []
        self.headersSize = -1
        self.bodySize = 0
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        method = reader.string("method") ?? "GET"
        url = reader.string("url") ?? ""
        httpVersion = reader.string("httpVersion") ?? "HTTP/1.1"
        cookies = reader.objects("cookies") ?? []
        headers = reader.objects("headers") ?? []
        queryString = reader.objects("queryString") ?? []
        postData = reader.object("postData")
        headersSize = reader.int("headersSize") ?? -1
        bodySize = reader.int("bodySize") ?? -1
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("method", method)
        fields.set("url", url)
        fields.set("httpVersion", httpVersion)
        fields.set("cookies", cookies)
        fields.set("headers", headers)
        fields.set("queryString", queryString)
        fields.set("postData", postData)
        fields.set("headersSize", headersSize)
        fields.set("bodySize", bodySize)
        fields.set("comment", comment)
    }
}

/// A request's body.
public struct HARPostData: HARObject, Sendable, Equatable {
    /// Its media type.
    public var mimeType: String
    /// A form's parameters, when the writer parsed them.
    public var params: [HARParameter]?
    /// The body as text.
    public var text: String?
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    /// A body of `mimeType`.
    public init(mimeType: String, text: String?) {
        self.mimeType = mimeType
        self.text = text
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        mimeType = reader.string("mimeType") ?? ""
        params = reader.objects("params")
        text = reader.string("text")
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("mimeType", mimeType)
        fields.set("params", params)
        fields.set("text", text)
        fields.set("comment", comment)
    }
}

/// A form parameter of a request's body.
public struct HARParameter: HARObject, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value (absent for a file).
    public var value: String?
    /// A file's name and media type.
    package var fileName: String?, contentType: String?
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    init(reading reader: inout HARReader) {
        name = reader.string("name") ?? ""
        value = reader.string("value")
        fileName = reader.string("fileName")
        contentType = reader.string("contentType")
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("name", name)
        fields.set("value", value)
        fields.set("fileName", fileName)
        fields.set("contentType", contentType)
        fields.set("comment", comment)
    }
}

/// A response.
public struct HARResponse: HARObject, Sendable, Equatable {
    /// The status (0: no response came).
    public var status: Int
    /// The reason phrase.
    public var statusText: String
    /// The HTTP version.
    package var httpVersion: String
    /// The cookies.
    public var cookies: [HARCookie]
    /// The header fields, in order.
    public var headers: [HARField]
    /// The body.
    public var content: HARContent
    /// The `Location` of a redirect ("" otherwise).
    public var redirectURL: String
    /// The header's and body's sizes in bytes (-1: unknown).
    package var headersSize: Int, bodySize: Int
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    /// A response without headers or body.
    public init(status: Int, statusText: String) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = status == 0 ? "" : "HTTP/1.1"
        self.cookies = []
        self.headers = []
        self.content = HARContent(mimeType: "", text: nil)
        self.redirectURL = ""
        self.headersSize = -1
        self.bodySize = status == 0 ? -1 : 0
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        status = reader.int("status") ?? 0
        statusText = reader.string("statusText") ?? ""
        httpVersion = reader.string("httpVersion") ?? ""
        cookies = reader.objects("cookies") ?? []
        headers = reader.objects("headers") ?? []
        content = reader.object("content") ?? HARContent(mimeType: "", text: nil)
        redirectURL = reader.string("redirectURL") ?? ""
        headersSize = reader.int("headersSize") ?? -1
        bodySize = reader.int("bodySize") ?? -1
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("status", status)
        fields.set("statusText", statusText)
        fields.set("httpVersion", httpVersion)
        fields.set("cookies", cookies)
        fields.set("headers", headers)
        fields.set("content", content)
        fields.set("redirectURL", redirectURL)
        fields.set("headersSize", headersSize)
        fields.set("bodySize", bodySize)
        fields.set("comment", comment)
    }

    /// The first value of the header `name` (compared case-insensitively).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A response's body.
public struct HARContent: HARObject, Sendable, Equatable {
    /// The body's size in bytes.
    package var size: Int
    /// Bytes saved by compression.
    package var compression: Int?
    /// Its media type.
    public var mimeType: String
    /// The body as text, or in ``encoding``.
    public var text: String?
    /// How ``text`` is encoded (`base64`), when it is.
    public var encoding: String?
    /// A comment.
    public var comment: String?
    /// Fields the format does not define, kept.
    public var other: HARFields

    /// A body of `mimeType`.
    public init(mimeType: String, text: String?, encoding: String? = nil, size: Int = 0) {
        self.size = size
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        size = reader.int("size") ?? 0
        compression = reader.int("compression")
        mimeType = reader.string("mimeType") ?? ""
        text = reader.string("text")
        encoding = reader.string("encoding")
        comment = reader.string("comment")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("size", size)
        fields.set("compression", compression)
        fields.set("mimeType", mimeType)
        fields.set("text", text)
        fields.set("encoding", encoding)
        fields.set("comment", comment)
    }

    /// Whether ``text`` is base64 (`"encoding": "base64"`).
    public var isBase64: Bool { encoding?.lowercased() == "base64" }

    /// The body's bytes: ``text`` decoded when it is base64 (with or without padding; `nil` when it does not
    /// decode), else its UTF-8.
    public var bytes: [UInt8]? {
        guard let text else { return [] }
        guard isBase64 else { return Array(text.utf8) }
        return HARContent.decodeBase64(text)
    }

    /// Standard base64 with or without padding, whitespace ignored; `nil` when it is not base64.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        let compact = text.filter { !$0.isWhitespace }
        let padded =
            compact.utf8.count % 4 == 0 ? compact : compact + String(repeating: "=", count: 4 - compact.utf8.count % 4)
        return Data(base64Encoded: padded).map(Array.init)
    }
}

/// Mend's annotation of an entry (`_mend`, HAR's convention for a writer's own field).
public struct HARAnnotation: HARObject, Sendable, Equatable {
    /// The Mend error the exchange became, as `mend explain` shows it.
    public var error: MendErrorSummary?
    /// The templates of the JWTs the entry holds placeholders of (`<mend:jwt:N>`), for a replay to sign again.
    public var jwts: [String: JSONValue]?
    /// Fields Mend does not write, kept.
    public var other: HARFields

    /// An annotation.
    public init(error: MendErrorSummary?) {
        self.error = error
        self.other = [:]
    }

    init(reading reader: inout HARReader) {
        error = reader.object("error")
        if case .object(let templates)? = reader.value("jwts") { jwts = templates }
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("error", error)
        if let jwts { fields["jwts"] = .object(jwts) }
    }
}

/// A Mend error as a recording keeps it: its code, classification and developer message.
public struct MendErrorSummary: HARObject, Sendable, Equatable {
    /// The domain (`graph`, `transport`, …).
    public var domain: String
    /// The code, and the subcode when there is one.
    public var code: Int, subcode: Int?
    /// The catalog's name (`accessTokenExpired`).
    public var name: String
    /// The category (`transient`, `authentication`, …).
    public var category: String
    /// The recovery action.
    public var recovery: String
    /// The developer message, redacted.
    public var message: String
    /// The provider's reference id (`fbtrace_id`), when it gave one.
    public var referenceID: String?
    /// Fields Mend does not write, kept.
    public var other: HARFields

    /// The summary of `error`.
    public init(_ error: MendError) {
        domain = error.domain.rawValue
        code = error.code.rawValue
        subcode = error.subcode?.rawValue
        name = error.name
        category = error.category.rawValue
        recovery = error.recovery.action.rawValue
        message = error.developerMessage
        referenceID = error.referenceID
        other = [:]
    }

    init(reading reader: inout HARReader) {
        domain = reader.string("domain") ?? ""
        code = reader.int("code") ?? 0
        subcode = reader.int("subcode")
        _ = reader.value("subcode")
        name = reader.string("name") ?? ""
        category = reader.string("category") ?? ""
        recovery = reader.string("recovery") ?? ""
        message = reader.string("message") ?? ""
        referenceID = reader.string("referenceId")
        _ = reader.value("referenceId")
        other = reader.other
    }

    func write(into fields: inout HARFields) {
        fields.set("domain", domain)
        fields.set("code", code)
        fields["subcode"] = subcode.map(JSONValue.int) ?? .null
        fields.set("name", name)
        fields.set("category", category)
        fields.set("recovery", recovery)
        fields.set("message", message)
        fields["referenceId"] = referenceID.map(JSONValue.string) ?? .null
    }
}
