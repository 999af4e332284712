import Foundation
import MendCore

/// RFC 8628 at an issuer (Google): the device authorization endpoint and the device-code grant, on the device logins
/// the provider's `device/login` shares.
extension IssuerState {
    /// RFC 8628's grant type at the token endpoint.
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

    /// `POST {issuer}/device/code` (RFC 8628 §3.1; Google's device authorization endpoint): client
    /// authentication as at the token endpoint, then `device_code`, `user_code`, `verification_url` (Google's
    /// name, beside RFC 8628's `verification_uri`), `expires_in` and `interval`.
    func deviceAuthorization(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, issuer: String, deviceLogins: inout DeviceLoginBook,
        context: inout EmulatorContext
    ) -> EmulatorResponse {
        let client: EmulatedIssuerClient
        switch IssuerTokens.authenticateClient(request, kind: kind, issuer: issuer, keys: keys, context: context) {
        case .failure(let refusal): return refusal.response
        case .success(let authenticated): client = authenticated
        }
        let scopes = DeviceLoginBook.scopes(request.form["scope"] ?? "openid")
        let authorization = deviceLogins.start(
            appID: "\(kind.rawValue):\(client.id)", scopes: scopes, isRFC8628: true, context: &context)
        let page = "\(request.baseURL)/device"
        return IssuerWire.tokenResponse(
            .object([
                "device_code": .string(authorization.deviceCode), "user_code": .string(authorization.userCode),
                "verification_url": .string(page), "verification_uri": .string(page),
                "verification_uri_complete": .string("\(page)?user_code=\(authorization.userCode)"),
                "expires_in": .int(context.configuration.deviceCodeLifetime), "interval": .int(authorization.interval),
            ]))
    }

    /// The device-code grant (RFC 8628 §3.4): tokens once approved (an access token, a refresh token, an id_token
    /// for `openid`), else `authorization_pending`, `slow_down`, `access_denied` or `expired_token` (§3.5). With
    /// `jkt` (the request proved a key, RFC 9449 §5) the tokens are bound as the code grant binds them: the access
    /// token, and a public client's refresh token; `token_type` is `DPoP`.
    mutating func pollDeviceLogin(
        _ request: EmulatorRequest, kind: EmulatedIssuerKind, client: EmulatedIssuerClient, issuer: String,
        jkt: String?, users: inout UserDirectory, deviceLogins: inout DeviceLoginBook, context: inout EmulatorContext
    ) -> EmulatorResponse {
        guard let deviceCode = request.form["device_code"], !deviceCode.isEmpty else {
            return IssuerWire.oauthError(kind, "invalid_request", "device_code is required.")
        }
        switch deviceLogins.poll(
            deviceCode: deviceCode, appID: "\(kind.rawValue):\(client.id)", users: &users, context: &context)
        {
        case .failure(let refusal):
            return IssuerWire.oauthError(kind, refusal.oauthError, refusal.graphFailure.userMessage)
        case .success(let approval):
            let refresh = tokens.issueRefreshToken(
                kind: kind, clientID: client.id, userID: approval.userID, scopes: approval.granted, context: &context)
            if client.secret == nil { tokens.tokens[refresh]?.jkt = jkt }
            let access = tokens.issueAccessToken(
                kind: kind, clientID: client.id, userID: approval.userID, scopes: approval.granted,
                refreshToken: refresh, jkt: jkt, context: &context)
            var body: [(String, JSONValue?)] = [
                ("access_token", .string(access)), ("token_type", .string(jkt == nil ? "Bearer" : "DPoP")),
                ("expires_in", .int(3599)),
                ("refresh_token", .string(refresh)), ("scope", .string(IssuerWire.googleScopeText(approval.granted))),
            ]
            if approval.granted.contains("openid") {
                guard
                    let idToken = try? keys.idToken(
                        kind: kind, clientID: client.id, userID: approval.userID, nonce: nil,
                        scopes: approval.granted, issuer: issuer, code: nil, accessToken: access, users: users,
                        context: &context)
                else { return IssuerWire.oauthError(kind, "server_error", "The id_token could not be signed.") }
                body.append(("id_token", .string(idToken)))
            }
            return IssuerWire.tokenResponse(.object(body))
        }
    }
}
