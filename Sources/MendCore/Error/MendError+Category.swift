extension MendError {
    /// What kind of response an error calls for: the vendor SDK's three error categories.
    ///
    /// This set is closed by design (every error is exactly one of the three), so switching over it is exhaustive.
    public enum Category: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// Trying again later may succeed (a 5xx, a timeout, a rate limit). The pipeline retries these when safe.
        case transient
        /// An action by the user or the app fixes it: log in again, grant a permission, reload and reapply.
        case recoverable
        /// A bug or a permanent refusal: retrying the same request fails the same way.
        case other

        /// The category's stable name.
        public var description: String { rawValue }
    }
}
