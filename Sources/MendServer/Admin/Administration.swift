import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP

/// The admin API (`/v1/admin/…`): the operator's tools find users, read their identities, sessions and the audit
/// log, end sessions and delete accounts, with a bearer token whose SHA-256 `MEND_ADMIN_TOKENS` lists.
///
/// Every request is counted against the admin rate limit by its address before its token is looked at, then its
/// token is compared with every configured digest in constant time. Without a configured token the admin routes
/// answer 404, as if they did not exist. Each change is written to the audit log as `admin_action` with the token's
/// id as the actor (best effort, like every event without a database write of its own), beside the events the
/// change itself writes (`session_ended`, `account_deleted`).
struct Administration: BackendPart {
    let services: BackendServices
    /// The admin API's slice of the configuration: its tokens and its rate limit.
    let settings: ServerConfiguration.Admin
    /// The sessions' maximum lifetime: a session past it is not listed as active.
    let maximumSessionLifetime: Int64
    /// The users the admin API searches.
    let directory: any UserDirectory
    /// The users and their identities.
    let identities: any IdentityStore
    /// The sessions the admin API lists and ends.
    let sessionRecords: any SessionStore
    /// Deletes accounts as `DELETE /v1/me` does.
    let accounts: Accounts

    /// Who is asking: the admin token's id and the address it asked from.
    struct Caller: Sendable {
        var adminID: String
        var address: String
    }

    /// Checks the admin rate limit, then the token; returns the caller.
    func authorize(_ headers: HTTPFields, address: String) async throws -> Caller {
        guard settings.isEnabled else {
            throw ServerFailure.notFound("The admin API is off: MEND_ADMIN_TOKENS is not set.")
        }
        try await enforce(settings.rateLimit, address: address, action: "admin")
        guard let token = SessionAuthority.bearerToken(headers) else {
            throw ServerFailure.adminRefused("Authorization: Bearer <admin token> is required.", tokenSent: false)
        }
        guard token.utf8.count <= 512, let id = settings.tokens.match(token) else {
            metrics.adminRefused()
            throw ServerFailure.adminRefused("The admin token is not one MEND_ADMIN_TOKENS lists.", tokenSent: true)
        }
        return Caller(adminID: id, address: RateLimiter.addressKey(address))
    }

    // MARK: Reads

    /// `GET /v1/admin/users`.
    func users(_ query: AdminQuery) async throws -> JSONValue {
        let users = try await directory.searchUsers(
            query: query.strings["query"], limit: Int(query.integers["limit"] ?? 50),
            offset: Int(query.integers["offset"] ?? 0))
        return .object(["users": .array(users.map(\.adminSummary))])
    }

    /// `GET /v1/admin/users/{id}`: the user, their identities and their active sessions (newest first).
    func user(id: String) async throws -> JSONValue {
        let user = try await existingUser(id)
        let identities = try await identities.identities(userID: user.id)
        let current = now
        let sessions = try await sessionRecords.activeSessions(userID: user.id, now: current)
            .filter { current < $0.createdAt + maximumSessionLifetime }
        return .object([
            "user": user.adminSummary,
            "identities": .array(
                identities.map {
                    .object([
                        "provider": .string($0.provider), "subject": .string($0.subject), "email": JSONValue($0.email),
                    ])
                }),
            "sessions": .array(sessions.map(\.adminListed)),
        ])
    }

    /// `GET /v1/admin/audit`: the newest events, filtered by user and event code, paged back with `before`.
    func audit(_ query: AdminQuery) async throws -> JSONValue {
        let limit = Int(query.integers["limit"] ?? 50)
        // One more than asked: whether there is a next page.
        let events = try await services.auditLog.auditEvents(
            userID: query.strings["user_id"], event: query.strings["event"], before: query.integers["before"],
            limit: limit + 1)
        let page = events.prefix(limit)
        let next: Int64? = events.count > limit ? page.last?.id : nil
        return .object(["events": .array(page.map(\.adminEntry)), "next_before": JSONValue(next)])
    }

