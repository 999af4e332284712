import Foundation
import MendCore

/// A request body's fields and their rules: the one definition the routes validate with and `/openapi.json`
/// documents (``openAPI``), so that the document cannot promise what the server refuses or the reverse.
struct RequestSchema: Sendable {
    /// How a body may be sent.
    enum Encoding: String, Sendable {
        case json = "application/json"
        case form = "application/x-www-form-urlencoded"
    }

    /// A string field's rule: its length in UTF-8 bytes (no maximum but the body limit when `maxLength` is `nil`)
    /// and, optionally, a regular expression it must match whole (ECMA-262 syntax, as OpenAPI 3.1 and JSON Schema
    /// use it; checked with `NSRegularExpression`).
    ///
    /// The expression is compiled once, with the rule (schemas are made once per server), not per request.
    struct StringRule: Sendable {
        var minLength = 1
        var maxLength: Int?
        var pattern: String? {
            didSet { expression = pattern.map(CompiledPattern.init) }
        }
        var allowed: [String]?
        private(set) var expression: CompiledPattern?

        init(minLength: Int = 1, maxLength: Int? = nil, pattern: String? = nil, allowed: [String]? = nil) {
            self.minLength = minLength
            self.maxLength = maxLength
            self.pattern = pattern
            self.allowed = allowed
            self.expression = pattern.map(CompiledPattern.init)
        }
    }

    /// A compiled pattern; one that does not compile matches nothing.
    ///
    /// `@unchecked Sendable`: `NSRegularExpression` is immutable once made and documented as safe to use from any
    /// thread; it is only read here.
    final class CompiledPattern: @unchecked Sendable {
        let expression: NSRegularExpression?

        init(_ pattern: String) {
            self.expression = try? NSRegularExpression(pattern: pattern)
        }

        /// Whether `text` matches the whole pattern.
        func matches(_ text: String) -> Bool {
            guard let expression else { return false }
            let range = NSRange(text.startIndex..., in: text)
            guard let match = expression.firstMatch(in: text, range: range) else { return false }
            return match.range == range
        }
    }

    /// One field.
    struct Field: Sendable {
        enum Kind: Sendable {
            case string(StringRule)
            case boolean
            /// A JSON object, checked by the route (a WebAuthn credential); documented by the named schema.
            case object(schema: String)
        }

        var name: String
        var kind: Kind
        var required: Bool
        var description: String
    }

    /// The component name in `/openapi.json` (`LoginRequest`).
    var name: String
    var fields: [Field]
    var encodings: [Encoding]
    /// Whether a body must be sent (an empty one reads as `{}` when not).
    var bodyRequired = true

    /// The values of a body that passed validation.
    struct Values: Sendable {
        var strings: [String: String] = [:]
        var booleans: [String: Bool] = [:]
        var objects: [String: JSONValue] = [:]

        subscript(_ name: String) -> String? { strings[name] }
    }

    /// Validates the fields read from a body (a JSON object's members, or a form's fields as strings); unknown
    /// members are ignored. Throws rest/400 naming the first field at fault.
    func validate(_ object: [String: JSONValue]) throws -> Values {
        var values = Values()
        for field in fields {
            // Absent is absent; `null` is not a string or a boolean (no field here is nullable).
            guard let raw = object[field.name] else {
                if field.required { throw ServerFailure.badRequest("\(field.name) is required.") }
                continue
            }
            switch field.kind {
            case .boolean:
                guard case .bool(let flag) = raw else {
                    throw ServerFailure.badRequest("\(field.name) must be true or false.")
                }
                values.booleans[field.name] = flag
            case .object:
                guard case .object = raw else { throw ServerFailure.badRequest("\(field.name) must be an object.") }
                values.objects[field.name] = raw
            case .string(let rule):
                guard case .string(let text) = raw else {
                    throw ServerFailure.badRequest("\(field.name) must be a string.")
                }
                try check(text, against: rule, name: field.name)
                values.strings[field.name] = text
            }
        }
        return values
    }

    private func check(_ text: String, against rule: StringRule, name: String) throws {
        let length = text.utf8.count
        guard length >= rule.minLength, length <= rule.maxLength ?? .max else {
            throw ServerFailure.badRequest(
                rule.minLength > 0 && length == 0
                    ? "\(name) is empty."
                    : "\(name) must be \(rule.minLength)–\(rule.maxLength.map(String.init) ?? "any") bytes long.")
        }
        if let allowed = rule.allowed, !allowed.contains(text) {
            throw ServerFailure.badRequest("\(name) must be one of: \(allowed.joined(separator: ", ")).")
        }
        if let expression = rule.expression, !expression.matches(text) {
            throw ServerFailure.badRequest("\(name) is not in the expected format.")
        }
    }

    /// Whether `text` matches `pattern` whole.
    static func matches(_ text: String, pattern: String) -> Bool {
        CompiledPattern(pattern).matches(text)
    }

