public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

extension LoginProvider {
    /// Reads an OpenID Connect provider's endpoints from its discovery document
    /// (`<issuer>/.well-known/openid-configuration`, or the document's own URL).
    ///
    /// The document is trusted only as far as it can be checked (OpenID Connect Discovery 1.0 §4.3):
    /// - its `issuer` must be exactly the issuer asked for — the URL given, or the document's URL without
    ///   `/.well-known/openid-configuration` (a trailing `/` aside) — so a document cannot speak for another issuer;
    /// - the URL given and every endpoint of the document must be `https`, except `http` on a loopback IP literal
    ///   (`127.0.0.1` or `[::1]`: the emulator, tests). `localhost` is not a literal (a resolver or a hosts file
    ///   decides where it goes), so it needs `https` too.
    ///
    /// The provider's ``requiresAuthorizationResponseIssuer`` follows the document's
    /// `authorization_response_iss_parameter_supported` (RFC 9207); its ``dpopSigningAlgorithms``, the document's
    /// `dpop_signing_alg_values_supported` (RFC 9449).
    ///
    /// - Throws: `transport/11` when the URL is not `https`; the fetch's classified error when the document cannot be
    ///   fetched or is not JSON; `login/323` when the document names no issuer or another one than asked for, lacks
    ///   the authorization or token endpoint, or names an `http` endpoint.
    public static func discover(
        issuer: URL, clientID: String, transport: any HTTPTransport
    ) async throws -> LoginProvider {
        let suffix = "/.well-known/openid-configuration"
        let documentURL: URL
        let expectedIssuer: String
        let given = issuer.absoluteString
        if issuer.path.hasSuffix(suffix), let range = given.range(of: suffix, options: .backwards) {
            documentURL = issuer
            expectedIssuer = String(given[..<range.lowerBound])
        } else {
            documentURL = issuer.appendingPathComponent(".well-known/openid-configuration")
            expectedIssuer = given
        }
        guard isSecure(documentURL) else {
            throw MendError(
                code: .Transport.invalidRequest,
                developerMessage:
                    "The issuer \(given) is not https (plain http is allowed only on 127.0.0.1 or [::1]).",
                catalog: .login)
        }
        let client = APIClient(
            transport: transport, configuration: .init(isThirdParty: true),
            steps: .standard(retryPolicy: RetryPolicy(maximumAttempts: 2)))
        let document = try await client.send(APIRequest(method: .get, url: documentURL)).json()
        guard let declaredIssuer = document["issuer"]?.stringValue else {
            throw MendError.login(.Login.invalidDiscoveryDocument, "The discovery document names no issuer.")
        }
        func withoutTrailingSlash(_ text: String) -> Substring {
            text.hasSuffix("/") ? text.dropLast() : Substring(text)
        }
        guard withoutTrailingSlash(declaredIssuer) == withoutTrailingSlash(expectedIssuer) else {
            throw MendError.login(
                .Login.invalidDiscoveryDocument,
                "The discovery document names another issuer (\(declaredIssuer)) than \(expectedIssuer).")
        }
        guard let authorization = document["authorization_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            let token = document["token_endpoint"]?.stringValue.flatMap(URL.init(string:))
        else {
            throw MendError.login(
                .Login.invalidDiscoveryDocument,
                "The discovery document lacks authorization_endpoint or token_endpoint.")
        }
        let jwks = document["jwks_uri"]?.stringValue.flatMap(URL.init(string:))
        let revocation = document["revocation_endpoint"]?.stringValue.flatMap(URL.init(string:))
        let userinfo = document["userinfo_endpoint"]?.stringValue.flatMap(URL.init(string:))
        let device = document["device_authorization_endpoint"]?.stringValue.flatMap(URL.init(string:))
        for (name, url) in [
            ("issuer", URL(string: declaredIssuer)), ("authorization_endpoint", authorization),
            ("token_endpoint", token), ("jwks_uri", jwks), ("revocation_endpoint", revocation),
            ("userinfo_endpoint", userinfo), ("device_authorization_endpoint", device),
        ] {
            guard let url else { continue }
            guard isSecure(url) else {
                throw MendError.login(
                    .Login.invalidDiscoveryDocument,
                    "The discovery document's \(name) is not https (plain http is allowed only on 127.0.0.1 or [::1]).")
            }
        }
        var provider = LoginProvider(
            authorizationEndpoint: authorization, tokenEndpoint: token, issuer: declaredIssuer, jwksURI: jwks,
            revocationEndpoint: revocation, clientID: clientID)
        provider.userinfoEndpoint = userinfo
        provider.deviceAuthorizationEndpoint = device
        provider.requiresAuthorizationResponseIssuer =
            document["authorization_response_iss_parameter_supported"] == .bool(true)
        if case .array(let algorithms)? = document["dpop_signing_alg_values_supported"] {
            provider.dpopSigningAlgorithms = algorithms.compactMap(\.stringValue)
        }
        return provider
    }

    /// Whether `url` is `https`, or `http` on a loopback IP literal (`127.0.0.1`, `[::1]`).
    static func isSecure(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.host, !host.isEmpty
        else { return false }
        switch components.scheme?.lowercased() {
        case "https": return true
        case "http": return ["127.0.0.1", "::1", "[::1]"].contains(host)
        default: return false
        }
    }
}