    // MARK: Changes

    /// `POST /v1/admin/users/{id}/logout`: ends every session of the user (session/17 for their clients).
    func logoutUser(id: String, reason: String?, caller: Caller, logger: Logger) async throws -> JSONValue {
        let user = try await existingUser(id)
        let reason = cleaned(reason)
        let ended = try await sessionRecords.revokeSessions(
            userID: user.id, keeping: nil, reason: .revoked, detail: Self.detail(reason), now: now)
        metrics.sessionsEnded(reason: SessionEndReason.revoked.metricsLabel, count: ended)
        await record("logout_user", user: user.id, session: nil, reason: reason, caller: caller, logger: logger)
        return .object(["sessions_ended": .int(ended)])
    }

    /// `POST /v1/admin/sessions/{id}/end`: ends one session (session/17 for its client); `ended` is false when it
    /// had already ended.
    func endSession(id: String, reason: String?, caller: Caller, logger: Logger) async throws -> JSONValue {
        guard id.utf8.count <= 64, let session = try await sessionRecords.session(id: id) else {
            throw ServerFailure.notFound("There is no session \(id.prefix(64)).")
        }
        let reason = cleaned(reason)
        let ended = try await sessionRecords.revokeSession(
            id: session.id, reason: .revoked, detail: Self.detail(reason), now: now)
        if ended { metrics.sessionsEnded(reason: SessionEndReason.revoked.metricsLabel, count: 1) }
        await record(
            "end_session", user: session.userID, session: session.id, reason: reason, caller: caller, logger: logger)
        return .object(["ended": .bool(ended)])
    }

    /// `DELETE /v1/admin/users/{id}`: deletes the account as `DELETE /v1/me` does.
    func deleteUser(id: String, caller: Caller, logger: Logger) async throws -> AccountDeletionBody {
        let user = try await existingUser(id)
        let deletion = try await accounts.deleteAccount(
            of: user, detail: "account deleted by an administrator", logger: logger)
        await record("delete_user", user: user.id, session: nil, reason: nil, caller: caller, logger: logger)
        return deletion
    }

    // MARK: Helpers

    /// The user of `id`, or 404.
    func existingUser(_ id: String) async throws -> UserRecord {
        guard id.utf8.count <= 64, let user = try await identities.user(id: id) else {
            throw ServerFailure.notFound("There is no user \(id.prefix(64)).")
        }
        return user
    }

    /// The ending's detail the clients' developer message shows.
    static func detail(_ reason: String?) -> String {
        "ended by an administrator" + (reason.map { ": \($0)" } ?? "")
    }

    /// The reason as stored and shown: control characters as spaces, trimmed, redacted; `nil` when empty.
    private func cleaned(_ reason: String?) -> String? {
        guard let reason else { return nil }
        let spaced = String(
            String.UnicodeScalarView(
                reason.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : $0 }))
        let trimmed = redactor.redact(text: spaced).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The `admin_action` event of a change: `action[: reason]`, by the token's id.
    private func record(
        _ action: String, user: String?, session: String?, reason: String?, caller: Caller, logger: Logger
    ) async {
        await audit(
            .adminAction,
            AuditRecord(
                at: now, event: AuditRecord.Event.adminAction.rawValue, userID: user, sessionID: session,
                detail: action + (reason.map { ": \($0)" } ?? ""), address: caller.address, actor: caller.adminID),
            logger: logger)
    }
}

/// The query of an admin read, checked against its endpoint's ``RouteTable/QueryParameter`` rules (the ones
/// `/openapi.json` documents): a value out of its rule is 400 naming it; unknown parameters are ignored.
struct AdminQuery: Sendable {
    /// The OpenAPI pattern of a free string parameter: no control character (C0, DEL or C1).
    static let noControlCharacters = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"

