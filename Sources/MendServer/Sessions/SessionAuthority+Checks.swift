import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin
import Tracing

extension SessionAuthority {
    // MARK: Authentication

    /// The token of an `Authorization: Bearer <token>` header, or `nil` when there is none or it is malformed.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let authorization = headers[.authorization] else { return nil }
        let bytes = authorization.utf8
        guard bytes.count > 7,
            zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 || ($0 == $1) })
        else { return nil }
        let rest = bytes.dropFirst(7).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var end = rest.endIndex
        while end > rest.startIndex, [UInt8(ascii: " "), UInt8(ascii: "\t")].contains(bytes[bytes.index(before: end)]) {
            end = bytes.index(before: end)
        }
        let token = String(Substring(rest[rest.startIndex..<end]))
        return token.isEmpty ? nil : token
    }

    /// The claims of a valid `Authorization: Bearer` access token whose session is active, or 401 with a session
    /// code: session/3 (no token), session/1 (expired), session/2 (not valid), or the session's end (session/10–17).
    ///
    /// The signature is checked on the caller's thread; whether the session ended comes from the ``RevocationView``
    /// while it is current, and from the database only while it is not (see ``RevocationView``).
    func authenticate(_ headers: HTTPFields) async throws -> AccessTokenClaims {
        guard let token = Self.bearerToken(headers) else {
            throw ServerFailure.session(
                .Session.accessTokenMissing, "Authorization: Bearer <access token> is required.")
        }
        let claims: AccessTokenClaims
        let (verified, cacheHit) = signer.verifyCached(token, now: clock.now())
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
    func introspect(_ headers: HTTPFields) async throws -> IntrospectionBody {
        let claims = try await authenticate(headers)
        return IntrospectionBody(
            valid: true, userID: claims.subject, scopes: claims.scopes, expiresAt: claims.expiresAt,
            sessionID: claims.sessionID)
    }
}
