import Crypto
import Foundation
import HTTPTypes
import MendCore

/// Why the token endpoint refused a request.
enum TokenEndpointFailure: Error, Sendable {
    /// A Graph error, in the provider's envelope.
    case graph(GraphFailure)
    /// Client authentication failed (RFC 6749 §5.2): `401`, `{"error":"invalid_client",…}` and
    /// `WWW-Authenticate: Basic`.
    case invalidClient(String)
}

/// How the client authenticated at the token endpoint.
struct ClientAuthentication: Sendable {
    /// The app.
    var app: EmulatedApp
    /// Whether the client proved the app secret (HTTP Basic or `client_secret`); a public client (PKCE) does not.
    var isAuthenticated: Bool
}

extension EmulatorState {
    /// `GET|POST /{version}/oauth/access_token`: client authentication, then the code exchange (secret or PKCE),
    /// `fb_exchange_token` and `client_credentials`.
    mutating func tokenEndpoint(_ request: EmulatorRequest) -> EmulatorResponse {
        switch accessToken(request) {
        case .success(let body): return render(.success(body))
        case .failure(.graph(let failure)): return render(.failure(failure))
        case .failure(.invalidClient(let description)):
            var response = EmulatorResponse.json(
                .object(["error": .string("invalid_client"), "error_description": .string(description)]),
                status: .unauthorized,
                headers: [
                    .wwwAuthenticate: #"Basic realm="oauth", charset="UTF-8""#, .cacheControl: "no-store",
                    HTTPField.Name("pragma")!: "no-cache",
                ])
            GraphHeaders.apply(to: &response.headers, traceID: traceID(), graphVersion: graphVersion)
            return response
        }
    }

    /// The token endpoint's answer (``tokenEndpoint(_:)`` renders it).
    mutating func accessToken(_ request: EmulatorRequest) -> Result<JSONValue, TokenEndpointFailure> {
        let client: ClientAuthentication
        switch authenticateClient(request) {
        case .failure(let failure): return .failure(failure)
        case .success(let authenticated): client = authenticated
        }
        let app = client.app
        switch request.parameter("grant_type") {
        case "client_credentials":
            guard client.isAuthenticated else { return .failure(Self.missingSecret) }
            let token = issueAppToken(appID: app.id)
            return .success(.object(["access_token": .string(token.value), "token_type": .string("bearer")]))
        case "fb_exchange_token":
            guard client.isAuthenticated else { return .failure(Self.missingSecret) }
            guard let shortLived = request.parameter("fb_exchange_token") else {
                return .failure(.graph(GraphFailure(code: 100, message: "Missing fb_exchange_token parameter.")))
            }
            switch validate(token: shortLived) {
            case .failure(let failure): return .failure(.graph(failure))
            case .success(let identity):
                guard identity.token.kind == .user, identity.app.id == app.id, let userID = identity.userID else {
                    return .failure(
                        .graph(
                            GraphFailure(
                                code: 100, message: "(#100) The fb_exchange_token does not belong to this app.")))
                }
                let token = issueUserToken(
                    appID: app.id, userID: userID, lifetime: configuration.longLivedTokenLifetime, longLived: true)
                return .success(tokenBody(token, lifetime: configuration.longLivedTokenLifetime))
            }
        case nil, "authorization_code":
            return exchange(request, client: client)
        case let other?:
            return .failure(.graph(GraphFailure(code: 100, message: "(#100) Unsupported grant_type: \(other)")))
        }
    }

    /// A confidential grant without client credentials (RFC 6749 §2.3: the client must authenticate).
    static let missingSecret = TokenEndpointFailure.invalidClient(
        "Client authentication is required: send the app secret with HTTP Basic or as client_secret.")

