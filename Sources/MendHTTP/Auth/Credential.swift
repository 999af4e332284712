public import MendCore

/// A secret that authorizes requests (an access token), and how it is attached.
///
/// Its token never appears in any rendering: `description`, `debugDescription` and string interpolation all print
/// a redacted form, so a credential can be logged by mistake without leaking.
public struct Credential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where the token goes.
    public enum Placement: Sendable, Hashable {
        /// `Authorization: Bearer <token>`.
        case bearerHeader
        /// `Authorization: <scheme> <token>` (for example `OAuth`).
        case authorizationHeader(scheme: String)
        /// A query parameter (`access_token=<token>`), as the Graph API also accepts.
        case queryParameter(name: String)
        /// A header of its own (`X-Api-Key: <token>`).
        case header(name: String)
    }

    /// The secret itself. Read it only to send it.
    public let token: String
    /// Where the token goes.
    public var placement: Placement
    /// An identifier of the credential that is safe to log and compare (not the token), if the issuer gave one.
    public var identifier: String?

    /// Creates a credential.
    public init(token: String, placement: Placement = .bearerHeader, identifier: String? = nil) {
        self.token = token
        self.placement = placement
        self.identifier = identifier
    }

    /// `Credential(<redacted>, …a1b2)`: the last four characters at most, for telling credentials apart in logs.
    public var description: String {
        let hint = token.count >= 24 ? "…" + token.suffix(4) : ""
        return "Credential(<redacted>\(hint.isEmpty ? "" : ", \(hint)"))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}

/// Supplies the credential for requests and refreshes it when the server rejects it.
///
/// MendLogin's credentials manager implements this; apps with their own token logic can too.
public protocol CredentialProvider: Sendable {
    /// The credential to attach now, or `nil` to send the request without one.
    func currentCredential() async throws -> Credential?

    /// Returns a fresh credential after the server rejected `rejected` with `error` (a refresh, or a new login).
    ///
    /// The pipeline calls this once for any number of concurrent rejections of the same credential. Throwing fails
    /// every waiting request with the thrown error (a `MendError`, ideally; rethrow `error` when nothing helps).
    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential

    /// Forgets `credential`, which the server rejected with `error`. The pipeline calls this before
    /// ``refreshCredential(rejected:error:)`` (once for any number of concurrent rejections), and alone when the
    /// request does not re-authenticate (``CredentialRejection/invalidate``).
    func invalidate(_ credential: Credential, because error: MendError) async
}

extension CredentialProvider {
    /// Does nothing: a provider whose refresh replaces the credential needs no separate step.
    public func invalidate(_ credential: Credential, because error: MendError) async {}
}
