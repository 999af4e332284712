public import Foundation

extension MendError {
    /// The user-facing title in the process's preferred language (see ``MendLocalization/preferredLanguage``).
    public var userTitle: String { userTitle(language: MendLocalization.preferredLanguage) }

    /// The user-facing message in the process's preferred language.
    public var userMessage: String { userMessage(language: MendLocalization.preferredLanguage) }

    /// The user-facing title for `locale`. The server's own title wins, except for security errors.
    public func userTitle(locale: Locale) -> String { userTitle(language: MendLocalization.language(for: locale)) }

    /// The user-facing message for `locale`. The server's own message wins, except for security errors.
    public func userMessage(locale: Locale) -> String {
        userMessage(language: MendLocalization.language(for: locale))
    }

    /// The localized recovery suggestion for `locale` (the provider's own when its configuration supplied one).
    public func recoverySuggestion(locale: Locale) -> String? {
        recoverySuggestion(language: MendLocalization.language(for: locale))
    }

    /// The localized recovery option labels for `locale`; when there are two or more, the last one cancels.
    public func recoveryOptions(locale: Locale) -> [String] {
        recoveryOptions(language: MendLocalization.language(for: locale))
    }

    func userTitle(language: String) -> String {
        if !isSecuritySensitive, let serverUserTitle, !serverUserTitle.isEmpty { return serverUserTitle }
        return MendLocalization.title(for: self, language: language)
    }

    func userMessage(language: String) -> String {
        if !isSecuritySensitive, let serverUserMessage, !serverUserMessage.isEmpty { return serverUserMessage }
        return MendLocalization.message(for: self, language: language)
    }

    func recoverySuggestion(language: String) -> String? {
        if let suggestion = serverRecovery?.suggestion, !suggestion.isEmpty { return suggestion }
        return MendLocalization.recovery(recovery.action, language: language).suggestion
    }

    func recoveryOptions(language: String) -> [String] {
        if let options = serverRecovery?.options, !options.isEmpty { return options }
        return MendLocalization.recovery(recovery.action, language: language).options
    }

    /// The reference line to show beside the message when the person may need support: `Reference: AbC123`, or
    /// `nil` for an error that never reached the API.
    package func referenceText(locale: Locale) -> String? {
        guard let referenceID else { return nil }
        let language = MendLocalization.language(for: locale)
        return "\(MendLocalization.label(.reference, language: language)): \(referenceID)"
    }

    /// The error's code path, `graph/190/463` or `transport/2`: what logs, descriptions and telemetry's
    /// `error.type` name it by.
    package var codePath: String {
        "\(code)\(subcode.map { "/\($0.rawValue)" } ?? "")"
    }

    /// A rendering with no dynamic values, for metric labels and grouping: `graph.190.463.tokenExpired`.
    public var shortDescription: String {
        let subcodeText = subcode.map { ".\($0.rawValue)" } ?? ""
        return "\(domain.rawValue).\(code.rawValue)\(subcodeText).\(name)"
    }
}

extension MendError: CustomStringConvertible, CustomDebugStringConvertible {
    /// A stable, redacted rendering for logs: identity, classification, developer message and context.
    ///
    /// `MendError(graph/190/463 tokenExpired, recoverable, reauthenticate, status 400, reference AbC…,
    /// attempts 1): Error validating access token: Session has expired`
    public var description: String {
        var parts = [
            "\(codePath) \(name)", category.rawValue, recovery.description,
        ]
        if let status = response?.status { parts.append("status \(status)") }
        if let referenceID { parts.append("reference \(referenceID)") }
        if attempts > 1 { parts.append("attempts \(attempts)") }
        var text = "MendError(\(parts.joined(separator: ", "))): \(developerMessage)"
        if !additionalMessages.isEmpty { text += " [\(additionalMessages.joined(separator: "; "))]" }
        return Redactor.standard.redact(text: text)
    }

    /// ``description`` plus the redacted response excerpt and the underlying error.
    public var debugDescription: String {
        var text = description
        if let body = response?.body { text += "\n  body: \(body)\(response?.isBodyTruncated == true ? "…" : "")" }
        if let underlying {
            text += "\n  underlying: \(Redactor.standard.redact(text: String(describing: underlying)))"
        }
        return text
    }
}

extension MendError: LocalizedError {
    /// The localized user message (what `localizedDescription` returns).
    public var errorDescription: String? { userMessage }
    /// The localized user title.
    public var failureReason: String? { userTitle }
    /// The localized recovery suggestion.
    public var recoverySuggestion: String? { recoverySuggestion(language: MendLocalization.preferredLanguage) }
    /// The reference id to quote to support, as `helpAnchor` carries it on Apple platforms.
    public var helpAnchor: String? { referenceID }
}
