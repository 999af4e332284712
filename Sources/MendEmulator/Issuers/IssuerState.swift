public import Foundation
import HTTPTypes
import MendCore
import MendDPoPCheck
import MendLogin

/// The emulated OpenID Connect issuers (Apple, Google): their keys, the consents waiting for a user, their codes,
/// tokens and revocations, and the routing of a request to the endpoint that answers it. Paths are relative to the
/// issuer (`/apple`, `/google`):
///
/// | | Apple | Google |
/// |---|---|---|
/// | discovery | `/.well-known/openid-configuration` | the same |
/// | keys | `/auth/keys` | `/oauth2/v3/certs` |
/// | authorization | `/auth/authorize` | `/o/oauth2/v2/auth` |
/// | token | `/auth/token` | `/token` |
/// | revocation | `/auth/revoke` | `/revoke` |
/// | userinfo | — | `/v1/userinfo` |
/// | device authorization | — | `/device/code` |
struct IssuerState: Sendable {
    var keys: IssuerKeys
    var consents = IssuerConsents()
    var tokens = IssuerTokens()
    /// DPoP at the token endpoints and userinfo (off unless the configuration or the control API turns it on).
    var dpop: IssuerDPoP

    init(seed: UInt64, dpop: Bool = false) {
        keys = IssuerKeys(seed: seed)
        self.dpop = IssuerDPoP(enabled: dpop, seed: seed)
    }

    /// One request to an issuer; `segments` are the path's segments after the issuer's.
    mutating func handle(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, segments: [String], users: inout UserDirectory,
        deviceLogins: inout DeviceLoginBook, context: inout EmulatorContext
    ) -> EmulatorResponse {
        let issuer = kind.issuer(baseURL: request.baseURL)
        let path = "/" + segments.joined(separator: "/")
        switch (kind, path) {
        case (_, "/.well-known/openid-configuration"):
            return .json(IssuerWire.discoveryDocument(kind: kind, issuer: issuer, dpop: dpop.enabled))
        case (.apple, "/auth/keys"), (.google, "/oauth2/v3/certs"):
            return .json(keys.jwks(kind, random: &context.random))
        case (.apple, "/auth/authorize"), (.google, "/o/oauth2/v2/auth"):
            return consents.authorize(
                request, kind: kind, issuer: issuer, speaksDPoP: dpop.enabled, tokens: &tokens, keys: &keys,
                users: users, context: &context)
        case (_, "/consent") where request.method == .post:
            return consents.consent(
                request, kind: kind, issuer: issuer, tokens: &tokens, keys: &keys, users: users, context: &context)
        case (.apple, "/auth/token"), (.google, "/token"):
            guard request.method == .post else { return IssuerWire.oauthError(kind, "invalid_request", "Use POST.") }
            let endpoint = issuer + path
            return token(
                request, kind: kind, issuer: issuer, endpoint: endpoint, users: &users, deviceLogins: &deviceLogins,
                context: &context)
        case (.apple, "/auth/revoke"), (.google, "/revoke"):
            guard request.method == .post else { return IssuerWire.oauthError(kind, "invalid_request", "Use POST.") }
            return tokens.revoke(request, kind: kind, issuer: issuer, keys: keys, context: context)
        case (.google, "/v1/userinfo"):
            return userinfo(request, endpoint: issuer + path, users: users, context: context)
        case (.google, "/device/code"):
            guard request.method == .post else { return IssuerWire.oauthError(kind, "invalid_request", "Use POST.") }
            return deviceAuthorization(
                request, kind: kind, issuer: issuer, deviceLogins: &deviceLogins, context: &context)
        default:
            return .json(.object(["error": .string("not_found")]), status: .notFound)
        }
    }

    /// The token endpoint (`endpoint`, its public URL): client authentication, the DPoP proof if there is one, then
    /// the code (with PKCE), a refresh token or (Google) a device code.
    mutating func token(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String, endpoint: String,
        users: inout UserDirectory, deviceLogins: inout DeviceLoginBook, context: inout EmulatorContext
    ) -> EmulatorResponse {
        let client: EmulatedIssuerClient
        switch IssuerTokens.authenticateClient(request, kind: kind, issuer: issuer, keys: keys, context: context) {
        case .failure(let refusal): return refusal.response
        case .success(let authenticated): client = authenticated
        }
        let jkt: String?
        switch dpop.check(request, url: endpoint, accessToken: nil, now: context.now) {
        case .failure(let refusal): return dpop.tokenEndpointRefusal(refusal)
        case .success(let key): jkt = key
        }
        return dpop.answer(
            grant(
                request, kind: kind, client: client, issuer: issuer, jkt: jkt, users: &users,
                deviceLogins: &deviceLogins, context: &context))
    }

