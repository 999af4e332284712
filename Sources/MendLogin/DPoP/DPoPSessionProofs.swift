package import MendCore
package import MendHTTP

/// What the proofs of a session authority's sessions need (RFC 9449): the book of its servers' nonces and clocks, and
/// the prover of the current session's key, made once for that key rather than for every request.
///
/// A session authority (``BackendSessionClient``, ``OIDCSessionAuthority``) owns one and shares it with its copies;
/// the credentials manager hands its authority's to every credential it gives out, so the login's requests and the
/// app's API clients read and fill one book: a nonce any of them was given is the one all of them send.
package final class DPoPSessionProofs: Sendable {
    /// The nonces and clock offsets of the origins this authority's sessions prove to.
    package let nonces: DPoPNonceBook
    /// The last key a prover was made for, and that prover: one session's requests reuse it.
    private let current = Locked<(key: DPoPKey, prover: DPoPSessionProver)?>(nil)

    /// Proofs that read and fill `nonces` (a new book by default).
    package init(nonces: DPoPNonceBook = DPoPNonceBook()) {
        self.nonces = nonces
    }

    /// The prover of `key`: the one already made when `key` is the current one, else a new one that becomes current.
    ///
    /// - Throws: `session/19` when this device cannot use the key.
    package func prover(for key: DPoPKey) throws(MendError) -> DPoPSessionProver {
        if let made = current.withLock({ $0 }), made.key == key { return made.prover }
        let prover = try DPoPSessionProver(key: key)
        current.withLock { $0 = (key, prover) }
        return prover
    }

    /// The binding of a token endpoint's request that proves `key` (a login's new key, a bound session's refresh or
    /// revocation); `nil` for a bearer session (no key).
    package func binding(for key: DPoPKey?) throws(MendError) -> DPoPBinding? {
        guard let key else { return nil }
        return DPoPBinding(prover: try prover(for: key), nonces: nonces)
    }

    /// The credential `session`'s requests carry: bound to its key, reading this book, or a bearer one.
    ///
    /// - Throws: `session/19` when this device cannot use the session's key.
    package func credential(for session: Session) throws(MendError) -> Credential {
        guard let key = session.proofKey else { return Credential(token: session.accessToken.tokenString) }
        return Credential(token: session.accessToken.tokenString, prover: try prover(for: key), nonces: nonces)
    }
}

/// A session authority whose sessions may be DPoP-bound: the credentials manager makes its sessions' credentials
/// with the authority's ``DPoPSessionProofs``, and ``LoginManager`` asks it for a login's key before it builds the
/// authorization URL.
package protocol DPoPSessionAuthority: SessionAuthority {
    /// The authority's proofs: its nonce book, its current session's prover.
    var dpopProofs: DPoPSessionProofs { get }
    /// A new login's key when the authorization request should name it (`dpop_jkt`, RFC 9449 §10: the provider then
    /// binds the code to it, and the transaction carries it to the exchange, ``AuthorizationTransaction/proofKey``);
    /// `nil` when the login proves none there (a bearer login, a provider that does not speak DPoP, a backend that
    /// exchanges a provider's code).
    func makeLoginKey() throws -> DPoPKey?
}

extension DPoPSessionAuthority {
    /// No key named in the authorization request.
    package func makeLoginKey() throws -> DPoPKey? { nil }
}
