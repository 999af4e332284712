extension MendError {
    /// The family an error belongs to. An open set: other modules and apps may add domains.
    public struct Domain: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The domain's stable name, as it appears in `mend explain` and in JSON (`"graph"`).
        public var rawValue: String

        /// Creates a domain from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Login errors, with the vendor SDK's codes 300–310.
        public static let login = Domain(rawValue: "login")
        /// Session errors of the app's backend (`mend-server`): an access token to refresh, or a session that ended
        /// and why. Only the "ended" codes (10–19) mean that the user must log in again.
        public static let session = Domain(rawValue: "session")
        /// Graph API errors: the provider's `{"error":{…}}` envelope and its codes.
        public static let graph = Domain(rawValue: "graph")
        /// The BaaS-style REST status error space (400 BadRequest … 512 DataAccessError, 100 UnknownCause).
        public static let rest = Domain(rawValue: "rest")
        /// GraphQL errors, keyed by `extensions.code`.
        public static let graphQL = Domain(rawValue: "graphql")
        /// Plain HTTP statuses from an API without a decodable error body.
        public static let http = Domain(rawValue: "http")
        /// Failures before or below HTTP: offline, timeout, TLS, DNS, malformed or oversized responses.
        public static let transport = Domain(rawValue: "transport")

        /// The domains that the standard catalog knows, in display order.
        public static let known: [Domain] = [.login, .session, .graph, .rest, .graphQL, .http, .transport]

        /// The domain's stable name.
        public var description: String { rawValue }

        /// The init.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the value (its stable form).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}
