public import Foundation

extension MendError {
    /// The Mend error JSON shape that Mend's own services (`mend-server`) answer with, so that any Mend client
    /// decodes their errors like any other:
    ///
    /// ```json
    /// {"error": {"domain": "graph", "code": 2, "subcode": null, "name": "serviceUnavailable",
    ///            "category": "transient", "recovery": "retry", "message": "…", "referenceId": "…",
    ///            "additionalMessages": [], "retryAfter": 30}}
    /// ```
    ///
    /// The message is the redacted developer message; user text is left to the client's localization.
    public var wireBody: JSONValue { wireBody(redactingMessages: true) }

    /// ``wireBody``; a service whose own redactor already went over the messages (it knows more secrets than the
    /// standard one) passes `false` rather than redact them twice.
    package func wireBody(redactingMessages: Bool) -> JSONValue {
        let redact = { (text: String) in redactingMessages ? Redactor.standard.redact(text: text) : text }
        var error: [String: JSONValue] = [
            "domain": .string(domain.rawValue),
            "code": .int(code.rawValue),
            "subcode": subcode.map { .int($0.rawValue) } ?? .null,
            "name": .string(name),
            "category": .string(category.rawValue),
            "recovery": .string(recovery.action.rawValue),
            "message": .string(redact(developerMessage)),
            "referenceId": referenceID.map(JSONValue.string) ?? .null,
            "additionalMessages": .array(additionalMessages.map { .string(redact($0)) }),
        ]
        if !recovery.permissions.isEmpty { error["permissions"] = .array(recovery.permissions.map(JSONValue.string)) }
        return .object(["error": .object(error)])
    }

    /// Reads the Mend error JSON shape (see ``wireBody``), classifying the error through `catalog`; returns `nil`
    /// when `json` is not that shape (it must name a `domain`).
    ///
    /// The category and recovery the service sent win over the catalog's when they are known names, because the
    /// service saw the upstream failure. An error of a domain the catalog holds no space for keeps the name, category
    /// and recovery the body states.
    public init?(wireBody json: JSONValue, catalog: ErrorCatalog) {
        guard let body = json["error"], let domainName = body["domain"]?.stringValue, let code = body["code"]?.intValue
        else { return nil }
        let identity = Code(Domain(rawValue: domainName), code)
        let subcode = body["subcode"]?.intValue.map(Subcode.init(rawValue:))
        let message = body["message"]?.stringValue
        if catalog.domains.contains(identity.domain) {
            self.init(code: identity, subcode: subcode, developerMessage: message, catalog: catalog)
        } else {
            // Mend's wire shape describes itself: a domain the catalog has no space for is classified as stated.
            let entry = ErrorCatalog.Entry(
                domain: identity.domain, codes: code...code, subcode: subcode?.rawValue,
                name: body["name"]?.stringValue ?? "unknown", category: .other, recovery: .contactSupport,
                messageKey: .generic, summary: message ?? "An error of a space this catalog does not hold.")
            self.init(entry: entry, code: identity, subcode: subcode, developerMessage: entry.summary)
        }
        let category = body["category"]?.stringValue.flatMap(Category.init(rawValue:)) ?? entry.category
        let action =
            body["recovery"]?.stringValue.map(Recovery.Action.init(rawValue:))
            .flatMap { Recovery.Action.known.contains($0) ? $0 : nil } ?? entry.recovery
        if category != entry.category || action != entry.recovery {
            override(.mendWire(category: category, recovery: action))
        }
        requestedPermissions = body["permissions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        referenceID = body["referenceId"]?.stringValue
        additionalMessages = body["additionalMessages"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
