/// A secret value (the app secret, an encryption key) whose descriptions never show it.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The value itself: read it only where it is used.
    public let value: String

    /// Wraps `value`.
    public init(_ value: String) { self.value = value }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
}
