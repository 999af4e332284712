import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendLogin
@_spi(MendFuzzing) import MendSignedRequest

/// The Facebook app's callbacks: `deauthorize`, `data-deletion` and the deletion status, each `signed_request` checked
/// once on every instance.
struct ProviderCallbacks: BackendPart {
    let services: BackendServices
    /// The configured Facebook app's calls (`nil` without one: the callbacks answer 404).
    let facebook: ProviderGateway?
    /// The handled `signed_request` digests and the data-deletion confirmations.
    let codes: any CodeStore
    /// The users, named by their Facebook id, and their identities.
    let identities: any IdentityStore
    /// The sessions the callbacks end.
    let sessionRecords: any SessionStore

    /// Verifies a callback's `signed_request` and that it was not handled before, or throws 400 (malformed) / 401
    /// (signature, algorithm, age, or seen before: a replay within its window). Call ``remember(_:)`` with the result
    /// once the callback has been handled: a callback that failed half-way may come again from the provider.
    func acceptedCallback(_ signedRequest: String?) async throws -> AcceptedCallback {
        let (payload, app) = try verifiedCallback(signedRequest)
        // The payload part is covered by the signature, so its digest names the request whatever the signature's
        // encoding; it is remembered until the request would be refused as too old.
        let encodedPayload = signedRequest?.split(separator: ".", maxSplits: 1).last.map(String.init) ?? ""
        let accepted = AcceptedCallback(
            payload: payload, digest: OpaqueToken.hash(encodedPayload),
            expiresAt: payload.issuedAt + Int64(app.signedRequestMaxAge.components.seconds)
                + SignedRequest.clockSkew)
        guard try await !codes.hasSeenSignedRequest(digest: accepted.digest, now: now) else {
            metrics.validityCheck(outcome: "signed_request_rejected")
            throw ServerFailure(
                MendError(
                    code: .REST.accessDenied, developerMessage: "This signed_request was already used.",
                    catalog: .server))
        }
        return accepted
    }

    /// Remembers a handled callback, so that a replay is refused on every instance.
    func remember(_ callback: AcceptedCallback) async throws {
        try await codes.rememberSignedRequest(digest: callback.digest, expiresAt: callback.expiresAt, now: now)
    }

    /// Verifies a callback's `signed_request` with the Facebook app's secret, or throws 400 (malformed) / 401
    /// (signature, algorithm, age), or 404 without a Facebook app.
    func verifiedCallback(_ signedRequest: String?) throws -> (SignedRequest.Payload, FacebookApp) {
        guard let app = facebook?.app else {
            throw ServerFailure.notFound("No Facebook app is configured here (MEND_APP_ID): it has no callbacks.")
        }
        guard let signedRequest, !signedRequest.isEmpty else {
            throw ServerFailure.badRequest("signed_request is missing.")
        }
        switch SignedRequest.verify(
            signedRequest, secret: app.appSecret.value, now: clock.now(),
            maximumAge: app.signedRequestMaxAge)
        {
        case .success(let payload):
            return (payload, app)
        case .failure(let rejection):
            metrics.validityCheck(outcome: "signed_request_rejected")
            switch rejection {
            // Its syntax was checked with the request (RequestSchema.signedRequest): one that does not verify,
            // whatever its payload holds, is not authentic (401); only a verified one without a user is a 400.
            case .missingUser: throw ServerFailure.badRequest(rejection.description + ".")
            default:
                throw ServerFailure(
                    MendError(
                        code: .REST.accessDenied, developerMessage: rejection.description + ".", catalog: .server))
            }
        }
    }

    /// `POST /v1/provider/deauthorize`: the user removed the app: end their sessions and forget the token.
    func deauthorize(signedRequest: String?, logger: Logger) async throws -> Int {
        let callback = try await acceptedCallback(signedRequest)
        let payload = callback.payload
        let user = try await identities.user(providerUserID: payload.userID)
        await audit(
            .callbackReceived,
            AuditRecord(at: now, event: "", userID: user?.id, provider: "facebook", detail: "deauthorize"),
            logger: logger)
        guard let user else {
            try await remember(callback)
            return 0
        }
        let detail = "the user removed the app (deauthorize callback)"
        try await identities.recordTokenCheck(
            provider: "facebook", subject: payload.userID, now: now, invalidReason: detail)
        let reason = SessionEndReason.deauthorized
        let ended = try await sessionRecords.revokeSessions(userID: user.id, reason: reason, detail: detail, now: now)
        metrics.sessionsEnded(reason: reason.metricsLabel, count: ended)
        logger.info("deauthorized", metadata: ["user_id": .string(user.id), "sessions": .stringConvertible(ended)])
        try await remember(callback)
        return ended
    }

    /// `POST /v1/provider/data-deletion`: delete the user's data and record the request under a confirmation code.
    func requestDeletion(signedRequest: String?, logger: Logger) async throws -> DeletionRecord {
        let callback = try await acceptedCallback(signedRequest)
        let payload = callback.payload
        let current = now
        let user = try await identities.user(providerUserID: payload.userID)
        await audit(
            .callbackReceived,
            AuditRecord(at: current, event: "", userID: user?.id, provider: "facebook", detail: "data_deletion"),
            logger: logger)
        if let user {
            let reason = SessionEndReason.userDeleted
            let (_, ended) = try await identities.deleteUser(
                id: user.id, reason: reason, detail: "data deletion requested", now: current)
            metrics.sessionsEnded(reason: reason.metricsLabel, count: ended)
            logger.info("user data deleted", metadata: ["user_id": .string(user.id)])
        }
        let record = DeletionRecord(
            confirmationCode: OpaqueToken.alphanumeric(16), providerUserID: payload.userID, status: "completed",
            requestedAt: current, completedAt: current)
        try await codes.recordDeletion(record)
        try await remember(callback)
        return record
    }

    /// `GET /v1/provider/deletion/{code}`.
    func deletionStatus(confirmationCode: String) async throws -> DeletionRecord {
        guard confirmationCode.count <= 64, let record = try await codes.deletion(confirmationCode: confirmationCode)
        else { throw ServerFailure.notFound("No data-deletion request has this confirmation code.") }
        return record
    }
}

/// A verified `signed_request` that was not handled before, and how long to remember it once it has been.
struct AcceptedCallback: Sendable {
    var payload: SignedRequest.Payload
    var digest: String
    var expiresAt: Int64
}
