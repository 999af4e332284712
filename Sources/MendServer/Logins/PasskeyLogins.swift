import Crypto
import Foundation
import Logging
import MendCore
import MendJOSE
import MendLogin
import MendWebAuthn

/// Passkeys (WebAuthn Level 3): a signed-in user adds one (a sign-in within ``ServerConfiguration/Passkeys/
/// recentSignInWindow``), then signs in with it alone — usernameless, or by autofill — and gets a session like any
/// login's (DPoP-bound when the client proves a key). Challenges are random, answered once on any instance (the
/// database's), and short-lived; the checks are MendWebAuthn's ``RelyingParty``.
struct PasskeyLogins: BackendPart {
    let services: BackendServices
    let settings: PasskeyConfiguration
    let store: any PasskeyStore
    let identities: any IdentityStore
    /// Authenticates the user routes and opens the sessions of passkey sign-ins.
    let sessions: SessionAuthority

    /// The ceremonies a challenge is issued for.
    enum Ceremony: String {
        case create
        case get
    }

    /// The relying party's checks, from the configuration.
    var party: RelyingParty {
        RelyingParty(
            id: settings.relyingPartyID ?? "", origins: Set(settings.acceptedOrigins),
            userVerification: settings.userVerification == .required ? .required : .preferred,
            counterPolicy: settings.counterPolicy == .report ? .report : .refuseDeviceBound)
    }

    private var userVerification: UserVerificationRequirement {
        settings.userVerification == .required ? .required : .preferred
    }

    // MARK: Adding a passkey

