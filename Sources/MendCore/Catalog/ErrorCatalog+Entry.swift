import Foundation

extension ErrorCatalog {
    /// One row of the catalog: an immutable value shared by reference, so that every error classified with it
    /// carries one pointer instead of a copy of the row.
    public final class Entry: Sendable, Hashable, Codable {
        /// The domain the row belongs to.
        package let domain: MendError.Domain
        /// The codes the row matches: one code, a range (Graph 200–299), or `nil` for any code in the domain.
        package let codes: ClosedRange<Int>?
        /// The subcode the row matches, or `nil` for any.
        package let subcode: Int?
        /// A phrase the provider's message contains, compared without regard to case, for a code whose meaning the
        /// provider tells apart only in words (Graph's 2500 says "An active access token must be used" when a request
        /// carried no token, and "Unknown path components" for a mistyped path); `nil` for a row that matches by
        /// code and subcode alone. A row with a phrase is looked up before the rows without one. The phrase is looked
        /// for in the developer message and in the provider's own user title and message, when its decoder passes
        /// them (Graph's code 1 says "Please reduce the amount of data you're asking for" sometimes only there).
        package let messagePhrase: String?
        /// A stable name, unique within the domain (`tokenExpired`).
        package let name: String
        /// The category errors of this row get.
        package let category: MendError.Category
        /// The recovery action errors of this row get.
        package let recovery: MendError.Recovery.Action
        /// The localized user title and message.
        package let messageKey: MendError.MessageKey
        /// A one-line English explanation for developers and the documentation.
        package let summary: String
        /// The name on the wire, where the provider uses names instead of numbers (GraphQL `extensions.code`).
        package let wireName: String?
        /// Whether the user sees only generic text for this error (forged state, invalid id_token).
        package let isSecuritySensitive: Bool
        /// Whether the pipeline may retry automatically (a transient error that lasts hours is not).
        package let isAutomaticallyRetryable: Bool
        /// Recovery text that a merged provider configuration supplied for this row (already localized).
        package let providerRecovery: MendError.ServerRecoveryText?
        /// The server's override this classification carries, when an error's server overrode its row; `nil` for
        /// the catalog's own rows. Set only by ``overridden(by:)``.
        package let override: Override?

        /// Creates an entry.
        package init(
            domain: MendError.Domain,
            codes: ClosedRange<Int>?,
            subcode: Int? = nil,
            messagePhrase: String? = nil,
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
            self.providerRecovery = nil
            self.override = nil
            self.codes = codes
            self.subcode = subcode
            self.messagePhrase = messagePhrase
            self.name = name
            self.category = category
            self.recovery = recovery
            self.messageKey = messageKey
            self.summary = summary
            self.wireName = wireName
            self.isSecuritySensitive = isSecuritySensitive
            self.isAutomaticallyRetryable = isAutomaticallyRetryable ?? (category == .transient)
        }

        /// A copy with some fields replaced (the catalog's rows never change in place).
        private init(
            _ row: Entry, category: MendError.Category? = nil, recovery: MendError.Recovery.Action? = nil,
            messageKey: MendError.MessageKey? = nil, isSecuritySensitive: Bool? = nil,
            isAutomaticallyRetryable: Bool? = nil, providerRecovery: MendError.ServerRecoveryText?? = nil,
            override: Override?? = nil
        ) {
            domain = row.domain
            codes = row.codes
            subcode = row.subcode
            messagePhrase = row.messagePhrase
            name = row.name
            self.category = category ?? row.category
            self.recovery = recovery ?? row.recovery
            self.messageKey = messageKey ?? row.messageKey
            summary = row.summary
            wireName = row.wireName
            self.isSecuritySensitive = isSecuritySensitive ?? row.isSecuritySensitive
            self.isAutomaticallyRetryable = isAutomaticallyRetryable ?? row.isAutomaticallyRetryable
            self.providerRecovery = providerRecovery ?? row.providerRecovery
            self.override = override ?? row.override
        }

        /// This row with the recovery text a merged provider configuration supplied.
        func withProviderRecovery(_ text: MendError.ServerRecoveryText?) -> Entry {
            Entry(self, providerRecovery: .some(text))
        }

        /// This row with a server's legitimate override applied: the one place where an override turns into a
        /// category, a recovery action and a retry permission, so that they always agree.
        package func overridden(by override: Override) -> Entry {
            switch override {
            case .providerTransient where recovery == .reduceRequestSize:
                // The same request fails again, whatever the flag says: only a smaller one helps.
                return Entry(self, override: .some(override))
            case .providerTransient:
                return Entry(
                    self, category: .transient, recovery: recovery == .waitForRateLimit ? recovery : .retry,
                    isAutomaticallyRetryable: true, override: .some(override))
            case .mendWire(let category, let action):
                // A stated "transient" is retried unless the row itself forbids automatic retries (a policy
                // block that lasts hours stays unretried, whoever calls it transient).
                return Entry(
                    self, category: category, recovery: action,
                    isAutomaticallyRetryable: category == .transient
                        && (self.category != .transient || isAutomaticallyRetryable),
                    override: .some(override))
            case .securityEvent:
                return Entry(self, isSecuritySensitive: true, override: .some(override))
            case .mostActionable(let leading, let hasPartialData):
                return Entry(
                    self, category: leading.category, recovery: leading.recovery,
                    messageKey: hasPartialData ? .partialContent : leading.messageKey,
                    isSecuritySensitive: leading.isSecuritySensitive,
                    isAutomaticallyRetryable: leading.isAutomaticallyRetryable, override: .some(override))
            }
        }

        /// Rows are equal when every field is.
        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs === rhs
                || (lhs.domain == rhs.domain && lhs.codes == rhs.codes && lhs.subcode == rhs.subcode
                    && lhs.messagePhrase == rhs.messagePhrase && lhs.name == rhs.name && lhs.category == rhs.category
                    && lhs.recovery == rhs.recovery
                    && lhs.messageKey == rhs.messageKey && lhs.summary == rhs.summary && lhs.wireName == rhs.wireName
                    && lhs.isSecuritySensitive == rhs.isSecuritySensitive
                    && lhs.isAutomaticallyRetryable == rhs.isAutomaticallyRetryable
                    && lhs.providerRecovery == rhs.providerRecovery && lhs.override == rhs.override)
        }

        /// Hashes the row's identity (domain, codes, subcode, message phrase, name).
        public func hash(into hasher: inout Hasher) {
            hasher.combine(domain)
            hasher.combine(codes)
            hasher.combine(subcode)
            hasher.combine(messagePhrase)
            hasher.combine(name)
        }

        /// The row's code as text: `190`, `200–299` or `*`.
        package var codeText: String {
            guard let codes else { return "*" }
            return codes.count == 1 ? String(codes.lowerBound) : "\(codes.lowerBound)–\(codes.upperBound)"
        }

        /// The row's subcode as text: `463` or `*`.
        package var subcodeText: String { subcode.map(String.init) ?? "*" }

        var key: EntryKey { EntryKey(domain: domain, codes: codes, subcode: subcode, messagePhrase: messagePhrase) }

        /// Whether this row's phrase occurs in `message` (without regard to case); `false` for a row without one.
        func phraseOccurs(in message: String) -> Bool {
            guard let messagePhrase else { return false }
            return message.range(of: messagePhrase, options: .caseInsensitive) != nil
        }

        static func unknown(in domain: MendError.Domain) -> Entry {
            Entry(
                domain: domain, codes: nil, name: "unknown", category: .other, recovery: .contactSupport,
                messageKey: .generic, summary: "An error that Mend's catalog does not know.")
        }
    }
}
