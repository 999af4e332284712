extension MendError {
    /// The family an error belongs to. An open set: other modules and apps may add domains.
    public struct Domain: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The domain's stable name, as it appears in `mend explain` and in JSON (`"graph"`).
        public var rawValue: String

        /// Creates a domain from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Plain HTTP statuses from an API without a decodable error body.
        public static let http = Domain(rawValue: "http")
        /// Failures before or below HTTP: offline, timeout, TLS, DNS, malformed or oversized responses.
        public static let transport = Domain(rawValue: "transport")

        /// The domain's stable name.
        public var description: String { rawValue }
    }
}