    /// `POST /v1/passkeys/registration/options`: `PublicKeyCredentialCreationOptionsJSON` for the signed-in user
    /// (their passkeys excluded), after a recent sign-in.
    func registrationOptions(_ request: PresentedRequest, client: SessionClient) async throws -> JSONValue {
        // The token first: a request without one is 401, never a 429 that spent the address's bucket.
        let user = try await recentlySignedIn(request)
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "passkey")
        let handle = try await store.userHandle(userID: user.id)
        let existing = try await store.passkeys(userID: user.id)
        let challenge = try await issueChallenge(.create, userID: user.id)
        let options = CreationOptions(
            rpID: settings.relyingPartyID ?? "", rpName: settings.relyingPartyName,
            userID: Base64URL.decodeCanonical(handle.utf8) ?? Array(handle.utf8), userName: user.email ?? user.name,
            userDisplayName: user.name, challenge: challenge,
            timeoutMilliseconds: Int(settings.challengeLifetime.seconds) * 1000,
            excludeCredentials: existing.compactMap { passkey in
                Base64URL.decodeCanonical(passkey.credentialID.utf8).map {
                    CredentialDescriptor(id: $0, transports: passkey.transports)
                }
            }, userVerification: userVerification)
        return options.json
    }

    /// `POST /v1/passkeys/registration`: verifies the new credential against the challenge issued to this user, and
    /// stores it.
    func register(
        _ request: PresentedRequest, credential json: JSONValue, name: String?, client: SessionClient, logger: Logger
    ) async throws -> PasskeyBody {
        let user = try await recentlySignedIn(request)
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "passkey")
        let response = try refusal { try RegistrationResponse(json: json) }
        let challenge = try await claimChallenge(of: response.clientDataJSON, .create, userID: user.id)
        let verified = try refusal { try party.verifyRegistration(response, challenge: challenge) }
        let record = PasskeyRecord(
            id: OpaqueToken.make(prefix: "pk_", bytes: 16), credentialID: Base64URL.encode(verified.id),
            userID: user.id, publicKey: Base64URL.encode(verified.publicKey), algorithm: verified.algorithm.rawValue,
            signCount: Int64(verified.signCount), backupEligible: verified.backupEligible, backedUp: verified.backedUp,
            userVerified: verified.userVerified, transports: response.transports.filter(Self.isTransport),
            aaguid: verified.aaguid.map { String(format: "%02x", $0) }.joined(),
            attestationFormat: verified.attestationFormat, name: Self.name(name, response: response),
            counterRegressedAt: nil, createdAt: now, lastUsedAt: nil)
        guard try await store.addPasskey(record) else {
            throw Self.failure(.Passkey.alreadyRegistered, "This credential is registered already.")
        }
        await audit(
            .passkeyAdded,
            AuditRecord(
                at: now, event: "", userID: user.id, provider: "passkey", detail: record.id,
                address: client.addressKey, client: client.name), logger: logger)
        return PasskeyBody(record)
    }

    // MARK: Signing in

    /// `POST /v1/login/passkey/options`: `PublicKeyCredentialRequestOptionsJSON` for a usernameless sign-in (any
    /// passkey of the RP ID; the browser's autofill — conditional mediation — takes the same options).
    func loginOptions(client: SessionClient) async throws -> JSONValue {
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "passkey")
        let challenge = try await issueChallenge(.get, userID: nil)
        return RequestOptions(
            challenge: challenge, rpID: settings.relyingPartyID ?? "", userVerification: userVerification,
            timeoutMilliseconds: Int(settings.challengeLifetime.seconds) * 1000
        ).json
    }

    /// `POST /v1/login/passkey`: verifies the assertion against the challenge and the passkey it names, then opens a
    /// session for its user. A passkey that is not here answers `passkey/4` with what the client tells the platform.
    func login(credential json: JSONValue, client: SessionClient, logger: Logger) async throws -> SessionBody {
        try await enforce(sessions.settings.rateLimits.loginPerAddress, address: client.address, action: "login")
        do {
            let response = try refusal { try AuthenticationResponse(json: json) }
            let challenge = try await claimChallenge(of: response.clientDataJSON, .get, userID: nil)
            let credentialID = Base64URL.encode(response.credentialID)
            guard let passkey = try await store.passkey(credentialID: credentialID),
                let user = try await identities.user(id: passkey.userID)
            else { throw unknownCredential(credentialID) }
            if let rule = sessions.settings.rateLimits.loginPerUser {
                try await enforce(rule, key: "login:passkey:\(user.id)", scope: "login per user")
            }
            let handle = try await store.userHandle(userID: user.id)
            let stored = RelyingParty.StoredCredential(
                id: response.credentialID, publicKey: Base64URL.decodeCanonical(passkey.publicKey.utf8) ?? [],
                signCount: UInt32(clamping: passkey.signCount), backupEligible: passkey.backupEligible,
                userHandle: Base64URL.decodeCanonical(handle.utf8) ?? [])
            let result = try refusal {
                try party.verifyAuthentication(response, challenge: challenge, credential: stored)
            }
            try await store.recordUse(
                id: passkey.id, signCount: Int64(result.signCount), backedUp: result.backedUp,
                regressed: result.counterRegressed, now: now)
            if result.counterRegressed {
                await audit(
                    .passkeyCounterRegressed,
                    AuditRecord(
                        at: now, event: "", userID: user.id, provider: "passkey",
                        detail: "\(passkey.id): \(result.signCount) after \(passkey.signCount)",
                        address: client.addressKey, client: client.name), logger: logger)
            }
            let session = try await sessions.openSession(
                for: user, client: client, provider: "passkey", flow: "passkey")
            metrics.login(outcome: "success")
            logger.info(
                "login",
                metadata: [
                    "provider": "passkey", "user_id": .string(user.id), "session_id": .string(session.sessionID),
                ])
            return sessions.sessionBody(session, providerToken: nil)
        } catch let failure as ServerFailure where failure.error.domain == .passkey {
            metrics.login(outcome: "rejected")
            await audit(
                .loginRefused,
                AuditRecord(
                    at: now, event: "", provider: "passkey", detail: "rejected: \(failure.error.shortDescription)",
                    address: client.addressKey, client: client.name), logger: logger)
            throw failure
        }
    }

    // MARK: The user's passkeys

    /// `GET /v1/passkeys`.
    func list(_ request: PresentedRequest) async throws -> JSONValue {
        let claims = try await sessions.authenticate(request)
        return PasskeyBody.list(try await store.passkeys(userID: claims.subject))
    }

    /// `PATCH /v1/passkeys/{id}`.
    func rename(
        _ request: PresentedRequest, id: String, name: String, client: SessionClient, logger: Logger
    ) async throws -> PasskeyBody {
        let claims = try await sessions.authenticate(request)
        guard try await store.renamePasskey(id: id, userID: claims.subject, name: name),
            let renamed = try await store.passkeys(userID: claims.subject).first(where: { $0.id == id })
        else { throw ServerFailure.notFound("The user has no passkey \(id).") }
        await audit(
            .passkeyRenamed,
            AuditRecord(
                at: now, event: "", userID: claims.subject, provider: "passkey", detail: id,
                address: client.addressKey, client: client.name), logger: logger)
        return PasskeyBody(renamed)
    }

    /// `DELETE /v1/passkeys/{id}`, and the admin API's: refused when it is the user's last way to sign in (no
    /// provider identity linked).
    func remove(id: String, userID: String, actor: String?, client: SessionClient?, logger: Logger) async throws {
        let passkeys = try await store.passkeys(userID: userID)
        guard passkeys.contains(where: { $0.id == id }) else {
            throw ServerFailure.notFound("The user has no passkey \(id).")
        }
        if passkeys.count == 1, try await identities.identities(userID: userID).isEmpty {
            throw Self.failure(
                .Passkey.lastSignInMethod, "This passkey is the account's last way to sign in: link a provider first.")
        }
        guard try await store.removePasskey(id: id, userID: userID) else {
            throw ServerFailure.notFound("The user has no passkey \(id).")
        }
        await audit(
            .passkeyRemoved,
            AuditRecord(
                at: now, event: "", userID: userID, provider: "passkey", detail: id, address: client?.addressKey,
                client: client?.name, actor: actor), logger: logger)
    }

    /// `DELETE /v1/passkeys/{id}` by the signed-in user.
    func remove(_ request: PresentedRequest, id: String, client: SessionClient, logger: Logger) async throws {
        let claims = try await sessions.authenticate(request)
        try await remove(id: id, userID: claims.subject, actor: nil, client: client, logger: logger)
    }

    // MARK: Challenges and refusals

    /// The user of `request`'s session, when that session began within the recent sign-in window.
    private func recentlySignedIn(_ request: PresentedRequest) async throws -> UserRecord {
        let claims = try await sessions.authenticate(request)
        guard let user = try await identities.user(id: claims.subject) else {
            throw ServerFailure.sessionEnded(.userDeleted)
        }
        guard let session = try await sessions.records.session(id: claims.sessionID),
            now - session.createdAt <= Int64(settings.recentSignInWindow.seconds)
        else {
            throw Self.failure(
                .Passkey.recentSignInRequired,
                "Adding a passkey needs a sign-in within the last \(DurationText.format(settings.recentSignInWindow)): "
                    + "sign in again, then add it.")
        }
        return user
    }

    private func issueChallenge(_ ceremony: Ceremony, userID: String?) async throws -> [UInt8] {
        let challenge = Array(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        try await store.insertChallenge(
            hash: Self.hash(challenge), ceremony: ceremony.rawValue, userID: userID,
            expiresAt: now + Int64(settings.challengeLifetime.seconds))
        return challenge
    }

    /// Claims the challenge the client data names, once: refused when it was never issued for this ceremony, was
    /// answered before, has expired, or was issued to another user.
    private func claimChallenge(
        of clientDataJSON: [UInt8], _ ceremony: Ceremony, userID: String?
    ) async throws -> [UInt8] {
        let clientData = try refusal { try CollectedClientData(clientDataJSON) }
        guard
            let claimed = try await store.claimChallenge(
                hash: Self.hash(clientData.challenge), ceremony: ceremony.rawValue)
        else {
            throw Self.failure(
                .Passkey.challengeInvalid,
                "The challenge was never issued here for this ceremony, or was answered already: start again.")
        }
        guard claimed.expiresAt >= now else {
            throw Self.failure(.Passkey.challengeInvalid, "The challenge expired: start again.")
        }
        guard claimed.userID == userID else {
            throw Self.failure(.Passkey.challengeInvalid, "The challenge was issued to another user: start again.")
        }
        return clientData.challenge
    }

    /// `passkey/4` naming the RP ID and the credential, for `signalUnknownCredential`.
    private func unknownCredential(_ credentialID: String) -> ServerFailure {
        var failure = Self.failure(
            .Passkey.unknownCredential,
            "No such passkey here: it was removed or never added. Sign in another way and add a new one.")
        failure.extraMembers["passkey"] = .object([
            "rp_id": .string(settings.relyingPartyID ?? ""), "credential_id": .string(credentialID),
        ])
        return failure
    }

    /// Runs a MendWebAuthn check; its refusal becomes the passkey code of its kind.
    private func refusal<T>(_ check: () throws -> T) throws -> T {
        do { return try check() } catch let error as WebAuthnError {
            throw Self.failure(Self.code(of: error.kind), error.reason + ".")
        }
    }

    static func code(of kind: WebAuthnError.Kind) -> MendError.Code {
        switch kind {
        case .challengeMismatch: .Passkey.challengeInvalid
        case .originNotAllowed, .rpIDMismatch: .Passkey.originNotAllowed
        case .userPresenceMissing, .userVerificationMissing: .Passkey.userVerificationMissing
        case .unsupportedAttestationFormat: .Passkey.unsupportedAttestation
        case .counterRegression: .Passkey.counterRegression
        case .malformed, .wrongCeremony, .algorithmNotAllowed, .attestationInvalid, .signatureInvalid,
            .credentialNotAllowed, .backupStateInvalid:
            .Passkey.verificationFailed
        }
    }

    static func failure(_ code: MendError.Code, _ message: String) -> ServerFailure {
        ServerFailure(MendError(code: code, developerMessage: message, catalog: .server))
    }

    static func hash(_ challenge: [UInt8]) -> String {
        SHA256.hash(data: challenge).map { String(format: "%02x", $0) }.joined()
    }

    static func isTransport(_ text: String) -> Bool {
        text.count <= 32 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// The name given, trimmed to 64 characters; else one from the authenticator's attachment.
    static func name(_ given: String?, response: RegistrationResponse) -> String {
        if let given, !given.isEmpty { return String(given.prefix(64)) }
        return response.authenticatorAttachment == "cross-platform" ? "Security key" : "Passkey"
    }
}

/// A passkey as the user and admin APIs show it.
struct PasskeyBody: Sendable {
    var id: String
    var name: String
    var createdAt: Int64
    var lastUsedAt: Int64?
    var backupEligible: Bool
    var backedUp: Bool
    var transports: [String]
    var aaguid: String
    var algorithm: Int64
    var counterRegressedAt: Int64?

    init(_ record: PasskeyRecord) {
        id = record.id
        name = record.name
        createdAt = record.createdAt
        lastUsedAt = record.lastUsedAt
        backupEligible = record.backupEligible
        backedUp = record.backedUp
        transports = record.transports
        aaguid = record.aaguid
        algorithm = record.algorithm
        counterRegressedAt = record.counterRegressedAt
    }

    /// The JSON of one passkey.
    var json: JSONValue {
        .object([
            "id": .string(id), "name": .string(name), "created_at": .int(Int(createdAt)),
            "last_used_at": lastUsedAt.map { .int(Int($0)) } ?? .null, "backup_eligible": .bool(backupEligible),
            "backed_up": .bool(backedUp), "transports": .array(transports.map(JSONValue.string)),
            "aaguid": .string(aaguid), "algorithm": .int(Int(algorithm)),
            "counter_regressed_at": counterRegressedAt.map { .int(Int($0)) } ?? .null,
        ])
    }

    /// `{"passkeys": [...]}`.
    static func list(_ records: [PasskeyRecord]) -> JSONValue {
        .object(["passkeys": .array(records.map { PasskeyBody($0).json })])
    }
}
