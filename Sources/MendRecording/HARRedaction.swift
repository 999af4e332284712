public import Foundation
public import MendCore

/// Redacts HAR entries — the recorder's, or any browser's or proxy's — with ``RedactionRules``: the URL and its
/// `queryString`, every header (and `cookies`), the request's `postData` (its `text` and `params`), the response's
/// `content.text` and `redirectURL`, and Mend's `_mend` message. Every other field is kept as it is.
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
        redacted.entries = document.entries.map { redact(entry: $0, with: redactor) }
        let scan = SecretScan(rules: rules, knownSecrets: redactor.placeholders.secrets)
        if let finding = scan.findings(in: redacted.entries).first {
            throw RecordingTransport.refused(
                "a secret survived redaction at \(finding) (add a rule, or allow the name)")
        }
        if let finding = scan.knownSecretFindings(in: redacted.json.jsonText()).first {
            throw RecordingTransport.refused("\(finding.reason) survived redaction")
        }
        return redacted
    }

    /// One entry, redacted.
    static func redact(entry: JSONValue, with redactor: ExchangeRedactor) -> JSONValue {
        guard case .object(var object) = entry else { return entry }
        if case .object(var request) = object["request"] ?? .null {
            redactMessage(&request, with: redactor)
            if let url = request["url"]?.stringValue {
                request["url"] = .string(redactor.redact(url: url) ?? redactor.redact(text: url))
            }
            if case .object(var post) = request["postData"] ?? .null {
                if let text = post["text"]?.stringValue {
                    post["text"] = .string(
                        String(
                            decoding: redactor.redact(body: Data(text.utf8), mediaType: post["mimeType"]?.stringValue),
                            as: UTF8.self))
                }
                if let params = post["params"]?.arrayValue {
                    post["params"] = .array(params.map { redactPair($0, with: redactor, inQuery: true) })
                }
                request["postData"] = .object(post)
            }
            if let pairs = request["queryString"]?.arrayValue {
                request["queryString"] = .array(pairs.map { redactPair($0, with: redactor, inQuery: true) })
            }
            object["request"] = .object(request)
        }
        if case .object(var response) = object["response"] ?? .null {
            redactMessage(&response, with: redactor)
            if let location = response["redirectURL"]?.stringValue, !location.isEmpty {
                response["redirectURL"] = .string(redactor.redact(url: location) ?? redactor.redact(text: location))
            }
            if case .object(var content) = response["content"] ?? .null, let text = content["text"]?.stringValue,
                content["encoding"]?.stringValue != "base64"
            {
                content["text"] = .string(
                    String(
                        decoding: redactor.redact(body: Data(text.utf8), mediaType: content["mimeType"]?.stringValue),
                        as: UTF8.self))
                response["content"] = .object(content)
            }
            object["response"] = .object(response)
        }
        // The templates of the JWTs the entry now holds placeholders of, for the replay to sign them again.
        let templates = redactor.placeholders.templates(in: JSONValue.object(object).jsonText())
        if !templates.isEmpty {
            var annotation = object["_mend"]?.objectValue ?? [:]
            annotation["jwts"] = .object(templates)
            object["_mend"] = .object(annotation)
        }
        if let message = object["_mend"]?["error"]?["message"]?.stringValue,
            case .object(var annotation) = object["_mend"] ?? .null,
            case .object(var error) = annotation["error"] ?? .null
        {
            error["message"] = .string(redactor.redact(text: message))
            annotation["error"] = .object(error)
            object["_mend"] = .object(annotation)
        }
        return .object(object)
    }

    /// Headers and cookies of a request or response.
    private static func redactMessage(_ message: inout [String: JSONValue], with redactor: ExchangeRedactor) {
        if let headers = message["headers"]?.arrayValue {
            message["headers"] = .array(
                headers.map { header in
                    guard case .object(var fields) = header, let name = fields["name"]?.stringValue,
                        let value = fields["value"]?.stringValue
                    else { return header }
                    fields["value"] = .string(redactor.redact(header: name, value: value))
                    return .object(fields)
                })
        }
        if let cookies = message["cookies"]?.arrayValue {
            message["cookies"] = .array(
                cookies.map { cookie in
                    guard case .object(var fields) = cookie, let value = fields["value"]?.stringValue else {
                        return cookie
                    }
                    fields["value"] = .string(redactor.placeholders.placeholder(for: value, kind: "cookie"))
                    return .object(fields)
                })
        }
    }

    /// A `{name, value}` pair of a query or form.
    private static func redactPair(_ pair: JSONValue, with redactor: ExchangeRedactor, inQuery: Bool) -> JSONValue {
        guard case .object(var fields) = pair, let name = fields["name"]?.stringValue,
            let value = fields["value"]?.stringValue
        else { return pair }
        fields["value"] = .string(redactor.redact(value: value, name: name, inQuery: inQuery))
        return .object(fields)
    }
}
