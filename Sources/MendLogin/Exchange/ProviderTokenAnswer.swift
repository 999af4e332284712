import Foundation
import MendCore
import MendHTTP

/// A provider's token answer (RFC 6749 §5.1) — to a code exchange, a device login or a refresh — and the one place
/// where it becomes a ``Session``.
///
/// A new login's answer: the access token with its expiry and scopes (the redirect's granted scopes first, then the
/// answer's `scope`, then what was asked for), the id_token when an ``IDTokenValidator`` is set (it must be present
/// and pass; without a validator an id_token is dropped, so nothing unvalidated is kept as if checked), then the
/// dialect's profile (a Facebook-compatible provider's `/me` and `/me/permissions`). A refresh's answer continues
/// the session it refreshed: its user, id_token and family, unless a new id_token validates.
struct ProviderTokenAnswer: Sendable {
    var accessToken: String
    var expiresIn: TimeInterval?
    var idToken: String?
    var refreshToken: String?
    var scope: String?
    /// `token_type`: `DPoP` when the provider bound the token to the proof's key (RFC 9449 §5).
    var tokenType: String?
    /// Facebook's `data_access_expiration_time` (seconds since 1970), when the answer carries one.
    var dataAccessExpiration: Date?

    /// Reads an answer.
    ///
    /// - Throws: `transport/…` malformedResponse when it has no `access_token`.
    init(_ answer: JSONValue) throws {
        guard let accessToken = answer["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "The token answer has no access_token.",
                catalog: .login)
        }
        self.accessToken = accessToken
        self.expiresIn = answer["expires_in"]?.doubleValue
        self.idToken = answer["id_token"]?.stringValue
        self.refreshToken = answer["refresh_token"]?.stringValue
        self.scope = answer["scope"]?.stringValue
        self.tokenType = answer["token_type"]?.stringValue
        self.dataAccessExpiration = answer["data_access_expiration_time"]?.intValue.flatMap {
            $0 > 0 ? Date(timeIntervalSince1970: TimeInterval($0)) : nil
        }
    }

    /// Whether the provider bound the tokens to the key the request proved (`token_type: DPoP`).
    var isProofBound: Bool { tokenType?.caseInsensitiveCompare("DPoP") == .orderedSame }

    /// The scopes the answer names, if it names any.
    private var scopes: [String]? { scope.map { $0.split(separator: " ").map(String.init) } }

    /// The session of a new login at `provider`.
    ///
    /// - Parameters:
    ///   - asked: The scopes the login asked for (used when neither the redirect nor the answer names any).
    ///   - granted: The scopes the redirect reported granted, if it did.
    ///   - denied: The scopes the redirect reported denied, if it did.
    ///   - nonce: The nonce the id_token must carry (`nil`: a flow without one, device login).
    ///   - what: The flow, for the error when an id_token is missing ("the token response").
    func login(
        at provider: LoginProvider, transport: any HTTPTransport, issuedAt: Date, asked: [String],
        granted: [String]? = nil, denied: [String]? = nil, idTokenValidator: IDTokenValidator?, nonce: String?,
        what: String
    ) async throws -> Session {
        var token = AccessToken(
            tokenString: accessToken, appID: provider.clientID, permissions: Set(granted ?? scopes ?? asked),
            declinedPermissions: Set(denied ?? []), expirationDate: expiresIn.map { issuedAt.addingTimeInterval($0) },
            dataAccessExpirationDate: dataAccessExpiration, refreshDate: issuedAt)
        var user: Session.User?
        var validatedIDToken: String?
        if let idTokenValidator {
            guard let idToken else {
                throw IDTokenValidator.invalid(
                    "\(what) carries none, though an id_token validator is set (ask for the openid scope)")
            }
            let claims = try await idTokenValidator.validate(idToken, nonce: nonce, accessToken: accessToken)
            user = Session.User(
                id: claims.subject, providerUserID: claims.subject, name: claims.name, email: claims.email)
            validatedIDToken = idToken
        }
        if let profile = try await provider.dialect.profile(
            token: accessToken, provider: provider, transport: transport)
        {
            user = profile.user
            if !profile.granted.isEmpty || !profile.declined.isEmpty {
                token.permissions = profile.granted
                token.declinedPermissions = profile.declined
                token.expiredPermissions = profile.expired
            }
        }
        token.userID = user?.id
        return Session(
            issuer: .provider, accessToken: token, refreshToken: refreshToken, user: user, idToken: validatedIDToken)
    }

    /// The session a refresh of `previous` at `provider` gives: a new access token (and refresh token, when the
    /// provider rotates it), the same user and family. An id_token that does not validate (a provider clock ahead of
    /// this device's, a key not yet published) is dropped and the session keeps the one it had: the access token came
    /// in the same answer from the token endpoint, and a sign-out would not make anything safer.
    ///
    /// - Throws: `login/304` when a refreshed id_token names another user.
    func refresh(
        of previous: Session, at provider: LoginProvider, issuedAt: Date, idTokenValidator: IDTokenValidator?
    ) async throws -> Session {
        var user = previous.user
        var keptIDToken = previous.idToken
        if let idToken, let idTokenValidator,
            let claims = try? await idTokenValidator.validate(idToken, nonceRule: nil, accessToken: accessToken)
        {
            if let known = previous.user?.id, known != claims.subject {
                throw MendError.login(.Login.userMismatch, "The refreshed id_token names another user.")
            }
            user = user ?? Session.User(id: claims.subject, providerUserID: claims.subject)
            keptIDToken = idToken
        }
        let token = AccessToken(
            tokenString: accessToken, userID: previous.accessToken.userID ?? user?.id, appID: provider.clientID,
            permissions: scopes.map(Set.init) ?? previous.accessToken.permissions,
            expirationDate: expiresIn.map { issuedAt.addingTimeInterval($0) }, refreshDate: issuedAt)
        var session = Session(
            issuer: .provider, accessToken: token, refreshToken: refreshToken ?? previous.refreshToken,
            refreshExpirationDate: previous.refreshExpirationDate, user: user, idToken: keptIDToken,
            generation: previous.generation + 1, familyID: previous.familyID)
        // A bound session stays bound while the provider binds its tokens; a bearer answer makes it a bearer session.
        session.proofKey = isProofBound ? previous.proofKey : nil
        return session
    }
}
