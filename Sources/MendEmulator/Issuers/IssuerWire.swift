import Foundation
import HTTPTypes
import MendCore

/// The emulated issuers' wire shapes: the discovery documents, the OAuth error and token bodies, the `form_post`
/// page, Apple's redirect rule and Google's scope names. Pure functions of their inputs.
enum IssuerWire {
    /// The discovery document of `kind` at `issuer`; with `dpop`, `dpop_signing_alg_values_supported` too.
    static func discoveryDocument(kind: EmulatedIssuerKind, issuer: String, dpop: Bool = false) -> JSONValue {
        let document = baseDocument(kind: kind, issuer: issuer)
        guard dpop, case .object(var fields) = document else { return document }
        fields["dpop_signing_alg_values_supported"] = .array([.string("ES256")])
        return .object(fields)
    }

    private static func baseDocument(kind: EmulatedIssuerKind, issuer: String) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        switch kind {
        case .apple:
            return .object([
                "issuer": .string(issuer), "authorization_endpoint": .string("\(issuer)/auth/authorize"),
                "token_endpoint": .string("\(issuer)/auth/token"),
                "revocation_endpoint": .string("\(issuer)/auth/revoke"),
                "jwks_uri": .string("\(issuer)/auth/keys"),
                "response_types_supported": strings(["code", "code id_token"]),
                "response_modes_supported": strings(["query", "fragment", "form_post"]),
                "subject_types_supported": strings(["pairwise"]),
                "id_token_signing_alg_values_supported": strings(["RS256"]),
                "scopes_supported": strings(["openid", "email", "name"]),
                "token_endpoint_auth_methods_supported": strings(["client_secret_post"]),
                "code_challenge_methods_supported": strings(["S256"]),
                "claims_supported": strings([
                    "aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce",
                    "nonce_supported", "real_user_status", "sub", "at_hash", "c_hash", "auth_time",
                ]),
            ])
        case .google:
            return .object([
                "issuer": .string(issuer), "authorization_endpoint": .string("\(issuer)/o/oauth2/v2/auth"),
                "token_endpoint": .string("\(issuer)/token"), "userinfo_endpoint": .string("\(issuer)/v1/userinfo"),
                "revocation_endpoint": .string("\(issuer)/revoke"), "jwks_uri": .string("\(issuer)/oauth2/v3/certs"),
                "response_types_supported": strings(["code"]),
                "subject_types_supported": strings(["public"]),
                "id_token_signing_alg_values_supported": strings(["RS256"]),
                "scopes_supported": strings(["openid", "email", "profile"]),
                "token_endpoint_auth_methods_supported": strings(["client_secret_post", "client_secret_basic"]),
                "claims_supported": strings([
                    "aud", "email", "email_verified", "exp", "family_name", "given_name", "iat", "iss", "name",
                    "picture", "sub", "hd", "azp", "at_hash", "nonce",
                ]),
                "code_challenge_methods_supported": strings(["plain", "S256"]),
                "grant_types_supported": strings([
                    "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
                ]),
                "device_authorization_endpoint": .string("\(issuer)/device/code"),
            ])
        }
    }

    /// Apple's redirect rule: `https` to a domain name (never an IP address or `localhost`).
    static func isAppleRedirect(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), components.scheme == "https",
            let host = components.host?.lowercased(), host.contains("."), !host.hasSuffix(".")
        else { return false }
        let isIPv4 = host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
        return !isIPv4 && !host.contains(":") && host != "localhost" && !host.hasSuffix(".localhost")
    }

    /// The page a `form_post` answer is: a form that posts itself to the redirect URI (OAuth 2.0 Form Post
    /// Response Mode).
    static func formPost(action: String, fields: [(String, String)]) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let inputs = fields.map { #"<input type="hidden" name="\#(escape($0.0))" value="\#(escape($0.1))">"# }
        return """
            <!DOCTYPE html>
            <html><head><title>Submit This Form</title></head>
            <body onload="document.forms[0].submit()">
            <form method="post" action="\(escape(action))">
            \(inputs.joined(separator: "\n"))
            <noscript><button type="submit">Continue</button></noscript>
            </form></body></html>
            """
    }

    static func googleScopeText(_ scopes: [String]) -> String {
        scopes.map { scope in
            switch scope {
            case "email": "https://www.googleapis.com/auth/userinfo.email"
            case "profile": "https://www.googleapis.com/auth/userinfo.profile"
            default: scope
            }
        }.joined(separator: " ")
    }

    static func tokenResponse(_ body: JSONValue) -> EmulatorResponse {
        .json(body, headers: [.cacheControl: "no-store", HTTPField.Name("pragma")!: "no-cache"])
    }

    /// An OAuth error body: Apple answers 400 for every error, `invalid_client` included, without a description;
    /// Google answers `invalid_client` with 401.
    static func oauthError(_ kind: EmulatedIssuerKind, _ error: String, _ description: String?) -> EmulatorResponse {
        let status: HTTPResponse.Status = kind == .google && error == "invalid_client" ? .unauthorized : .badRequest
        var body: [(String, JSONValue?)] = [("error", .string(error))]
        if kind == .google { body.append(("error_description", .string(description))) }
        return .json(.object(body), status: status, headers: [.cacheControl: "no-store"])
    }
}
