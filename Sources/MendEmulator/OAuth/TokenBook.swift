import Foundation
import MendCore

/// Who a request's token belongs to.
struct TokenIdentity: Sendable, Hashable {
    var token: TokenRecord
    var app: EmulatedApp
    var userID: String? { token.userID }
}

/// The provider's access tokens and authorization codes, and the keys that sign its id_tokens: issuing, looking up
/// and validating tokens (here), and the token endpoint, `debug_token` and the discovery document that act on them
/// (`TokenBook+Endpoint.swift`, `TokenBook+Introspection.swift`).
struct TokenBook: Sendable {
    var tokens: [String: TokenRecord] = [:]
    /// The login dialog's codes, by value: the dialog issues them, the token endpoint redeems them.
    var codes: [String: AuthorizationCode] = [:]
    var signingKeys = SigningKeyRing()

    /// Issues a user token for `appID` and `userID`.
    mutating func issueUserToken(
        appID: String, userID: String, lifetime: Int, longLived: Bool, context: inout EmulatorContext
    ) -> TokenRecord {
        let value = "EAA" + context.random.alphanumeric(longLived ? 180 : 160)
        let record = TokenRecord(
            value: value, kind: .user, appID: appID, userID: userID, issuedAt: context.now,
            expiresAt: context.now.addingTimeInterval(TimeInterval(lifetime)),
            dataAccessExpiresAt: context.now.addingTimeInterval(
                TimeInterval(context.configuration.dataAccessLifetime)),
            isLongLived: longLived, generation: context.nextGeneration(), revokedSubcode: nil)
        tokens[value] = record
        return record
    }

    /// Issues an app token (`app_id|…`) that never expires.
    mutating func issueAppToken(appID: String, context: inout EmulatorContext) -> TokenRecord {
        let value = "\(appID)|" + context.random.alphanumeric(27)
        let record = TokenRecord(
            value: value, kind: .app, appID: appID, userID: nil, issuedAt: context.now, expiresAt: nil,
            dataAccessExpiresAt: nil, isLongLived: true, generation: context.nextGeneration(), revokedSubcode: nil)
        tokens[value] = record
        return record
    }

    /// The record for a token value; `app_id|app_secret` counts as an app token, as it does for the provider.
    func tokenRecord(for value: String, context: EmulatorContext) -> TokenRecord? {
        if let record = tokens[value] { return record }
        let parts = value.split(separator: "|", maxSplits: 1)
        if parts.count == 2, let app = context.apps[String(parts[0])], app.secret == parts[1] {
            return TokenRecord(
                value: value, kind: .app, appID: app.id, userID: nil, issuedAt: context.clock.start, expiresAt: nil,
                dataAccessExpiresAt: nil, isLongLived: true, generation: 0, revokedSubcode: nil)
        }
        return nil
    }

    /// Validates a token as the provider does, in its order: parseable, revoked, expired, then the user's state.
    func validate(
        token value: String, users: UserDirectory, context: EmulatorContext
    ) -> Result<TokenIdentity, GraphFailure> {
        guard let record = tokenRecord(for: value, context: context), let app = context.apps[record.appID] else {
            return .failure(.catalog(code: 190, subcode: nil))
        }
        if let subcode = record.revokedSubcode { return .failure(.catalog(code: 190, subcode: subcode)) }
        if let expiresAt = record.expiresAt, context.now >= expiresAt {
            let message =
                GraphFailure.validating + "Session has expired on \(ProviderDate.tokenMessage(expiresAt)). "
                + "The current time is \(ProviderDate.tokenMessage(context.now))."
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

    /// A signed OIDC id_token for the user.
    mutating func idToken(
        appID: String, userID: String, nonce: String?, issuer: String, users: UserDirectory,
        context: inout EmulatorContext
    ) throws -> String {
        guard let user = users[userID]?.profile else { throw GraphFailure.catalog(code: 100, subcode: 33) }
        let key = try signingKeys.current(random: &context.random)
        let issuedAt = Int(context.now.timeIntervalSince1970)
        let email = users.grantedScopes(userID: userID, appID: appID).contains("email") ? user.email : nil
        let claims = JSONValue.object([
            ("iss", .string(issuer)), ("aud", .string(appID)), ("sub", .string(userID)),
            ("iat", .int(issuedAt)), ("exp", .int(issuedAt + 3600)), ("jti", .string(context.random.alphanumeric(32))),
            ("nonce", .string(nonce)), ("name", .string(user.name)), ("given_name", .string(user.firstName)),
            ("family_name", .string(user.lastName)), ("email", .string(email)), ("picture", .string(user.pictureURL)),
        ])
        return try SigningKeyRing.sign(claims: claims, with: key)
    }

    /// The id_token keys' JWKS (`/.well-known/oauth/openid/jwks/`), with a key created on first use.
    mutating func jwks(random: inout SeededGenerator) -> JSONValue {
        _ = try? signingKeys.current(random: &random)
        return signingKeys.jwks()
    }
}
