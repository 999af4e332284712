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
    package var placement: Placement
    /// An identifier of the credential that is safe to log and compare (not the token), if the issuer gave one.
    var identifier: String?
    /// Proves possession of the key the token is bound to (DPoP), or `nil` for a bearer token.
    package let prover: (any DPoPProver)?
    /// The book of nonces and clocks the proofs read (the session's, which every client serving it shares); `nil`:
    /// the client's own.
    package let nonces: DPoPNonceBook?

    /// Creates a credential.
    public init(token: String, placement: Placement = .bearerHeader, identifier: String? = nil) {
        self.token = token
        self.placement = placement
        self.identifier = identifier
        self.prover = nil
        self.nonces = nil
    }

    /// Creates a DPoP-bound credential (RFC 9449): requests carry `Authorization: DPoP <token>` and a proof from
    /// `prover`, a new one on every attempt.
    public init(token: String, prover: any DPoPProver, identifier: String? = nil) {
        self.init(token: token, prover: prover, nonces: nil, identifier: identifier)
    }

    /// A DPoP-bound credential whose proofs read, and whose answers fill, `nonces` (a session's book; `nil`: the
    /// client's).
    package init(token: String, prover: any DPoPProver, nonces: DPoPNonceBook?, identifier: String? = nil) {
        self.token = token
        self.placement = .authorizationHeader(scheme: "DPoP")
        self.identifier = identifier
        self.prover = prover
        self.nonces = nonces
    }

    /// Whether the token is DPoP-bound.
    package var isProofBound: Bool { prover != nil }

    /// Equal tokens, placements and identifiers, both bound or both bearer (provers are not compared).
    public static func == (lhs: Credential, rhs: Credential) -> Bool {
        lhs.token == rhs.token && lhs.placement == rhs.placement && lhs.identifier == rhs.identifier
            && lhs.isProofBound == rhs.isProofBound
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(token)
        hasher.combine(placement)
        hasher.combine(identifier)
        hasher.combine(isProofBound)
    }

    /// `Credential(<redacted>, …a1b2)`: the last four characters at most, for telling credentials apart in logs.
    public var description: String {
        let hint = token.count >= 24 ? "…" + token.suffix(4) : ""
        return "Credential(<redacted>\(hint.isEmpty ? "" : ", \(hint)")\(isProofBound ? ", DPoP" : ""))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}

/// The one way an API client gets and renews its credential.
///
/// The pipeline's authorization step asks for the current credential before each request; when the server rejects it (the
/// client's rejection rule matches the error, such as a 401 or the Graph API's 190), the step calls
/// ``invalidate(_:because:)``, then ``refreshCredential(rejected:error:)``, and replays the request once with what that
/// returns. A second rejection is returned to the caller, never looped.
///
/// Implementations: ``StaticCredential`` (a fixed token), MendLogin's `CredentialsManager` (the session: refresh
/// it) and `SessionCredentials` (refresh the session, else log in again), or an app's own.
///
/// Concurrent requests rejected with the same credential each call ``refreshCredential(rejected:error:)``: an
/// implementation shares one renewal among them, and answers a rejection of a credential it has already replaced
/// with the newer one, without renewing again — ``CredentialRenewal`` does both (Mend's providers share their
/// refreshes and logins this way).
public protocol CredentialProvider: Sendable {
    /// The credential to attach now, or `nil` to send the request without one.
    func currentCredential() async throws -> Credential?

    /// Returns a fresh credential after the server rejected `rejected` with `error` (a refresh, or a new login).
    ///
    /// Throwing fails the request with the thrown error (a `MendError`, ideally; rethrow `error` when nothing helps).
    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential

    /// Forgets `credential`, which the server rejected with `error`. The pipeline calls this before
    /// ``refreshCredential(rejected:error:)``, and alone when the request does not re-authenticate
    /// (``CredentialRejection/invalidate``).
    func invalidate(_ credential: Credential, because error: MendError) async

    /// Whose credential it is: the principal a ``ResponseStore`` keys the user's answers by (``LastKnownGood``);
    /// `nil` when nobody is signed in or the provider cannot say — then nothing is stored or served.
    func principal() async throws -> Principal?
}

extension CredentialProvider {
    /// Does nothing: a provider whose refresh replaces the credential needs no separate step.
    public func invalidate(_ credential: Credential, because error: MendError) async {}

    /// Nobody: a provider that names no principal gets no stored answers.
    public func principal() async throws -> Principal? { nil }
}

/// A fixed credential, for scripts, servers and tests: it is attached until the server rejects it, then forgotten
/// (the rejecting error is kept in `invalidation`) until ``set(_:)`` gives a new one. It never refreshes: a
/// rejection fails the request.
///
/// ```swift
/// let graph = GraphClient(transport: transport, credentials: StaticCredential(token: accessToken))
/// ```
public final class StaticCredential: CredentialProvider {
    private let state: Locked<(credential: Credential?, invalidation: MendError?)>
    private let owner: Principal?

    /// Serves `token` (in the `Authorization: Bearer` header unless the client places tokens elsewhere).
    ///
    /// - Parameters:
    ///   - token: The token.
    ///   - principal: Whose token it is, for a ``ResponseStore`` (``LastKnownGood``); `nil`: nothing is stored.
    public convenience init(token: String?, principal: Principal? = nil) {
        self.init(token.map { Credential(token: $0) }, principal: principal)
    }

    /// Serves `credential`.
    package init(_ credential: Credential?, principal: Principal? = nil) {
        state = Locked((credential, nil))
        owner = principal
    }

    /// The principal given at creation, while a credential is set.
    public func principal() async throws -> Principal? {
        state.withLock { $0.credential } == nil ? nil : owner
    }

    /// The error that invalidated the credential, if one did since the last ``set(_:)``.
    package var invalidation: MendError? { state.withLock { $0.invalidation } }

    /// Replaces the credential (a new login), forgetting any invalidation.
    public func set(_ credential: Credential?) {
        state.withLock { $0 = (credential, nil) }
    }

    /// The credential, until it is invalidated.
    public func currentCredential() async throws -> Credential? { state.withLock { $0.credential } }

    /// Forgets the credential if it is the current one.
    public func invalidate(_ credential: Credential, because error: MendError) async {
        state.withLock { state in
            guard state.credential?.token == credential.token else { return }
            state = (nil, error)
        }
    }

    /// Nothing renews a fixed credential: the current one when it already replaced `rejected`, else `error`.
    public func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        guard let current = state.withLock({ $0.credential }), current.token != rejected.token else { throw error }
        return current
    }
}
