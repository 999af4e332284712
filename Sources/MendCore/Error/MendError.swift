public import Foundation

/// The one error that every part of Mend throws: typed, classified by the ``ErrorCatalog`` and recoverable.
///
/// A `MendError` says three things about a failure:
/// - **what** happened: ``domain``, ``code`` and ``subcode`` (its stable identity), plus ``developerMessage``;
/// - **what it means**: ``category`` (``Category-swift.enum/transient``, ``Category-swift.enum/recoverable``,
///   ``Category-swift.enum/other``) and the concrete ``recovery``;
/// - **what to tell the person**: ``userTitle`` and ``userMessage``, localized and safe to show (never raw codes),
///   and ``referenceID`` to quote to support.
///
/// Create one with ``init(code:subcode:developerMessage:isTransient:catalog:)`` (or a decoder in MendHTTP, MendGraphAPI or
/// MendGraphQL), which classifies it through the catalog:
///
/// ```swift
/// do {
///     let me = try await graph.send(GraphRequest(path: "me"))
/// } catch let error as MendError {
///     switch error.category {
///     case .transient: scheduleRetry(after: error.recovery.notBefore)
///     case .recoverable: presentRecovery(error.userMessage, options: error.recoveryOptions)
///     case .other: show(error.userMessage, reference: error.referenceID)
///     }
/// }
/// ```
///
/// Two errors are equal when their identity (domain, code and subcode) is equal; the other fields are context.
/// Every rendering (``description``, ``shortDescription``, ``errorDescription``, ``errorUserInfo``) is redacted:
/// tokens and secrets never appear in it.
public struct MendError: Error, Sendable {
    // Identity.

    /// The error's code, which also names its ``Domain`` (for example `.Graph.accessTokenInvalid`).
    public let code: Code
    /// The provider's finer-grained reason, when it sent one (Graph `error_subcode`, such as 463 for "expired").
    public let subcode: Subcode?

    // Classification: one value, never copied into fields of the error, so that nothing can drift.

    /// The catalog row this error was classified with, with the server's ``ErrorCatalog/Override`` applied when
    /// the server legitimately overrode the row (the provider's `is_transient`, Mend's wire shape).
    ///
    /// ``name``, ``category``, ``recovery``'s action, ``isAutomaticallyRetryable``, ``messageKey`` and
    /// ``isSecuritySensitive`` are all read from it.
    package private(set) var entry: ErrorCatalog.Entry

    // Context.

    /// A message for developers and logs. It may contain codes and server text; it never contains tokens or secrets.
    public var developerMessage: String
    /// The server's own localized title for the user (`error_user_title`), which wins over the catalog's.
    package var serverUserTitle: String?
    /// The server's own localized message for the user (`error_user_msg`), which wins over the catalog's.
    package var serverUserMessage: String?
    /// The server's trace or request id (`fbtrace_id`, `X-Request-Id`, `referenceId`) to quote to support.
    ///
    /// `nil` for errors that never reached the API; ``referenceIDOrNone`` renders those as `-1`.
    public var referenceID: String?
    /// A bounded, redacted excerpt of the HTTP response that caused the error, if there was one.
    public var response: ResponseExcerpt?
    /// Field-level details, such as validation errors, in the order the server sent them.
    public var additionalMessages: [String]
    /// The cause: a transport error, a decoding error, or the last error before retries gave up.
    public var underlying: (any Error & Sendable)?
    /// How many times the request was tried before this error was returned (0 if it was never sent).
    public var attempts: Int
    /// The permissions that the recovery requests (``Recovery/Action/requestPermissions``).
    package var requestedPermissions: [String]
    /// The earliest time a retry may be sent (from `Retry-After`, usage headers or backoff), if known.
    package var notBefore: Date?
    /// The attempter that `attemptRecovery(optionIndex:)` calls, when the app or a Mend module provided one.
    public var recoveryAttempter: (any ErrorRecoveryAttempter)?

    /// The error's domain: login, graph, REST, GraphQL, HTTP or transport.
    public var domain: Domain { code.domain }

    /// The catalog's name for this error (for example `tokenExpired`): stable, free of dynamic values.
    public var name: String { entry.name }

    /// Whether a retry may succeed (`transient`), an action fixes it (`recoverable`), or neither (`other`).
    public var category: Category { entry.category }

    /// The concrete action that resolves the error, with its parameters (a wait, the missing permissions).
    public var recovery: Recovery {
        Recovery(action: entry.recovery, permissions: requestedPermissions, notBefore: notBefore)
    }