    /// The grant a token request names, its tokens bound to `jkt` when the request proved that key.
    private mutating func grant(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, client: EmulatedIssuerClient, issuer: String,
        jkt: String?, users: inout UserDirectory, deviceLogins: inout DeviceLoginBook, context: inout EmulatorContext
    ) -> EmulatorResponse {
        switch request.form["grant_type"] {
        case "authorization_code":
            return tokens.exchange(
                request, kind: kind, client: client, issuer: issuer, jkt: jkt, checksBinding: dpop.enabled,
                keys: &keys, users: users, context: &context)
        case Self.deviceCodeGrant where kind == .google:
            return pollDeviceLogin(
                request, kind: kind, client: client, issuer: issuer, jkt: jkt, users: &users,
                deviceLogins: &deviceLogins, context: &context)
        case "refresh_token":
            return tokens.refresh(
                request, kind: kind, client: client, issuer: issuer, jkt: jkt, checksBinding: dpop.enabled,
                keys: &keys, users: users, context: &context)
        case nil:
            return IssuerWire.oauthError(kind, "invalid_request", "grant_type is required.")
        case let other?:
            return IssuerWire.oauthError(kind, "unsupported_grant_type", "grant_type '\(other)' is not supported.")
        }
    }

    /// Google's userinfo endpoint (`endpoint`, its public URL): a bound access token only as `Authorization: DPoP`
    /// with a proof of its key; a bearer one only as `Bearer` (with DPoP turned off, a bound one is taken as bearer).
    mutating func userinfo(
        _ request: EmulatorRequest, endpoint: String, users: UserDirectory, context: EmulatorContext
    ) -> EmulatorResponse {
        guard let (value, presentedAsDPoP) = request.presentedAccessToken, let token = tokens.tokens[value] else {
            return tokens.userinfo(nil, users: users, context: context)
        }
        if dpop.enabled, let bound = token.jkt {
            guard presentedAsDPoP else {
                return dpop.resourceRefusal(.invalid("the access token is bound to a key: send it as DPoP"))
            }
            switch dpop.check(request, url: endpoint, accessToken: value, now: context.now) {
            case .failure(let refusal): return dpop.resourceRefusal(refusal)
            case .success(let key):
                guard key.map({ ConstantTime.equal($0, bound) }) == true else {
                    return dpop.resourceRefusal(
                        .invalid(key == nil ? "a bound access token needs a proof" : "the proof is of another key"))
                }
            }
        } else if presentedAsDPoP, token.jkt == nil {
            return tokens.userinfo(nil, users: users, context: context)
        }
        return dpop.answer(tokens.userinfo(value, users: users, context: context))
    }

    // MARK: Native sign-in (what a native SDK hands the app)

    /// What a native SDK hands the app after the user signs in: an id_token for `clientID` with `nonce` as given
    /// (Apple and Limited Login: the SHA-256 of the app's raw nonce, hex), and an authorization code the app's
    /// backend can exchange without a redirect URI: Apple's, for `clientID`; Google's `serverAuthCode`, for
    /// `serverClientID` (the server's web client, with offline access) when one is given.
    mutating func nativeSignIn(
        kind: EmulatedIssuerKind, clientID: String, userID: String, nonce: String?, serverClientID: String? = nil,
        baseURL: String, users: UserDirectory, context: inout EmulatorContext
    ) throws(ControlError) -> JSONValue {
        let configuration = context.configuration
        guard configuration.issuerClient(kind, clientID) != nil else {
            throw .notFound("\(kind.rawValue) client \(clientID)")
        }
        guard users[userID] != nil else { throw .notFound("user \(userID)") }
        let scopes = kind == .apple ? ["name", "email"] : ["openid", "email", "profile"]
        var code: String?
        if kind == .apple {
            let value =
                "c" + context.random.alphanumeric(31).lowercased() + ".0.mend." + context.random.alphanumeric(40)
            tokens.codes[value] = IssuerTokens.Code(
                kind: kind, clientID: clientID, userID: userID, redirectURI: nil, challenge: nil,
                challengeMethod: nil, nonce: nonce, scopes: scopes, offline: true,
                expiresAt: context.now.addingTimeInterval(300))
            code = value
        } else if kind == .google, let serverClientID {
            guard configuration.issuerClient(kind, serverClientID)?.secret != nil else {
                throw .invalid("serverClientID must be a Google web client (one with a secret)")
            }
            let value = "4/0" + context.random.alphanumeric(70)
            tokens.codes[value] = IssuerTokens.Code(
                kind: kind, clientID: serverClientID, userID: userID, redirectURI: nil, challenge: nil,
                challengeMethod: nil, nonce: nil, scopes: scopes, offline: true,
                expiresAt: context.now.addingTimeInterval(300))
            code = value
        }
        guard
            let idToken = try? keys.idToken(
                kind: kind, clientID: clientID, userID: userID, nonce: nonce, scopes: scopes,
                issuer: kind.issuer(baseURL: baseURL), code: code, accessToken: nil, users: users, context: &context)
        else { throw .invalid("the id_token could not be signed") }
        return JSONValue.object([("id_token", .string(idToken)), ("authorization_code", .string(code))])
    }
}

/// A revocation an emulated issuer (or the Facebook-compatible provider) received.
public struct IssuerRevocation: Sendable, Hashable, Codable {
    /// `apple`, `google` or `facebook`.
    public var issuer: String
    /// The client (app) that revoked.
    public var clientID: String
    /// The user whose grant ended.
    public var userID: String
    /// `access` or `refresh` (Facebook: `permissions`, the whole grant).
    public var tokenKind: String
    /// When, by the emulator's clock.
    public var at: Date
}
