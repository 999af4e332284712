/// A family of errors and their catalog rows, declared by the module that decodes them.
///
/// MendCore declares the spaces every client speaks (``http`` and ``transport``); MendHTTP the REST status space,
/// MendGraphAPI the Graph space, MendGraphQL the GraphQL space, MendLogin the login and session spaces. A module
/// that speaks another provider's errors declares its own space the same way, without touching MendCore:
///
/// ```swift
/// extension MendError.Domain {
///     public static let acme = Self(rawValue: "acme")
/// }
///
/// extension MendError.Code {
///     public enum Acme {
///         public static let quotaExceeded = MendError.Code(.acme, 7)
///     }
/// }
///
/// extension ErrorSpace {
///     public static let acme = ErrorSpace(domain: .acme, entries: [
///         .row(.acme, nil, "acmeError", .other, .contactSupport, .generic, "An Acme error without a row."),
///         .row(.acme, 7, "quotaExceeded", .transient, .waitForRateLimit, .rateLimited, "Wait for the quota."),
///     ])
/// }
///
/// let catalog = ErrorCatalog.core.adding(.acme)
/// ```
public struct ErrorSpace: Sendable {
    /// The domain whose errors the space classifies.
    package let domain: MendError.Domain
    /// The rows, in display order. A row with `codes == nil` is the domain's catch-all.
    package let entries: [ErrorCatalog.Entry]

    /// Creates a space. Every entry must belong to `domain`.
    public init(domain: MendError.Domain, entries: [ErrorCatalog.Entry]) {
        precondition(entries.allSatisfy { $0.domain == domain }, "Every row of the \(domain) space must be in it.")
        self.domain = domain
        self.entries = entries
    }
}

extension ErrorCatalog.Entry {
    /// A compact constructor for the tables of error spaces: one line per row.
    ///
    /// - Parameters:
    ///   - domain: The row's domain.
    ///   - code: The code it matches, or `nil` for any code of the domain.
    ///   - subcode: The subcode it matches, or `nil` for any.
    ///   - phrase: A phrase the provider's message contains (without regard to case), for a code the provider tells
    ///     apart only in words; such a row is looked up before the rows of its code without one.
    ///   - name: A stable name, unique within the domain.
    ///   - category: The category its errors get.
    ///   - recovery: The recovery action its errors get.
    ///   - key: The user message's localization key.
    ///   - summary: A one-line English explanation for developers and the documentation.
    ///   - wire: The name on the wire, where the provider uses names instead of numbers.
    ///   - security: Whether the user sees only generic text.
    ///   - autoRetry: Whether the pipeline may retry automatically (default: when transient).
    public static func row(
        _ domain: MendError.Domain, _ code: Int?, sub subcode: Int? = nil, message phrase: String? = nil,
        _ name: String,
        _ category: MendError.Category, _ recovery: MendError.Recovery.Action, _ key: MendError.MessageKey,
        _ summary: String, wire: String? = nil, security: Bool = false, autoRetry: Bool? = nil
    ) -> Self {
        Self(
            domain: domain, codes: code.map { $0...$0 }, subcode: subcode, messagePhrase: phrase, name: name,
            category: category,
            recovery: recovery, messageKey: key, summary: summary, wireName: wire, isSecuritySensitive: security,
            isAutomaticallyRetryable: autoRetry)
    }
}