    /// Whether the pipeline may retry this error automatically (false for, e.g., a policy block that lasts hours).
    package var isAutomaticallyRetryable: Bool { entry.isAutomaticallyRetryable }

    /// The localization key of the user-facing title and message.
    package var messageKey: MessageKey { entry.messageKey }

    /// Whether the error concerns security (a forged state, an invalid id_token): its user text stays generic.
    package var isSecuritySensitive: Bool { entry.isSecuritySensitive }

    /// Recovery text that the provider's error configuration supplied (already localized by the provider).
    var serverRecovery: ServerRecoveryText? { entry.providerRecovery }

    /// The HTTP status of the response that caused the error, if there was one.
    public var httpStatus: Int? {
        get { response?.status }
        set {
            if let newValue {
                if response == nil { response = ResponseExcerpt(status: newValue) } else { response?.status = newValue }
            } else {
                response?.status = nil
            }
        }
    }

    /// The reference id, or `"-1"` for an error that never reached the API (the BaaS SDK convention).
    public var referenceIDOrNone: String { referenceID ?? "-1" }

    /// Creates an error for `code` and `subcode`, classified through `catalog`.
    ///
    /// - Parameters:
    ///   - code: The error's code (its domain is part of it).
    ///   - subcode: The provider's subcode, if any.
    ///   - developerMessage: Text for logs; it is redacted before it is stored. Defaults to the catalog's summary.
    ///     A catalog row keyed by a phrase of the provider's message classifies the error when this text contains
    ///     the phrase (Graph's 2500 "An active access token must be used" is a login case).
    ///   - isTransient: The provider's own `is_transient` flag; `true` applies `providerTransient`.
    ///   - catalog: The catalog that classifies the error.
    public init(
        code: Code,
        subcode: Subcode? = nil,
        developerMessage: String? = nil,
        isTransient: Bool = false,
        catalog: ErrorCatalog
    ) {
        self.init(
            code: code, subcode: subcode, developerMessage: developerMessage, providerTexts: [],
            isTransient: isTransient,
            catalog: catalog)
    }

    /// Creates an error classified through `catalog`, where a row keyed by a phrase is looked for in the developer
    /// message and in the provider's other texts: its own user title and message (Graph's `error_user_title` and
    /// `error_user_msg`), which say what the message sometimes does not.
    package init(
        code: Code, subcode: Subcode?, developerMessage: String?, providerTexts: [String], isTransient: Bool,
        catalog: ErrorCatalog
    ) {
        let texts = ([developerMessage].compactMap { $0 } + providerTexts).filter { !$0.isEmpty }
        let entry = catalog.entry(
            code: code, subcode: subcode, message: texts.isEmpty ? nil : texts.joined(separator: "\n"))
        self.init(
            entry: isTransient ? entry.overridden(by: .providerTransient) : entry, code: code, subcode: subcode,
            developerMessage: developerMessage ?? entry.summary)
    }

    /// Creates an error from a catalog entry, for a concrete code and subcode that the entry matches.
    package init(entry: ErrorCatalog.Entry, code: Code, subcode: Subcode?, developerMessage: String) {
        self.code = code
        self.subcode = subcode
        self.entry = entry
        self.developerMessage = Redactor.standard.redact(text: developerMessage)
        self.serverUserTitle = nil
        self.serverUserMessage = nil
        self.referenceID = nil
        self.response = nil
        self.additionalMessages = []
        self.underlying = nil
        self.attempts = 0
        self.requestedPermissions = []
        self.notBefore = nil
        self.recoveryAttempter = nil
    }

    /// Applies a server's legitimate override of the classification (see ``ErrorCatalog/Override``), the only way
    /// an error's classification changes after it was created.
    package mutating func override(_ override: ErrorCatalog.Override) {
        entry = entry.overridden(by: override)
    }

    /// Returns a copy with `attempts` set, as the pipeline does when it gives up.
    package func withAttempts(_ attempts: Int) -> MendError {
        var copy = self
        copy.attempts = attempts
        return copy
    }
}

extension MendError: Equatable {
    /// Errors are equal when their identity (domain, code and subcode) is equal.
    public static func == (lhs: MendError, rhs: MendError) -> Bool {
        lhs.code == rhs.code && lhs.subcode == rhs.subcode
    }
}

extension MendError: Hashable {
    /// Hashes the identity (domain, code and subcode).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(subcode)
    }
}

extension MendError {
    /// Whether this error has the given code (and, when given, subcode): `error.matches(.Graph.accessTokenInvalid, .tokenExpired)`.
    public func matches(_ code: Code, _ subcode: Subcode? = nil) -> Bool {
        self.code == code && (subcode == nil || self.subcode == subcode)
    }
}
