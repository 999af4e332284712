public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

extension LoginProvider {
    /// Reads an OpenID Connect provider's endpoints from its discovery document
    /// (`<issuer>/.well-known/openid-configuration`, or the document's own URL).
    ///
    /// - Throws: A classified error when the document cannot be fetched, or lacks the authorization or token
    ///   endpoint, or names an issuer other than the one asked for.
    public static func discover(
        issuer: URL, clientID: String, transport: any HTTPTransport
    ) async throws -> LoginProvider {
        let documentURL =
            issuer.path.hasSuffix("/.well-known/openid-configuration")
            ? issuer : issuer.appendingPathComponent(".well-known/openid-configuration")
        let client = APIClient(transport: transport, configuration: .init(retryPolicy: RetryPolicy(maximumAttempts: 2)))
        let document = try await client.send(APIRequest(method: .get, url: documentURL)).json()
        guard let authorization = document["authorization_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            let token = document["token_endpoint"]?.stringValue.flatMap(URL.init(string:))
        else {
            throw MendError(
                code: .Transport.malformedResponse,
                developerMessage: "The discovery document lacks authorization_endpoint or token_endpoint.")
        }
        let declaredIssuer = document["issuer"]?.stringValue
        let expected = issuer.path.hasSuffix("/.well-known/openid-configuration") ? nil : issuer.absoluteString
        if let expected, let declaredIssuer,
            declaredIssuer.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                != expected.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        {
            throw MendError.login(
                .Login.invalidIDToken, "The discovery document names another issuer (\(declaredIssuer)).")
        }
        return LoginProvider(
            authorizationEndpoint: authorization, tokenEndpoint: token, issuer: declaredIssuer,
            jwksURI: document["jwks_uri"]?.stringValue.flatMap(URL.init(string:)),
            revocationEndpoint: document["revocation_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            clientID: clientID)
    }
}