    /// The JSON Schema of the body.
    var openAPISchema: JSONValue {
        var properties: [String: JSONValue] = [:]
        for field in fields {
            var schema: [String: JSONValue] = ["description": .string(field.description)]
            switch field.kind {
            case .boolean:
                schema["type"] = .string("boolean")
            case .object(let name):
                schema["$ref"] = .string("#/components/schemas/\(name)")
            case .string(let rule):
                schema["type"] = .string("string")
                schema["minLength"] = .int(rule.minLength)
                if let maxLength = rule.maxLength { schema["maxLength"] = .int(maxLength) }
                if let pattern = rule.pattern { schema["pattern"] = .string(pattern) }
                if let allowed = rule.allowed { schema["enum"] = .array(allowed.map(JSONValue.string)) }
            }
            properties[field.name] = .object(schema)
        }
        return .object([
            "type": .string("object"), "properties": .object(properties),
            "required": .array(fields.filter(\.required).map { .string($0.name) }),
        ])
    }
}

extension RequestSchema {
    /// Base64url characters: what refresh tokens (`mrt_…`) are made of.
    static let opaqueTokenPattern = "^[A-Za-z0-9_-]+$"

    /// `POST /v1/login/code`. `code_verifier` is required unless the server allows logins without PKCE;
    /// `redirect_uri` must be one of the configured URIs (a loopback one on any port, RFC 8252 §7.3).
    static func login(_ configuration: ServerConfiguration) -> RequestSchema {
        RequestSchema(
            name: "LoginRequest",
            fields: [
                Field(
                    name: "code", kind: .string(StringRule(maxLength: 4096, pattern: "^[!-~]+$")), required: true,
                    description: "The authorization code of the provider's redirect (printable ASCII)."),
                Field(
                    name: "code_verifier",
                    kind: .string(StringRule(minLength: 43, maxLength: 128, pattern: "^[A-Za-z0-9._~-]+$")),
                    required: configuration.sessions.requiresPKCE,
                    description: "The PKCE verifier of the login (RFC 7636: 43–128 of A-Z a-z 0-9 - . _ ~)."),
                Field(
                    name: "redirect_uri",
                    kind: .string(
                        StringRule(
                            maxLength: 2048,
                            pattern: RedirectURIPolicy.pattern(allowed: configuration.sessions.allowedRedirectURIs))),
                    required: true,
                    description: "The redirect URI the code was issued for: one of the server's allowed URIs."),
                Field(
                    name: "provider",
                    kind: .string(StringRule(maxLength: 32, allowed: codeLoginProviders(configuration.providers))),
                    required: false,
                    description: "The provider of the code flow: facebook (the default), or a configured issuer that "
                        + "takes code logins (google, …), or one the server's code adds."),
            ], encodings: [.json])
    }

    /// `facebook` (with a Facebook app), the configured issuers with a token keeper (which may take code logins), and
    /// the app's own ``ServerConfiguration/Providers/codeLogin``.
    static func codeLoginProviders(_ providers: ServerConfiguration.Providers) -> [String] {
        let keepers = providers.idTokenIssuers.filter { $0.tokenKeeper != nil }.map(\.name)
        return (providers.facebook == nil ? [] : ["facebook"]) + keepers.filter { $0 != "facebook" }
            + providers.codeLogin.map(\.name)
    }