    /// Client authentication (RFC 6749 §2.3.1): `Authorization: Basic base64(urlencode(id):urlencode(secret))`, or
    /// `client_id` and `client_secret` parameters, or `client_id` alone (a public client, which must then use PKCE).
    /// Both ways at once must name the same client and secret. Basic failures are `invalid_client` (401); body
    /// failures keep the provider's Graph errors (unknown app 101, wrong secret 1).
    func authenticateClient(_ request: EmulatorRequest) -> Result<ClientAuthentication, TokenEndpointFailure> {
        let bodyID = request.parameter("client_id").flatMap { $0.isEmpty ? nil : $0 }
        let bodySecret = request.parameter("client_secret")
        switch request.basicCredentials {
        case .malformed?:
            return .failure(.invalidClient("The Authorization header is not valid HTTP Basic credentials."))
        case .valid(let basicID, let basicSecret)?:
            if let bodyID, bodyID != basicID {
                return .failure(.invalidClient("client_id differs from the client in the Authorization header."))
            }
            if let bodySecret, bodySecret != basicSecret {
                return .failure(.invalidClient("client_secret differs from the secret in the Authorization header."))
            }
            guard let app = apps[basicID], basicSecret == app.secret else {
                return .failure(.invalidClient("Client authentication failed."))
            }
            return .success(ClientAuthentication(app: app, isAuthenticated: true))
        case nil:
            guard let bodyID else {
                return .failure(.graph(GraphFailure(code: 101, message: "Missing client_id parameter.")))
            }
            guard let app = apps[bodyID] else {
                return .failure(
                    .graph(GraphFailure(code: 101, message: "Error validating application. Invalid application ID.")))
            }
            if let bodySecret, bodySecret != app.secret {
                return .failure(
                    .graph(
                        GraphFailure(
                            code: 1, message: "Error validating client secret.", isTransient: false,
                            status: .badRequest)))
            }
            return .success(ClientAuthentication(app: app, isAuthenticated: bodySecret != nil))
        }
    }

    private mutating func exchange(
        _ request: EmulatorRequest, client: ClientAuthentication
    ) -> Result<JSONValue, TokenEndpointFailure> {
        let app = client.app
        func fail(_ failure: GraphFailure) -> Result<JSONValue, TokenEndpointFailure> { .failure(.graph(failure)) }
        guard let codeValue = request.parameter("code"), !codeValue.isEmpty else {
            return fail(GraphFailure(code: 100, message: "Missing code parameter."))
        }
        guard var code = codes[codeValue], code.appID == app.id else {
            return fail(GraphFailure(code: 100, message: "Invalid verification code format."))
        }
        if code.used {
            // A reused code is an attack sign: the token it issued is revoked.
            if let issued = code.issuedToken { tokens[issued]?.revokedSubcode = 467 }
            return fail(GraphFailure(code: 100, subcode: 36009, message: "This authorization code has been used."))
        }
        if now >= code.expiresAt {
            return fail(GraphFailure(code: 100, subcode: 36007, message: "This authorization code has expired."))
        }
        guard request.parameter("redirect_uri") == code.redirectURI else {
            return fail(
                GraphFailure(
                    code: 100, subcode: 36008,
                    message: "Error validating verification code. Please make sure your redirect_uri is identical "
                        + "to the one you used in the OAuth dialog request"))
        }
        if let challenge = code.codeChallenge {
            guard let verifier = request.parameter("code_verifier"), !verifier.isEmpty else {
                return fail(GraphFailure(code: 100, message: "(#100) Missing code_verifier parameter."))
            }
            guard Self.s256(verifier) == challenge else {
                return fail(
                    GraphFailure(
                        code: 100, message: "(#100) Invalid code_verifier: it does not match the code_challenge."))
            }
        } else if !client.isAuthenticated {
            return .failure(Self.missingSecret)
        }
        code.used = true
        let token = issueUserToken(
            appID: app.id, userID: code.userID, lifetime: configuration.shortLivedTokenLifetime, longLived: false)
        code.issuedToken = token.value
        codes[codeValue] = code
        var body = tokenBody(token, lifetime: configuration.shortLivedTokenLifetime)
        if code.scopes.contains("openid"),
            let idToken = try? idToken(
                appID: app.id, userID: code.userID, nonce: code.nonce, issuer: issuer(baseURL: request.baseURL)),
            case .object(var members) = body
        {
            members["id_token"] = .string(idToken)
            body = .object(members)
        }
        return .success(body)
    }

    func tokenBody(_ token: TokenRecord, lifetime: Int) -> JSONValue {
        .object([
            "access_token": .string(token.value), "token_type": .string("bearer"), "expires_in": .int(lifetime),
        ])
    }