    var strings: [String: String] = [:]
    var integers: [String: Int64] = [:]

    /// Reads the raw query (`a=1&b=x+y`: `+` is a space, `%XX` a byte of UTF-8) of a request to `endpoint`.
    init(_ rawQuery: String?, endpoint: RouteTable.Endpoint) throws {
        var values: [String: String] = [:]
        for pair in (rawQuery ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) throws -> String {
                guard let text = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                    throw ServerFailure.badRequest("The query is not percent-encoded UTF-8.")
                }
                return text
            }
            let name = try decoded(parts[0])
            if values[name] == nil { values[name] = try parts.count > 1 ? decoded(parts[1]) : "" }
        }
        for parameter in endpoint.query {
            guard let value = values[parameter.name] else { continue }
            switch parameter.kind {
            case .string(let maxLength, let allowed):
                guard (1...maxLength).contains(value.utf8.count) else {
                    throw ServerFailure.badRequest("\(parameter.name) must be 1–\(maxLength) bytes long.")
                }
                // A NUL would end the search string in the database (SQLite's C strings): `a%00zzz` found `a…`
                // and `%00` every user. No control character is searched for, literally or cut: 400.
                if let control = value.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                    let scalar = String(format: "U+%04X", control.value)
                    throw ServerFailure.badRequest(
                        "\(parameter.name) must not contain a control character (\(scalar)).")
                }
                if let allowed, !allowed.contains(value) {
                    throw ServerFailure.badRequest(
                        "\(parameter.name) must be one of: \(allowed.joined(separator: ", ")).")
                }
                strings[parameter.name] = value
            case .integer(let range):
                guard value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                    let number = Int64(value), range.contains(number)
                else {
                    throw ServerFailure.badRequest(
                        "\(parameter.name) must be an integer from \(range.lowerBound) to \(range.upperBound).")
                }
                integers[parameter.name] = number
            }
        }
    }
}

extension ServerFailure {
    /// rest/401: no admin token, or one the server does not know, with a `WWW-Authenticate` challenge of the
    /// admin API's realm (RFC 6750 §3: `invalid_token` only when a token came).
    static func adminRefused(_ message: String, tokenSent: Bool) -> ServerFailure {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = #"Bearer realm="mend-admin""# + (tokenSent ? #", error="invalid_token""# : "")
        return ServerFailure(
            MendError(code: .REST.accessDenied, developerMessage: message, catalog: .server), headers: headers)
    }
}

extension UserRecord {
    /// A user in the admin API's answers: the profile, never a token.
    var adminSummary: JSONValue {
        .object([
            "id": .string(id), "provider_user_id": JSONValue(providerUserID), "name": .string(name),
            "email": JSONValue(email), "created_at": JSONValue(createdAt), "updated_at": JSONValue(updatedAt),
        ])
    }
}

extension SessionRecord {
    /// A session in the admin API's answers: the devices list's fields and the login's provider and flow.
    var adminListed: JSONValue {
        .object([
            "id": .string(id), "client": JSONValue(client), "platform": JSONValue(clientPlatform),
            "provider": JSONValue(provider), "flow": JSONValue(flow), "created_at": JSONValue(createdAt),
            "refreshed_at": JSONValue(refreshedAt), "expires_at": JSONValue(expiresAt),
            "first_address": JSONValue(firstAddress), "last_address": JSONValue(lastAddress),
        ])
    }
}

extension AuditRecord {
    /// An event in the admin API's audit log: every column.
    var adminEntry: JSONValue {
        .object([
            "id": JSONValue(id), "at": JSONValue(at), "event": .string(event), "user_id": JSONValue(userID),
            "session_id": JSONValue(sessionID), "provider": JSONValue(provider), "detail": JSONValue(detail),
            "address": JSONValue(address), "client": JSONValue(client), "actor": JSONValue(actor),
        ])
    }
}
