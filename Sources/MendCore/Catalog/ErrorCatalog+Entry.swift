extension ErrorCatalog {
    /// One row of the catalog.
    public struct Entry: Sendable, Hashable, Codable {
        /// The domain the row belongs to.
        public var domain: MendError.Domain
        /// The codes the row matches: one code, a range (Graph 200–299), or `nil` for any code in the domain.
        public var codes: ClosedRange<Int>?
        /// The subcode the row matches, or `nil` for any.
        public var subcode: Int?
        /// A stable name, unique within the domain (`tokenExpired`).
        public var name: String
        /// The category errors of this row get.
        public var category: MendError.Category
        /// The recovery action errors of this row get.
        public var recovery: MendError.Recovery.Action
        /// The localized user title and message.
        public var messageKey: MendError.MessageKey
        /// A one-line English explanation for developers and the documentation.
        public var summary: String
        /// The name on the wire, where the provider uses names instead of numbers (GraphQL `extensions.code`).
        public var wireName: String?
        /// Whether the user sees only generic text for this error (forged state, invalid id_token).
        public var isSecuritySensitive: Bool
        /// Whether the pipeline may retry automatically (a transient error that lasts hours is not).
        public var isAutomaticallyRetryable: Bool
        /// Recovery text that a merged provider configuration supplied for this row (already localized).
        public var providerRecovery: MendError.ServerRecoveryText?
        /// The server's override this classification carries, when an error's server overrode its row; `nil` for
        /// the catalog's own rows. Set only by ``overridden(by:)``.
        public private(set) var override: Override?

        /// Creates an entry.
        public init(
            domain: MendError.Domain,
            codes: ClosedRange<Int>?,
            subcode: Int? = nil,
            name: String,
            category: MendError.Category,
            recovery: MendError.Recovery.Action,
            messageKey: MendError.MessageKey,
            summary: String,
            wireName: String? = nil,
            isSecuritySensitive: Bool = false,
            isAutomaticallyRetryable: Bool? = nil
        ) {
            self.domain = domain
            self.codes = codes
            self.subcode = subcode
            self.name = name
            self.category = category
            self.recovery = recovery
            self.messageKey = messageKey
            self.summary = summary
            self.wireName = wireName
            self.isSecuritySensitive = isSecuritySensitive
            self.isAutomaticallyRetryable = isAutomaticallyRetryable ?? (category == .transient)
        }

        /// This row with a server's legitimate override applied: the one place where an override turns into a
        /// category, a recovery action and a retry permission, so that they always agree.
        public func overridden(by override: Override) -> Entry {
            var entry = self
            entry.override = override
            switch override {
            case .providerTransient:
                entry.category = .transient
                entry.isAutomaticallyRetryable = true
                if recovery != .waitForRateLimit { entry.recovery = .retry }
            case .mendWire(let category, let action):
                entry.category = category
                entry.recovery = action
                // A stated "transient" is retried unless the row itself forbids automatic retries (a policy
                // block that lasts hours stays unretried, whoever calls it transient).
                entry.isAutomaticallyRetryable =
                    category == .transient && (self.category != .transient || isAutomaticallyRetryable)
            case .securityEvent:
                entry.isSecuritySensitive = true
            case .mostActionable(let leading, let hasPartialData):
                entry.category = leading.category
                entry.recovery = leading.recovery
                entry.isAutomaticallyRetryable = leading.isAutomaticallyRetryable
                entry.isSecuritySensitive = leading.isSecuritySensitive
                entry.messageKey = hasPartialData ? .partialContent : leading.messageKey
            }
            return entry
        }

        /// The row's code as text: `190`, `200–299` or `*`.
        package var codeText: String {
            guard let codes else { return "*" }
            return codes.count == 1 ? String(codes.lowerBound) : "\(codes.lowerBound)–\(codes.upperBound)"
        }

        /// The row's subcode as text: `463` or `*`.
        package var subcodeText: String { subcode.map(String.init) ?? "*" }

        var key: EntryKey { EntryKey(domain: domain, codes: codes, subcode: subcode) }

        static func unknown(in domain: MendError.Domain) -> Entry {
            Entry(
                domain: domain, codes: nil, name: "unknown", category: .other, recovery: .contactSupport,
                messageKey: .generic, summary: "An error that Mend's catalog does not know.")
        }
    }
}
