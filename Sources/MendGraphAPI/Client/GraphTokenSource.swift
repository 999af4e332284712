public import MendCore

/// Where the Graph client gets the user's access token, and what it tells when the token dies.
///
/// MendLogin's credentials manager implements this (clearing the stored token and signing the user out with the
/// reason); ``StaticGraphToken`` serves a fixed token for scripts, servers and tests.
public protocol GraphTokenSource: Sendable {
    /// The access token to use now, or `nil` when nobody is logged in.
    func currentAccessToken() async throws -> String?

    /// The provider rejected `token` with `error` (a 102 or 190: the subcode says why — expired, password changed,
    /// app removed, checkpointed). Clear it, so that it is never sent again.
    func invalidate(token: String, because error: MendError) async
}

/// A fixed token; invalidation forgets it.
public actor StaticGraphToken: GraphTokenSource {
    private var token: String?
    /// The error that invalidated the token, if one did.
    public private(set) var invalidation: MendError?

    /// Creates a source serving `token`.
    public init(_ token: String?) { self.token = token }

    /// The token, until it is invalidated.
    public func currentAccessToken() async throws -> String? { token }

    /// Forgets the token if it is the current one.
    public func invalidate(token: String, because error: MendError) async {
        guard self.token == token else { return }
        self.token = nil
        invalidation = error
    }

    /// Replaces the token (a new login).
    public func set(_ token: String?) {
        self.token = token
        invalidation = nil
    }
}
