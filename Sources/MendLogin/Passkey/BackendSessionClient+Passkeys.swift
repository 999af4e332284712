public import Foundation
import HTTPTypes
import MendCore
public import MendHTTP

/// One of the user's passkeys at the backend, as `GET /v1/passkeys` lists it.
public struct BackendPasskey: Sendable, Hashable, Decodable {
    /// The passkey's id at the backend (`DELETE /v1/passkeys/{id}` removes it); not its credential ID.
    public var id: String
    /// The name the user gave it, or one the backend chose (`Passkey`, `Security key`).
    public var name: String
    /// When it was added.
    public var createdAt: Date
    /// When it last signed in; `nil` before its first sign-in.
    public var lastUsedAt: Date?
    /// Whether it may be synced to the user's other devices (a synced passkey).
    public var isBackupEligible: Bool
    /// Whether it is synced now.
    public var isBackedUp: Bool
    /// How its authenticator is reached (`internal`, `hybrid`, `usb`, …), as it said.
    public var transports: [String]

    enum CodingKeys: String, CodingKey {
        case id, name, createdAt = "created_at", lastUsedAt = "last_used_at", isBackupEligible = "backup_eligible"
        case isBackedUp = "backed_up", transports
    }

    /// Reads a `GET /v1/passkeys` entry (times in unix seconds).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        createdAt = Date(timeIntervalSince1970: TimeInterval(try container.decode(Int64.self, forKey: .createdAt)))
        lastUsedAt = try container.decodeIfPresent(Int64.self, forKey: .lastUsedAt).map {
            Date(timeIntervalSince1970: TimeInterval($0))
        }
        isBackupEligible = try container.decodeIfPresent(Bool.self, forKey: .isBackupEligible) ?? false
        isBackedUp = try container.decodeIfPresent(Bool.self, forKey: .isBackedUp) ?? false
        transports = try container.decodeIfPresent([String].self, forKey: .transports) ?? []
    }
}

extension BackendSessionClient {
    private struct PasskeyList: Decodable {
        var passkeys: [BackendPasskey]
    }

    /// Signs in with a passkey and stores the session in `credentials`, like any other login: the options from
    /// `POST /v1/login/passkey/options`, the person's passkey through `authenticator` (any passkey of the backend's
    /// RP ID: no user name is asked), then `POST /v1/login/passkey` for the session — bound to a new key (DPoP)
    /// unless ``binding`` is ``SessionBinding/bearer``.
    ///
    /// ```swift
    /// let result = try await backend.logIn(withPasskey: PlatformPasskeyAuthenticator(anchor: window), into: credentials)
    /// if result.isCancelled { return }   // not an error
    /// ```
    ///
    /// - Returns: The result; the person cancelling is a cancelled result (``LoginResult/Cancellation/userCancelled``),
    ///   not an error.
    /// - Throws: ``UnknownPasskeyError`` when the backend has no such passkey (`passkey/4`: tell the platform); the
    ///   backend's refusal in the passkey space (`passkey/1`–`19`); the authenticator's error (`passkey/21`–`39`).
    ///   Nothing is stored on error.
    public func logIn(
        withPasskey authenticator: any PasskeyAuthenticator, into credentials: CredentialsManager
    ) async throws -> LoginResult {
        let result = try await logIn(withPasskey: authenticator)
        if let session = result.session { try await credentials.signIn(session) }
        return result
    }

    /// Signs in with a passkey, like ``logIn(withPasskey:into:)``, without storing the session: the app stores it
    /// (``CredentialsManager/signIn(_:)``).
    public func logIn(withPasskey authenticator: any PasskeyAuthenticator) async throws -> LoginResult {
        let optionsJSON = try await passkeyCall(
            .post, baseURL.appendingPathComponent("v1/login/passkey/options"), template: "/v1/login/passkey/options",
            body: .object([:])
        ).json()
        let options = try PasskeyRequestOptions(json: optionsJSON)
        let assertion: PasskeyAssertion
        do {
            assertion = try await authenticator.authenticate(options)
        } catch {
            let classified = MendError.passkeyAuthenticatorError(error)
            if let error = classified as? MendError, error.code == .Passkey.cancelled { return .cancelled }
            throw classified
        }
        let key = try proofKeys?.makeSessionKey()
        let response: APIResponse
        do {
            response = try await passkeyCall(
                .post, baseURL.appendingPathComponent("v1/login/passkey"), template: "/v1/login/passkey",
                body: .object(["credential": assertion.json]), dpop: try dpopProofs.binding(for: key))
        } catch let error as MendError where error.code == .Passkey.unknownCredential {
            // The ID the authenticator answered with is the one to report; the answer's `passkey` member names it
            // too (its RP ID is the server's word).
            let named = error.response?.json?["passkey"]
            let credentialID =
                assertion.credentialID
                ?? named?["credential_id"]?.stringValue.flatMap { Base64URL.decode($0) } ?? Data()
            throw UnknownPasskeyError(
                relyingPartyID: named?["rp_id"]?.stringValue ?? options.relyingPartyID, credentialID: credentialID,
                error: error)
        }
        let session = try response.decode(BackendSessionResponse.self).session(
            now: client.configuration.clock.now(), generation: 0, key: key)
        return LoginResult(
            session: session, granted: Set(session.accessToken.permissions),
            declined: Set(session.accessToken.declinedPermissions))
    }