    /// BASE64URL(SHA256(verifier)), the S256 code challenge (RFC 7636).
    static func s256(_ verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// The issuer as a client at `baseURL` sees it: ``EmulatorConfiguration/issuer``, or `baseURL` itself for
    /// ``EmulatorConfiguration/baseURLIssuer``.
    func issuer(baseURL: String) -> String {
        configuration.issuer == EmulatorConfiguration.baseURLIssuer ? baseURL : configuration.issuer
    }

    /// A signed OIDC id_token for the user.
    mutating func idToken(appID: String, userID: String, nonce: String?, issuer: String) throws -> String {
        guard let user = users[userID]?.profile else { throw GraphFailure.catalog(code: 100, subcode: 33) }
        let key = try signingKeys.current(random: &random)
        let issuedAt = Int(now.timeIntervalSince1970)
        let email = grantedScopes(userID: userID, appID: appID).contains("email") ? user.email : nil
        let claims = JSONValue.object([
            ("iss", .string(issuer)), ("aud", .string(appID)), ("sub", .string(userID)),
            ("iat", .int(issuedAt)), ("exp", .int(issuedAt + 3600)), ("jti", .string(random.alphanumeric(32))),
            ("nonce", .string(nonce)), ("name", .string(user.name)), ("given_name", .string(user.firstName)),
            ("family_name", .string(user.lastName)), ("email", .string(email)), ("picture", .string(user.pictureURL)),
        ])
        return try SigningKeyRing.sign(claims: claims, with: key)
    }

    /// `GET /debug_token?input_token=…&access_token=…`: every field of the provider's answer.
    func debugToken(_ request: EmulatorRequest) -> Result<JSONValue, GraphFailure> {
        guard let inspector = request.accessToken else {
            return .failure(GraphFailure(code: 104, message: "An access token is required to request this resource."))
        }
        guard case .success(let caller) = validate(token: inspector) else {
            return .failure(.catalog(code: 190, subcode: nil))
        }
        guard let input = request.parameter("input_token"), !input.isEmpty else {
            return .failure(GraphFailure(code: 100, message: "(#100) The parameter input_token is required"))
        }
        guard let record = tokenRecord(for: input) else {
            return .success(
                .object([
                    "data": .object([
                        "error": .object([
                            "code": .int(190),
                            "message": .string("Invalid OAuth access token - Cannot parse access token"),
                        ]),
                        "is_valid": .bool(false), "scopes": .array([]), "granular_scopes": .array([]),
                    ])
                ]))
        }
        let app = apps[record.appID]
        var data: [(String, JSONValue?)] = [
            ("app_id", .string(record.appID)), ("type", .string(record.kind.rawValue)),
            ("application", .string(app?.name)),
            ("expires_at", .int(record.expiresAt.map { Int($0.timeIntervalSince1970) } ?? 0)),
            ("issued_at", .int(Int(record.issuedAt.timeIntervalSince1970))),
        ]
        if let dataAccess = record.dataAccessExpiresAt {
            data.append(("data_access_expires_at", .int(Int(dataAccess.timeIntervalSince1970))))
        }
        let scopes = record.userID.map { grantedScopes(userID: $0, appID: record.appID) } ?? []
        data.append(("scopes", .array(scopes.map(JSONValue.string))))
        data.append(
            (
                "granular_scopes",
                .array(scopes.filter { $0 != "public_profile" }.map { .object(["scope": .string($0)]) })
            ))
        if let userID = record.userID { data.append(("user_id", .string(userID))) }
        switch validate(token: input) {
        case .success:
            data.append(("is_valid", .bool(true)))
        case .failure(let failure):
            data.append(("is_valid", .bool(false)))
            data.append(
                (
                    "error",
                    .object([
                        ("code", .int(failure.code)), ("message", .string(failure.message)),
                        ("subcode", failure.subcode.map(JSONValue.int)),
                    ])
                ))
        }
        _ = caller
        return .success(.object(["data": .object(data)]))
    }

    /// `/.well-known/openid-configuration`: the endpoints, client authentication at the token endpoint by HTTP
    /// Basic or form parameters, and the issuer in every authorization response (RFC 9207).
    func openIDConfiguration(baseURL: String) -> JSONValue {
        .object([
            "issuer": .string(issuer(baseURL: baseURL)),
            "authorization_endpoint": .string("\(baseURL)/\(graphVersion)/dialog/oauth"),
            "token_endpoint": .string("\(baseURL)/\(graphVersion)/oauth/access_token"),
            "jwks_uri": .string("\(baseURL)/.well-known/oauth/openid/jwks/"),
            "response_types_supported": .array(["code", "id_token", "token id_token"].map(JSONValue.string)),
            "subject_types_supported": .array([.string("pairwise")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "claims_supported": .array(
                [
                    "iss", "aud", "sub", "iat", "exp", "jti", "nonce", "name", "given_name", "family_name", "email",
                    "picture",
                ].map(JSONValue.string)),
            "code_challenge_methods_supported": .array([.string("S256")]),
            "token_endpoint_auth_methods_supported": .array(
                ["client_secret_basic", "client_secret_post"].map(JSONValue.string)),
            "authorization_response_iss_parameter_supported": .bool(true),
        ])
    }
}
