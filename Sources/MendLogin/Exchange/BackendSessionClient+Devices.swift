public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

/// What `POST /v1/session/logout` ends at the backend (mend-server's `scope`, Supabase's names).
public enum LogoutScope: String, Sendable, Hashable, CaseIterable {
    /// This session (the default).
    case local
    /// Every other session of the user: "sign out my other devices". This one goes on.
    case others
    /// Every session of the user, this one included: "sign out everywhere".
    case global
}

/// One of the user's sessions at the backend, as `GET /v1/sessions` lists it: a device the user would recognise.
public struct BackendDevice: Sendable, Hashable, Decodable {
    /// The session id (`DELETE /v1/sessions/{id}` ends it).
    public var id: String
    /// Whether this is the session that asked.
    public var isCurrent: Bool
    /// `name/version` from the `Mend-Client` header the session logged in with, if any.
    public var client: String?
    /// The platform in that header (`iOS 18.1`).
    public var platform: String?
    /// When the session was opened (the login).
    public var createdAt: Date
    /// When it last refreshed; `nil` before its first refresh.
    public var refreshedAt: Date?
    /// When it ends unless it refreshes (never after its maximum lifetime).
    public var expiresAt: Date
    /// The address it logged in from, as the backend keys it (an IPv6 address by its /64).
    public var firstAddress: String?
    /// The last address it refreshed from.
    public var lastAddress: String?

    enum CodingKeys: String, CodingKey {
        case id, isCurrent = "current", client, platform, createdAt = "created_at", refreshedAt = "refreshed_at"
        case expiresAt = "expires_at", firstAddress = "first_address", lastAddress = "last_address"
    }

    /// Reads a `GET /v1/sessions` entry (times in unix seconds).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        isCurrent = try container.decode(Bool.self, forKey: .isCurrent)
        client = try container.decodeIfPresent(String.self, forKey: .client)
        platform = try container.decodeIfPresent(String.self, forKey: .platform)
        createdAt = Date(timeIntervalSince1970: TimeInterval(try container.decode(Int64.self, forKey: .createdAt)))
        refreshedAt = try container.decodeIfPresent(Int64.self, forKey: .refreshedAt).map {
            Date(timeIntervalSince1970: TimeInterval($0))
        }
        expiresAt = Date(timeIntervalSince1970: TimeInterval(try container.decode(Int64.self, forKey: .expiresAt)))
        firstAddress = try container.decodeIfPresent(String.self, forKey: .firstAddress)
        lastAddress = try container.decodeIfPresent(String.self, forKey: .lastAddress)
    }
}

extension BackendSessionClient {
    private struct DeviceList: Decodable {
        var sessions: [BackendDevice]
    }

    /// `GET /v1/sessions`: the user's active sessions at the backend, newest first, this one marked
    /// ``BackendDevice/isCurrent``. Retried on transient failures (it reads).
    ///
    /// - Parameter accessToken: A valid access token of one of the user's sessions (``CredentialsManager/validToken(minTTL:)``
    ///   gives one).
    public func sessions(accessToken: String) async throws -> [BackendDevice] {
        try await sessions(using: Credential(token: accessToken))
    }

    /// `GET /v1/sessions` with `credential` — a DPoP-bound session's (``CredentialsManager/currentCredential()``
    /// gives it), whose requests carry proofs.
    public func sessions(using credential: Credential) async throws -> [BackendDevice] {
        let request = APIRequest(
            method: .get, url: baseURL.appendingPathComponent("v1/sessions"), headers: identifyingHeaders,
            options: RequestOptions(
                credentialRejection: .keep, credentialOverride: credential,
                timeout: requestTimeout, urlTemplate: "/v1/sessions"))
        return try await client.send(request).decode(DeviceList.self).sessions
    }

    /// `DELETE /v1/sessions/{id}`: ends one of the user's own sessions — "sign out that phone". A session of
    /// another user, or none, is `rest/404`. Idempotent, so retried on transient failures.
    public func endSession(id: String, accessToken: String) async throws {
        try await endSession(id: id, using: Credential(token: accessToken))
    }

    /// `DELETE /v1/sessions/{id}` with `credential` (a DPoP-bound session's included).
    public func endSession(id: String, using credential: Credential) async throws {
        var path = baseURL.appendingPathComponent("v1/sessions")
        path.appendPathComponent(id)
        let request = APIRequest(
            method: .delete, url: path, headers: identifyingHeaders,
            options: RequestOptions(
                allowsRetry: true, credentialRejection: .keep, credentialOverride: credential,
                timeout: requestTimeout, expectsJSON: false, urlTemplate: "/v1/sessions/{id}"))
        _ = try await client.send(request)
    }

    /// The `Mend-Client` header this client sends on every call, when it has a ``clientIdentifier``.
    var identifyingHeaders: HTTPFields {
        var headers = HTTPFields()
        if let clientIdentifier { headers[Self.clientHeader] = clientIdentifier }
        return headers
    }

    /// `Mend-Client`.
    static let clientHeader = HTTPField.Name("Mend-Client")!
}
