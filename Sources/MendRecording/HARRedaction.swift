public import Foundation
public import MendCore

/// Redacts HAR documents — the recorder's, or any browser's or proxy's — with ``RedactionRules``: every string at any
/// depth. The fields HAR defines by what they are (the URL and its `queryString`, headers and `cookies`, `postData`'s
/// `text` and `params`, the response's `content.text` in any encoding and `redirectURL`, Mend's `_mend` message), and
/// every field it does not define (a page's `title`, a browser's `_webSocketMessages`, `comment`s, a proxy's own
/// fields) by name and shape, as JSON. Fields are kept, only values change. Then the fail-closed scan.
public enum HARRedaction {
    /// Redacts a whole document, then scans it (fail-closed).
    ///
    /// - Returns: The redacted document.
    /// - Throws: `transport/14` naming where a token-shaped or high-entropy string survived, or where a redacted
    ///   secret still appears in another encoding.
    public static func redact(
        _ document: HARDocument, rules: RedactionRules = .standard
    ) throws(MendError)
        -> HARDocument
    {
        let redactor = ExchangeRedactor(rules: rules, placeholders: PlaceholderTable())
        var redacted = document
        redacted.log = redact(log: document.log, with: redactor)
        redacted.other = redactor.redact(fields: document.other)
        let scan = SecretScan(rules: rules, knownSecrets: redactor.placeholders.secrets)
        if let finding = scan.findings(in: redacted).first {
            throw RecordingTransport.refused(
                "a secret survived redaction at \(finding) (add a rule, or allow the name)")
        }
        if let finding = scan.knownSecretFindings(in: redacted.json.jsonText()).first {
            throw RecordingTransport.refused("\(finding.reason) survived redaction")
        }
        return redacted
    }

    /// The log: its pages, entries, creator and browser, and its own fields.
    static func redact(log: HARLog, with redactor: ExchangeRedactor) -> HARLog {
        var log = log
        log.pages = log.pages?.map { page in
            var page = page
            page.title = redactor.redact(value: page.title, name: "title", inQuery: false)
            page.comment = page.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
            page.pageTimings = redactor.redact(json: page.pageTimings)
            page.other = redactor.redact(fields: page.other)
            return page
        }
        log.entries = log.entries.map { redact(entry: $0, with: redactor) }
        log.creator = redact(creator: log.creator, with: redactor)
        log.browser = log.browser.map { redact(creator: $0, with: redactor) }
        log.comment = log.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        log.other = redactor.redact(fields: log.other)
        return log
    }

    private static func redact(creator: HARCreator, with redactor: ExchangeRedactor) -> HARCreator {
        var creator = creator
        creator.comment = creator.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        creator.other = redactor.redact(fields: creator.other)
        return creator
    }

    /// One entry, redacted.
    static func redact(entry: HAREntry, with redactor: ExchangeRedactor) -> HAREntry {
        var entry = entry
        entry.request = redact(request: entry.request, with: redactor)
        entry.response = redact(response: entry.response, with: redactor)
        entry.comment = entry.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        entry.cache = redactor.redact(json: entry.cache)
        entry.timings = redactor.redact(json: entry.timings)
        entry.other = redactor.redact(fields: entry.other)
        var annotation = entry.mend
        if var mend = annotation {
            if var error = mend.error {
                error.message = redactor.redact(text: error.message)
                error.other = redactor.redact(fields: error.other)
                mend.error = error
            }
            mend.other = redactor.redact(fields: mend.other)
            annotation = mend
        }
        // The templates of the JWTs the entry now holds placeholders of, for the replay to sign them again.
        let templates = redactor.placeholders.templates(in: entry.jsonValue.jsonText())
        if !templates.isEmpty {
            var mend = annotation ?? HARAnnotation(error: nil)
            mend.jwts = (mend.jwts ?? [:]).merging(templates) { _, new in new }
            annotation = mend
        }
        entry.mend = annotation
        return entry
    }

