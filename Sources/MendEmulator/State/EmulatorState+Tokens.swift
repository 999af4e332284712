import Foundation

/// Who a request's token belongs to.
struct TokenIdentity: Sendable, Hashable {
    var token: TokenRecord
    var app: EmulatedApp
    var userID: String? { token.userID }
}

extension EmulatorState {
    /// Issues a user token for `appID` and `userID`.
    mutating func issueUserToken(appID: String, userID: String, lifetime: Int, longLived: Bool) -> TokenRecord {
        let value = "EAA" + random.alphanumeric(longLived ? 180 : 160)
        let record = TokenRecord(
            value: value, kind: .user, appID: appID, userID: userID, issuedAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(lifetime)),
            dataAccessExpiresAt: now.addingTimeInterval(TimeInterval(configuration.dataAccessLifetime)),
            isLongLived: longLived, generation: nextGeneration(), revokedSubcode: nil)
        tokens[value] = record
        return record
    }

    /// Issues an app token (`app_id|…`) that never expires.
    mutating func issueAppToken(appID: String) -> TokenRecord {
        let value = "\(appID)|" + random.alphanumeric(27)
        let record = TokenRecord(
            value: value, kind: .app, appID: appID, userID: nil, issuedAt: now, expiresAt: nil,
            dataAccessExpiresAt: nil, isLongLived: true, generation: nextGeneration(), revokedSubcode: nil)
        tokens[value] = record
        return record
    }

    /// The record for a token value; `app_id|app_secret` counts as an app token, as it does for the provider.
    func tokenRecord(for value: String) -> TokenRecord? {
        if let record = tokens[value] { return record }
        let parts = value.split(separator: "|", maxSplits: 1)
        if parts.count == 2, let app = apps[String(parts[0])], app.secret == parts[1] {
            return TokenRecord(
                value: value, kind: .app, appID: app.id, userID: nil, issuedAt: clock.start, expiresAt: nil,
                dataAccessExpiresAt: nil, isLongLived: true, generation: 0, revokedSubcode: nil)
        }
        return nil
    }

    /// Validates a token as the provider does, in its order: parseable, revoked, expired, then the user's state.
    func validate(token value: String) -> Result<TokenIdentity, GraphFailure> {
        guard let record = tokenRecord(for: value), let app = apps[record.appID] else {
            return .failure(.catalog(code: 190, subcode: nil))
        }
        if let subcode = record.revokedSubcode { return .failure(.catalog(code: 190, subcode: subcode)) }
        if let expiresAt = record.expiresAt, now >= expiresAt {
            let message =
                GraphFailure.validating + "Session has expired on \(Self.providerDate(expiresAt)). "
                + "The current time is \(Self.providerDate(now))."
            return .failure(.catalog(code: 190, subcode: 463, message: message))
        }
        if record.kind == .user, let userID = record.userID, let user = users[userID] {
            switch user.state {
            case .checkpointed: return .failure(.catalog(code: 190, subcode: 459))
            case .unconfirmed: return .failure(.catalog(code: 190, subcode: 464))
            case .active, .passwordChanged: break
            }
            if let changed = user.passwordChangedGeneration, record.generation <= changed {
                return .failure(.catalog(code: 190, subcode: 460))
            }
            if let removed = user.appRemovedGeneration[record.appID], record.generation <= removed {
                let message = GraphFailure.validating + "The user has not authorized application \(app.id)."
                return .failure(.catalog(code: 190, subcode: 458, message: message))
            }
        }
        return .success(TokenIdentity(token: record, app: app))
    }

    /// The permissions a user currently grants an app (revocations apply to existing tokens at once).
    func grantedScopes(userID: String, appID: String) -> [String] {
        (users[userID]?.grants[appID]?.granted ?? []).sorted()
    }

    /// The provider's date format in token messages: `Wednesday, 14-Feb-18 12:00:00 PST` (here in UTC).
    static func providerDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEEE, dd-MMM-yy HH:mm:ss zzz"
        return formatter.string(from: date)
    }
}
