/// Whose answers a ``ResponseStore`` keeps: a user as their issuer names them.
///
/// Every stored answer belongs to one principal, and only that principal's requests are ever answered from it. A
/// signed-in session names its principal (MendLogin's `CredentialsManager`: the session's user and issuer); a client
/// without a session stores nothing unless the app names one (``StaticCredential/init(token:principal:)``).
public struct Principal: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The user's id at the issuer.
    public var subject: String
    /// Who issued the identity (a backend, a provider, an app's own name for it).
    public var issuer: String

    /// Creates a principal.
    public init(subject: String, issuer: String) {
        self.subject = subject
        self.issuer = issuer
    }

    /// `subject@issuer`.
    public var description: String { "\(subject)@\(issuer)" }

    /// The principal as one unambiguous line of text (the lengths keep `a@b` + `c` apart from `a` + `b@c`).
    package var canonicalText: String { "\(subject.utf8.count):\(subject)|\(issuer.utf8.count):\(issuer)" }
}