    /// `POST /v1/login/id_token`. `provider` is one of the configured issuers' names (any lowercase name when none
    /// is configured: every request is then refused with 400, which says so).
    static func idTokenLogin(_ configuration: ServerConfiguration) -> RequestSchema {
        let names = configuration.providers.idTokenIssuers.map(\.name)
        return RequestSchema(
            name: "IDTokenLoginRequest",
            fields: [
                Field(
                    name: "provider",
                    kind: .string(
                        names.isEmpty
                            ? StringRule(maxLength: 32, pattern: "^[a-z0-9_-]+$")
                            : StringRule(maxLength: 32, allowed: names)),
                    required: true,
                    description: "Which configured issuer made the token: apple, google, facebook (Limited Login), …"),
                Field(
                    name: "id_token",
                    kind: .string(
                        StringRule(maxLength: 16384, pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$")),
                    required: true, description: "The id_token (a signed JWT) the provider's SDK gave the app."),
                Field(
                    name: "nonce", kind: .string(StringRule(maxLength: 256, pattern: "^[!-~]+$")), required: true,
                    description:
                        "The raw nonce the app generated for this sign-in (Apple and Limited Login put its SHA-256, hex, in the token)."
                ),
                Field(
                    name: "authorization_code", kind: .string(StringRule(maxLength: 4096, pattern: "^[!-~]+$")),
                    required: false,
                    description:
                        "Apple: the authorization code the sign-in also returned; the server keeps a token to revoke at account deletion."
                ),
            ], encodings: [.json])
    }

    /// `POST /v1/login/provider-token`: a provider access token the app got by itself (device login).
    static let providerTokenLogin = RequestSchema(
        name: "ProviderTokenLoginRequest",
        fields: [
            Field(
                name: "provider_token", kind: .string(StringRule(maxLength: 4096, pattern: "^[!-~]+$")),
                required: true,
                description:
                    "A user access token the provider issued to this app (device login); checked with debug_token for the app, its validity and the user."
            )
        ], encodings: [.json])

    /// `POST /v1/session/refresh`.
    static let refresh = RequestSchema(
        name: "RefreshRequest",
        fields: [
            Field(
                name: "refresh_token", kind: .string(StringRule(maxLength: 512, pattern: opaqueTokenPattern)),
                required: true, description: "The session's current refresh token.")
        ], encodings: [.json])

    /// `POST /v1/session/logout`: an empty body is `{}`.
    static let logout = RequestSchema(
        name: "LogoutRequest",
        fields: [
            Field(
                name: "refresh_token", kind: .string(StringRule(maxLength: 512, pattern: opaqueTokenPattern)),
                required: false,
                description: "The session's refresh token: ends the session without a valid access token."),
            Field(
                name: "revoke_provider_permissions", kind: .boolean, required: false,
                description: "Also revoke the app's permissions at the provider (ends every session of the user)."),
            Field(
                name: "scope", kind: .string(StringRule(maxLength: 6, allowed: LogoutScope.allCases.map(\.rawValue))),
                required: false,
                description: "What ends: local (the default) the caller's session; others the user's other sessions; "
                    + "global all of them."),
        ], encodings: [.json], bodyRequired: false)

    /// `POST /v1/session/revoke` (RFC 7009), a form or a JSON object.
    static let revocation = RequestSchema(
        name: "RevocationRequest",
        fields: [
            // Any token, however malformed, is answered 200 (RFC 7009 §2.2: invalid tokens cause no error).
            Field(
                name: "token", kind: .string(StringRule()), required: true,
                description: "A refresh token or an access token of the session to end."),
            Field(
                name: "token_type_hint",
                kind: .string(StringRule(maxLength: 13, allowed: ["refresh_token", "access_token"])),
                required: false, description: "Which kind of token it is (advisory: the other is tried too)."),
        ], encodings: [.form, .json])

    /// The provider's callbacks (`signed_request`, a form).
    static let signedRequest = RequestSchema(
        name: "SignedRequestForm",
        fields: [
            Field(
                name: "signed_request",
                kind: .string(StringRule(maxLength: 8192, pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$")),
                required: true,
                description: "base64url(HMAC-SHA256 signature).base64url(JSON payload), signed with the app secret.")
        ], encodings: [.form, .json])

    /// The admin API's endings (`POST /v1/admin/users/{id}/logout`, `POST /v1/admin/sessions/{id}/end`): an empty
    /// body is `{}`.
    static let adminEnd = RequestSchema(
        name: "AdminEndRequest",
        fields: [
            Field(
                name: "reason", kind: .string(StringRule(maxLength: 200)), required: false,
                description:
                    "Why, in words: the clients' developer message and the audit log carry it (control characters "
                    + "become spaces; token-shaped text is redacted).")
        ], encodings: [.json], bodyRequired: false)

    /// `POST /v1/passkeys/registration`.
    static let passkeyRegistration = RequestSchema(
        name: "PasskeyRegistrationRequest",
        fields: [
            Field(
                name: "credential", kind: .object(schema: "RegistrationResponseJSON"), required: true,
                description: "The new credential as the browser's PublicKeyCredential.toJSON() gives it."),
            Field(
                name: "name", kind: .string(StringRule(maxLength: 64, pattern: AdminQuery.noControlCharacters)),
                required: false,
                description: "A name the user gives the passkey (by default, from the authenticator's kind)."),
        ], encodings: [.json])

    /// `POST /v1/login/passkey`.
    static let passkeyLogin = RequestSchema(
        name: "PasskeyLoginRequest",
        fields: [
            Field(
                name: "credential", kind: .object(schema: "AuthenticationResponseJSON"), required: true,
                description: "The assertion as the browser's PublicKeyCredential.toJSON() gives it.")
        ], encodings: [.json])

    /// `PATCH /v1/passkeys/{id}`.
    static let passkeyRename = RequestSchema(
        name: "PasskeyRenameRequest",
        fields: [
            Field(
                name: "name", kind: .string(StringRule(maxLength: 64, pattern: AdminQuery.noControlCharacters)),
                required: true,
                description: "The passkey's new name.")
        ], encodings: [.json])

    /// Every request schema, by name.
    static func all(_ configuration: ServerConfiguration) -> [String: RequestSchema] {
        Dictionary(
            uniqueKeysWithValues: [
                login(configuration), idTokenLogin(configuration), providerTokenLogin, refresh, logout, revocation,
                signedRequest, adminEnd, passkeyRegistration, passkeyLogin, passkeyRename,
            ].map {
                ($0.name, $0)
            })
    }
}
