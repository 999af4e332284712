import Crypto
public import Foundation

extension Emulator {
    /// The revocations the issuers received, in order: Apple's and Google's token revocations, and Facebook's
    /// `DELETE /me/permissions` (`tokenKind` `permissions`).
    public func revocations() -> [IssuerRevocation] { state.issuers.tokens.revocations }

    /// Apple's team signing key, PEM (PKCS #8): what a client signs its client secret with. Test mode only, like the
    /// whole control API.
    public func appleTeamKeyPEM() -> String { state.issuers.keys.appleTeamKey.pemRepresentation }

    /// A Limited Login id_token (the vendor SDK's `AuthenticationToken`) for `userID` of `appID`, with `nonce` as
    /// the app passed it, signed by the provider's keys (`/.well-known/oauth/openid/jwks/`).
    public func limitedLoginToken(
        appID: String?, userID: String?, nonce: String, baseURL: String
    ) throws(ControlError) -> String {
        let app = appID ?? configuration.defaultApp.id
        let user = userID ?? state.users.defaultUserID
        guard state.context.apps[app] != nil else { throw .notFound("app \(app)") }
        guard state.users[user] != nil else { throw .notFound("user \(user)") }
        guard !nonce.isEmpty else { throw .invalid("nonce is required") }
        do {
            return try state.idToken(appID: app, userID: user, nonce: nonce, baseURL: baseURL)
        } catch {
            throw .invalid("the id_token could not be signed")
        }
    }

    /// `GET /_emulator/issuers`.
    func issuerSummary(baseURL: String) -> IssuersBody {
        IssuersBody(
            issuers: EmulatedIssuerKind.allCases.map { kind in
                IssuersBody.Issuer(
                    kind: kind.rawValue, issuer: kind.issuer(baseURL: baseURL),
                    discovery: kind.issuer(baseURL: baseURL) + "/.well-known/openid-configuration",
                    clients: configuration.issuerClients.filter { $0.kind == kind })
            },
            appleTeamKey: appleTeamKeyPEM())
    }
}

/// `GET /_emulator/issuers`: each issuer, its clients, and Apple's team key (to sign client secrets with).
struct IssuersBody: Codable {
    struct Issuer: Codable {
        var kind: String
        var issuer: String
        var discovery: String
        var clients: [EmulatedIssuerClient]
    }

    var issuers: [Issuer]
    var appleTeamKey: String
}

/// `POST /_emulator/issuers/{apple|google}/native`.
struct NativeSignInBody: Codable {
    var clientID: String?
    var userID: String?
    var nonce: String?
    /// Google: the server's web client id, for which the sign-in also returns a `serverAuthCode`.
    var serverClientID: String?
}

/// `POST /_emulator/limited-login`.
struct LimitedLoginBody: Codable {
    var appID: String?
    var userID: String?
    var nonce: String
}
