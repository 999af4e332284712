import Foundation
import Logging
import MendCore
import MendHTTP

/// `POST /v1/session/revoke` (RFC 7009): a refresh token (current or any earlier one of its family) or an access token
/// (expired or not, if its signature verifies) ends its whole session. Anything else — unknown, malformed, already
/// revoked or expired — is no error (§2.2): the answer is 200 either way.
///
/// A token of a DPoP-bound session ends it only when the request carries a proof of the session's key (RFC 9449 is
/// silent on revocation; RFC 7009 takes the token as the credential, which a bound token alone is not): without one,
/// or with another key's, it ends nothing and is answered as an unknown token is — a thief holding the token alone
/// learns nothing and ends nothing. A proof the request carries is checked before the token is looked at, whatever
/// the token: an invalid one, or one without a required nonce, is refused (401) for every token alike.
struct TokenRevocation: BackendPart {
    let sessions: SessionAuthority
    var services: BackendServices { sessions.services }

    func revoke(_ body: RevocationRequestBody, request: PresentedRequest, logger: Logger) async throws {
        let dpop = sessions.dpop
        // Checked first, for every token: whether it refuses cannot tell a bound token from any other.
        let presented = try await dpop.tokenRequestKey(request, now: now, opensSession: false)
        let accessFirst = body.tokenTypeHint == "access_token"
        var named: SessionRecord?
        for tryAccess in accessFirst ? [true, false] : [false, true] where named == nil {
            named =
                try await tryAccess ? session(byAccessToken: body.token) : session(byRefreshToken: body.token)
        }
        guard let session = named else {
            metrics.revocation(outcome: "unknown_token")
            return
        }
        if dpop.mode != .off, let bound = session.proofKey {
            guard let presented, ConstantTime.equal(presented, bound) else {
                metrics.revocation(outcome: "key_not_proven")
                logger.info(
                    "revocation of a bound session's token without a proof of its key: nothing ended",
                    metadata: ["session_id": .string(session.id)])
                return
            }
        }
        let revoked = try await sessions.records.revokeSession(
            id: session.id, reason: .loggedOut, detail: "token revocation", now: now)
        metrics.revocation(outcome: revoked ? "revoked" : "already_ended")
        if revoked {
            metrics.sessionsEnded(reason: "revocation", count: 1)
            logger.info("session revoked (token revocation)", metadata: ["session_id": .string(session.id)])
        }
    }

    private func session(byRefreshToken token: String) async throws -> SessionRecord? {
        guard token.utf8.count <= 512,
            let record = try await sessions.records.refreshToken(hash: OpaqueToken.hash(token))
        else { return nil }
        return try await sessions.records.session(id: record.sessionID)
    }

    private func session(byAccessToken token: String) async throws -> SessionRecord? {
        guard token.utf8.count <= 8192,
            case .success(let claims) = sessions.signer.verifyIgnoringExpiry(token, now: clock.now()),
            let session = try await sessions.records.session(id: claims.sessionID), session.userID == claims.subject
        else { return nil }
        return session
    }
}
