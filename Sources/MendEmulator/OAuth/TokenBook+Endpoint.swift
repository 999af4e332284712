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

extension TokenBook {
    /// `GET|POST /{version}/oauth/access_token`: client authentication, then the code exchange (secret or PKCE),
    /// `fb_exchange_token` and `client_credentials`.
    mutating func tokenEndpoint(
        _ request: EmulatorRequest, users: UserDirectory, context: inout EmulatorContext
    ) -> EmulatorResponse {
        switch accessToken(request, users: users, context: &context) {
        case .success(let body): return context.render(.success(body))
        case .failure(.graph(let failure)): return context.render(.failure(failure))
        case .failure(.invalidClient(let description)):
            var response = EmulatorResponse.json(
                .object(["error": .string("invalid_client"), "error_description": .string(description)]),
                status: .unauthorized,
                headers: [
                    .wwwAuthenticate: #"Basic realm="oauth", charset="UTF-8""#, .cacheControl: "no-store",
                    HTTPField.Name("pragma")!: "no-cache",
                ])
            GraphHeaders.apply(
                to: &response.headers, traceID: context.traceID(), graphVersion: context.graphVersion)
            return response
        }
    }

    /// The token endpoint's answer (``tokenEndpoint(_:users:context:)`` renders it).
    mutating func accessToken(
        _ request: EmulatorRequest, users: UserDirectory, context: inout EmulatorContext
    ) -> Result<JSONValue, TokenEndpointFailure> {
        let client: ClientAuthentication
        switch Self.authenticateClient(request, apps: context.apps) {
        case .failure(let failure): return .failure(failure)
        case .success(let authenticated): client = authenticated
        }
        let app = client.app
        switch request.parameter("grant_type") {
        case "client_credentials":
            guard client.isAuthenticated else { return .failure(Self.missingSecret) }
            let token = issueAppToken(appID: app.id, context: &context)
            return .success(.object(["access_token": .string(token.value), "token_type": .string("bearer")]))
        case "fb_exchange_token":
            guard client.isAuthenticated else { return .failure(Self.missingSecret) }
            guard let shortLived = request.parameter("fb_exchange_token") else {
                return .failure(.graph(GraphFailure(code: 100, message: "Missing fb_exchange_token parameter.")))
            }
            switch validate(token: shortLived, users: users, context: context) {
            case .failure(let failure): return .failure(.graph(failure))
            case .success(let identity):
                guard identity.token.kind == .user, identity.app.id == app.id, let userID = identity.userID else {
                    return .failure(
                        .graph(
                            GraphFailure(
                                code: 100, message: "(#100) The fb_exchange_token does not belong to this app.")))
                }
                let lifetime = context.configuration.longLivedTokenLifetime
                let token = issueUserToken(
                    appID: app.id, userID: userID, lifetime: lifetime, longLived: true, context: &context)
                return .success(Self.tokenBody(token, lifetime: lifetime))
            }
        case nil, "authorization_code":
            return exchange(request, client: client, users: users, context: &context)
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
    static func authenticateClient(
        _ request: EmulatorRequest, apps: [String: EmulatedApp]
    ) -> Result<ClientAuthentication, TokenEndpointFailure> {
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
        _ request: EmulatorRequest, client: ClientAuthentication, users: UserDirectory,
        context: inout EmulatorContext
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
        if context.now >= code.expiresAt {
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
        let lifetime = context.configuration.shortLivedTokenLifetime
        let token = issueUserToken(
            appID: app.id, userID: code.userID, lifetime: lifetime, longLived: false, context: &context)
        code.issuedToken = token.value
        codes[codeValue] = code
        var body = Self.tokenBody(token, lifetime: lifetime)
        if code.scopes.contains("openid"),
            let idToken = try? idToken(
                appID: app.id, userID: code.userID, nonce: code.nonce, issuer: context.issuer(baseURL: request.baseURL),
                users: users, context: &context),
            case .object(var members) = body
        {
            members["id_token"] = .string(idToken)
            body = .object(members)
        }
        return .success(body)
    }

    static func tokenBody(_ token: TokenRecord, lifetime: Int) -> JSONValue {
        .object([
            "access_token": .string(token.value), "token_type": .string("bearer"), "expires_in": .int(lifetime),
        ])
    }

    /// BASE64URL(SHA256(verifier)), the S256 code challenge (RFC 7636).
    static func s256(_ verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }
}
