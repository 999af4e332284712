import Foundation
import HTTPTypes
import Logging
import MendCore
import MendDPoPCheck
import MendHTTP
import MendLogin
import Tracing

extension SessionAuthority {
    // MARK: Authentication

    /// The token of an `Authorization: Bearer <token>` header, or `nil` when there is none or it is malformed.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        PresentedRequest.authorization(headers).flatMap { PresentedRequest.token($0, scheme: "bearer ") }
    }

    /// The claims of a valid access token whose session is active, or 401 with a session code: session/3 (no
    /// token), session/1 (expired), session/2 (not valid), the session's end (session/10–17), or a DPoP refusal
    /// (session/20, session/21).
    ///
    /// The signature is checked on the caller's thread (once per token: the verified-token cache); whether the
    /// session ended comes from the ``RevocationView`` while it is current, and from the database only while it is
    /// not (see ``RevocationView``). A token bound to a key (`cnf.jkt`) is accepted only as `Authorization: DPoP` with
    /// a proof of that key for this very request — checked on every request, the cache's hits included.
    func authenticate(_ request: PresentedRequest) async throws -> AccessTokenClaims {
        guard let (token, isDPoP) = request.presentedToken else {
            throw ServerFailure.session(
                .Session.accessTokenMissing, "Authorization: Bearer <access token> is required.")
        }
        let claims: AccessTokenClaims
        let (verified, proofHash, cacheHit) = signer.verifyCached(token, now: clock.now())
        if let cacheHit { metrics.tokenCache(hit: cacheHit) }
        switch verified {
        case .success(let verified): claims = verified
        case .failure(.expired):
            throw ServerFailure.session(
                .Session.accessTokenExpired, "The access token has expired; refresh the session, then retry.")
        case .failure(let rejection):
            throw ServerFailure.session(
                .Session.accessTokenInvalid,
                "The access token is not valid (\(rejection)); refresh the session, then retry.")
        }
        try await checkBinding(
            of: claims, token: token, proofHash: proofHash, presentedAsDPoP: isDPoP, request: request)
        try await ServerTracing.withSpan("mend.session.check") { span in
            switch revocations.status(of: claims.sessionID) {
            case .active:
                metrics.sessionCheck(fromDatabase: false)
                span?.attributes["mend.session.source"] = "view"
            case .ended(let ending):
                metrics.sessionCheck(fromDatabase: false)
                span?.attributes["mend.session.source"] = "view"
                throw ServerFailure.sessionEnded(storedReason: ending.reason, detail: ending.detail)
            case .unknown:
                metrics.sessionCheck(fromDatabase: true)
                span?.attributes["mend.session.source"] = "database"
                try await requireActiveSession(of: claims)
            }
        }
        return claims
    }

    /// The nonce the server issues now (`nil` when it requires none).
    @Sendable func currentDPoPNonce() -> String? {
        dpop.currentNonce(now: Int64(clock.now().timeIntervalSince1970))
    }

    /// A bound token only with `DPoP` and a proof of its key; a bearer token only with `Bearer` (RFC 9449 §7.1) — and,
    /// with `MEND_DPOP=required`, none. With `MEND_DPOP=off` a bound token is taken as a bearer one. `proofHash` is the
    /// token's `ath` when the verified-token cache keeps it.
    private func checkBinding(
        of claims: AccessTokenClaims, token: String, proofHash: String?, presentedAsDPoP: Bool,
        request: PresentedRequest
    ) async throws {
        guard dpop.mode != .off else { return }
        let now = Int64(clock.now().timeIntervalSince1970)
        if let jkt = claims.confirmation?.jkt {
            guard presentedAsDPoP else {
                throw ServerFailure.dpop(
                    .invalid("the access token is bound to a key: send it as Authorization: DPoP, with a proof"),
                    nonce: dpop.currentNonce(now: now))
            }
            try await dpop.requireProof(
                request, accessToken: token, hash: proofHash, boundTo: jkt, now: now)
        } else if presentedAsDPoP {
            throw ServerFailure.session(
                .Session.accessTokenInvalid, "The access token is not bound to a key: send it as Authorization: Bearer."
            )
        } else if dpop.mode == .required {
            throw ServerFailure.dpop(.invalid("this server binds every session; log in again with DPoP"), nonce: nil)
        }
    }

    /// Reads the session an access token names from the database: 401 with why it ended unless it is active.
    private func requireActiveSession(of claims: AccessTokenClaims) async throws {
        guard let session = try await records.session(id: claims.sessionID), session.userID == claims.subject else {
            // A session row goes with its user (data deletion), or is purged long after it expired.
            if try await users.user(id: claims.subject) == nil { throw ServerFailure.sessionEnded(.userDeleted) }
            throw ServerFailure.sessionEnded(nil, detail: "the session no longer exists")
        }
        if session.revokedAt != nil { throw ServerFailure.sessionEnded(session) }
        guard now < session.expiresAt else {
            throw ServerFailure.session(.Session.sessionExpired, "The session has expired; log in again.")
        }
    }

    /// `GET /v1/session`.
    func introspect(_ request: PresentedRequest) async throws -> IntrospectionBody {
        let claims = try await authenticate(request)
        return IntrospectionBody(
            valid: true, userID: claims.subject, scope: claims.scope, expiresAt: claims.expiresAt,
            sessionID: claims.sessionID)
    }
}