    private static func redact(request: HARRequest, with redactor: ExchangeRedactor) -> HARRequest {
        var request = request
        request.url = redactor.redact(url: request.url) ?? redactor.redact(text: request.url)
        request.headers = redact(headers: request.headers, with: redactor)
        request.cookies = redact(cookies: request.cookies, with: redactor)
        request.queryString = request.queryString.map { redact(field: $0, with: redactor) }
        if var post = request.postData {
            if let text = post.text {
                post.text = String(
                    decoding: redactor.redact(body: Data(text.utf8), mediaType: post.mimeType), as: UTF8.self)
            }
            post.params = post.params?.map { parameter in
                var parameter = parameter
                parameter.value = parameter.value.map {
                    redactor.redact(value: $0, name: parameter.name, inQuery: true)
                }
                parameter.comment = parameter.comment.map {
                    redactor.redact(value: $0, name: "comment", inQuery: false)
                }
                parameter.other = redactor.redact(fields: parameter.other)
                return parameter
            }
            post.comment = post.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
            post.other = redactor.redact(fields: post.other)
            request.postData = post
        }
        request.comment = request.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        request.other = redactor.redact(fields: request.other)
        return request
    }

    private static func redact(response: HARResponse, with redactor: ExchangeRedactor) -> HARResponse {
        var response = response
        response.headers = redact(headers: response.headers, with: redactor)
        response.cookies = redact(cookies: response.cookies, with: redactor)
        response.statusText = redactor.redact(text: response.statusText)
        if !response.redirectURL.isEmpty {
            response.redirectURL =
                redactor.redact(url: response.redirectURL) ?? redactor.redact(text: response.redirectURL)
        }
        response.content = redact(content: response.content, with: redactor)
        response.comment = response.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        response.other = redactor.redact(fields: response.other)
        return response
    }

    /// A body in any encoding: base64 (with or without padding) is decoded, redacted as the text it holds and
    /// encoded again; binary content stays as it is (the scan looks at its printable runs).
    private static func redact(content: HARContent, with redactor: ExchangeRedactor) -> HARContent {
        var content = content
        content.comment = content.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        content.other = redactor.redact(fields: content.other)
        guard let text = content.text, !text.isEmpty else { return content }
        if content.isBase64 {
            guard let bytes = HARContent.decodeBase64(text) else {
                content.text = redactor.redact(text: text)
                return content
            }
            guard String(bytes: bytes, encoding: .utf8) != nil else { return content }
            content.text = redactor.redact(body: Data(bytes), mediaType: content.mimeType).base64EncodedString()
        } else {
            content.text = String(
                decoding: redactor.redact(body: Data(text.utf8), mediaType: content.mimeType), as: UTF8.self)
        }
        return content
    }

    private static func redact(headers: [HARField], with redactor: ExchangeRedactor) -> [HARField] {
        headers.map { header in
            var header = header
            header.value = redactor.redact(header: header.name, value: header.value)
            header.comment = header.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
            header.other = redactor.redact(fields: header.other)
            return header
        }
    }

    private static func redact(cookies: [HARCookie], with redactor: ExchangeRedactor) -> [HARCookie] {
        cookies.map { cookie in
            var cookie = cookie
            if !cookie.value.isEmpty {
                cookie.value = redactor.placeholders.placeholder(for: cookie.value, kind: "cookie")
            }
            cookie.comment = cookie.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
            cookie.other = redactor.redact(fields: cookie.other)
            return cookie
        }
    }

    /// A `{name, value}` pair of a query.
    private static func redact(field: HARField, with redactor: ExchangeRedactor) -> HARField {
        var field = field
        field.value = redactor.redact(value: field.value, name: field.name, inQuery: true)
        field.comment = field.comment.map { redactor.redact(value: $0, name: "comment", inQuery: false) }
        field.other = redactor.redact(fields: field.other)
        return field
    }
}