    /// Adds a passkey for the signed-in user: the options from `POST /v1/passkeys/registration/options`, a new
    /// passkey from `authenticator`, then `POST /v1/passkeys/registration`. The backend asks for a recent sign-in
    /// (`passkey/8` when the session began more than a few minutes ago: sign in again, then add it).
    ///
    /// - Parameters:
    ///   - name: What the user calls it (`nil`: the backend names it `Passkey`, or `Security key`).
    ///   - authenticator: What makes it.
    ///   - credential: The signed-in session's credential (``CredentialsManager/currentCredential()``: DPoP-bound
    ///     when the session is).
    /// - Returns: The passkey added; `nil` when the person cancelled (not an error).
    /// - Throws: The backend's refusal (`passkey/8`, `passkey/10`, …), or the authenticator's error (`passkey/22`: it
    ///   holds one of the user's passkeys already).
    public func addPasskey(
        named name: String? = nil, with authenticator: any PasskeyAuthenticator, using credential: Credential
    ) async throws -> BackendPasskey? {
        let optionsJSON = try await passkeyCall(
            .post, baseURL.appendingPathComponent("v1/passkeys/registration/options"),
            template: "/v1/passkeys/registration/options",
            body: .object([:]), credential: credential
        ).json()
        let options = try PasskeyCreationOptions(json: optionsJSON)
        let registration: PasskeyRegistration
        do {
            registration = try await authenticator.register(options)
        } catch {
            let classified = MendError.passkeyAuthenticatorError(error)
            if let error = classified as? MendError, error.code == .Passkey.cancelled { return nil }
            throw classified
        }
        var body: [String: JSONValue] = ["credential": registration.json]
        if let name { body["name"] = .string(name) }
        return try await passkeyCall(
            .post, baseURL.appendingPathComponent("v1/passkeys/registration"), template: "/v1/passkeys/registration",
            body: .object(body),
            credential: credential
        ).decode(BackendPasskey.self)
    }

    /// `GET /v1/passkeys`: the user's passkeys. Retried on transient failures (it reads).
    ///
    /// - Parameter credential: The signed-in session's credential (``CredentialsManager/currentCredential()``).
    public func passkeys(using credential: Credential) async throws -> [BackendPasskey] {
        try await passkeyCall(
            .get, baseURL.appendingPathComponent("v1/passkeys"), template: "/v1/passkeys", credential: credential,
            retryable: true
        )
        .decode(PasskeyList.self).passkeys
    }

    /// `PATCH /v1/passkeys/{id}`: renames one of the user's passkeys (`rest/404` for none of theirs).
    public func renamePasskey(id: String, to name: String, using credential: Credential) async throws -> BackendPasskey
    {
        try await passkeyCall(
            .patch, passkeyURL(id), template: "/v1/passkeys/{id}",
            body: .object(["name": .string(name)]), credential: credential, retryable: true
        ).decode(BackendPasskey.self)
    }

    /// `DELETE /v1/passkeys/{id}`: removes one of the user's passkeys (`rest/404` for none of theirs; `passkey/9`
    /// when it is the account's last way to sign in). Its authenticator keeps it until told: a sign-in with it is
    /// then ``UnknownPasskeyError``. Idempotent, so retried on transient failures.
    public func removePasskey(id: String, using credential: Credential) async throws {
        _ = try await passkeyCall(
            .delete, passkeyURL(id), template: "/v1/passkeys/{id}", credential: credential,
            retryable: true, expectsJSON: false)
    }

    /// `v1/passkeys/{id}` (the id one path segment, as ``endSession(id:using:)`` makes it).
    private func passkeyURL(_ id: String) -> URL {
        var url = baseURL.appendingPathComponent("v1/passkeys")
        url.appendPathComponent(id)
        return url
    }

    private func passkeyCall(
        _ method: HTTPRequest.Method, _ url: URL, template: String, body: JSONValue? = nil,
        credential: Credential? = nil, dpop: DPoPBinding? = nil, retryable: Bool = false, expectsJSON: Bool = true
    ) async throws -> APIResponse {
        var headers = identifyingHeaders
        headers[.accept] = "application/json"
        if body != nil { headers[.contentType] = "application/json" }
        var request = APIRequest(
            method: method, url: url, headers: headers, body: body.map { Data($0.jsonText().utf8) },
            options: MendHTTP.RequestOptions(
                allowsRetry: retryable, credentialRejection: .keep, attachesCredential: credential != nil,
                credentialOverride: credential, timeout: requestTimeout, expectsJSON: expectsJSON,
                urlTemplate: template))
        request.dpop = dpop
        return try await client.send(request)
    }
}
