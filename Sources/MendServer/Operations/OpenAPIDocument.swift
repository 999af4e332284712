import HTTPTypes
import MendCore

/// The OpenAPI 3.1 document served at `/openapi.json`, generated from ``RouteTable`` (the same table the router
/// registers) with the wire schemas.
enum OpenAPIDocument {
    static func make(configuration: ServerConfiguration) -> JSONValue {
        let requestSchemas = RequestSchema.all(configuration)
        var paths: [String: JSONValue] = [:]
        for endpoint in RouteTable.served(configuration) {
            var operations = paths[endpoint.openAPIPath]?.objectValue ?? [:]
            operations[endpoint.method.rawValue.lowercased()] = operation(
                endpoint, request: endpoint.requestSchema.flatMap { requestSchemas[$0] },
                dpop: DPoPUse(configuration.sessions))
            paths[endpoint.openAPIPath] = .object(operations)
        }
        return .object([
            "openapi": .string("3.1.0"),
            "info": .object([
                "title": .string("mend-server"), "version": .string("1"),
                "description": .string(
                    "The login backend: exchanges the provider's authorization code, verifies the token, and gives the app its own session. Every error is the Mend error shape with the request id as referenceId."
                        + dpopDescription(configuration)),
            ]),
            "paths": .object(paths),
            "components": .object([
                "schemas": .object(commonSchemas.merging(requestSchemas.mapValues(\.openAPISchema)) { $1 }),
                "securitySchemes": .object([
                    "bearer": .object([
                        "type": .string("http"), "scheme": .string("bearer"), "bearerFormat": .string("JWT"),
                        "description": .string("A session's access token."),
                    ]),
                    "DPoP": .object([
                        "type": .string("http"), "scheme": .string("DPoP"),
                        "description": .string(
                            "A DPoP-bound session's access token (RFC 9449): Authorization: DPoP <token>, with a DPoP "
                                + "header carrying a proof of the session's key for this request (htm, htu, and ath, "
                                + "the token's SHA-256)."),
                    ]),
                    "admin": .object([
                        "type": .string("http"), "scheme": .string("bearer"),
                        "description": .string(
                            "An admin token: one whose SHA-256 MEND_ADMIN_TOKENS lists (mend-server admin new-token)."),
                    ]),
                ]),
                "responses": .object([
                    "Error": .object([
                        "description": .string(
                            "The Mend error shape (MendError.wireBody); X-Request-Id names the request."),
                        "content": json(ref("Error")),
                    ]),
                    "Unauthorized": .object([
                        "description": .string(
                            "The Mend error shape, 401: no valid token, an ended session, or a DPoP refusal — "
                                + "session/20 with WWW-Authenticate: DPoP error=\"invalid_dpop_proof\", or the nonce "
                                + "challenge, session/21 with WWW-Authenticate: DPoP error=\"use_dpop_nonce\" and the "
                                + "nonce in DPoP-Nonce (send the request again with a new proof carrying it)."),
                        "headers": .object([
                            "WWW-Authenticate": ref(header: "WWW-Authenticate"),
                            "DPoP-Nonce": ref(header: "DPoP-Nonce"),
                        ]),
                        "content": json(ref("Error")),
                    ]),
                ]),
                "headers": .object([
                    "WWW-Authenticate": .object([
                        "description": .string(
                            "On a DPoP refusal (RFC 9449 §7.1, §9): DPoP error=\"invalid_dpop_proof\" or "
                                + "DPoP error=\"use_dpop_nonce\", with algs=\"ES256\"."),
                        "schema": string,
                    ]),
                    "DPoP-Nonce": .object([
                        "description": .string(
                            "The nonce the server wants in the next DPoP proof (RFC 9449 §8): on a nonce challenge, "
                                + "and, when the server requires nonces, on every answer to a request with a proof."),
                        "schema": string,
                    ]),
                ]),
            ]),
        ])
    }

    /// What a server's configuration makes of DPoP in the document.
    private struct DPoPUse {
        /// Whether proofs are read at all (`MEND_DPOP` is not `off`).
        var on: Bool
        /// Whether logins, refreshes and the session routes need one (`MEND_DPOP=required`).
        var required: Bool
        /// Whether every proof must carry the server's nonce (`MEND_DPOP_NONCE`).
        var nonces: Bool

        init(_ sessions: ServerConfiguration.Sessions) {
            on = sessions.dpop != .off
            required = sessions.dpop == .required
            nonces = on && sessions.dpopRequiresNonce
        }
    }

    /// The document's words on DPoP, for this server's configuration.
    private static func dpopDescription(_ configuration: ServerConfiguration) -> String {
        let use = DPoPUse(configuration.sessions)
        guard use.on else { return " DPoP (RFC 9449) is off on this server: every session is a bearer one." }
        return
            " DPoP (RFC 9449): a login with a DPoP proof header binds the session to the proof's key (token_type "
            + "DPoP; the access token's cnf.jkt). A bound access token is sent as Authorization: DPoP <token> with a "
            + "new proof for each request (htm, htu, ath); its refresh token is refreshed, logged out with and revoked "
            + "only with a proof of the same key (a revocation without one ends nothing and is answered as an unknown "
            + "token is). Every nonce challenge — logins and refresh included — is answered as a resource server "
            + "answers one (RFC 9449 §9): 401, WWW-Authenticate: DPoP error=\"use_dpop_nonce\", the nonce in "
            + "DPoP-Nonce, and the Mend error shape (session/21); send the request again with a new proof carrying "
            + "the nonce. A refused proof is 401 with WWW-Authenticate: DPoP error=\"invalid_dpop_proof\" "
            + "(session/20). This server "
            + (use.required
                ? "binds every session (a login without a proof is refused)"
                : "binds a session when its login carries a proof")
            + (use.nonces
                ? " and requires its nonce in every proof; every answer to a request with a proof carries the nonce to use next."
                : "; it asks for a nonce only when a proof's clock is off.")
    }

    private static func operation(_ endpoint: RouteTable.Endpoint, request: RequestSchema?, dpop: DPoPUse) -> JSONValue
    {
        var operation: [String: JSONValue] = [
            "operationId": .string(endpoint.operationID), "summary": .string(endpoint.summary),
        ]
        let proved = dpop.on && endpoint.takesProof
        var success: [String: JSONValue] = ["description": .string(endpoint.successStatus == 204 ? "No content" : "OK")]
        if let schema = endpoint.responseSchema { success["content"] = json(ref(schema)) }
        if endpoint == RouteTable.metrics {
            success["content"] = .object(["text/plain": .object(["schema": .object(["type": .string("string")])])])
        }
        if proved && dpop.nonces { success["headers"] = .object(["DPoP-Nonce": ref(header: "DPoP-Nonce")]) }
        var responses: [String: JSONValue] = [String(endpoint.successStatus): .object(success)]
        for status in endpoint.errorStatuses {
            let name = status == 401 && proved ? "Unauthorized" : "Error"
            responses[String(status)] = .object(["$ref": .string("#/components/responses/\(name)")])
        }
        operation["responses"] = .object(responses)
        if let request {
            var content: [String: JSONValue] = [:]
            for encoding in request.encodings { content[encoding.rawValue] = .object(["schema": ref(request.name)]) }
            operation["requestBody"] = .object(["required": .bool(request.bodyRequired), "content": .object(content)])
        }
        if endpoint.authenticated {
            // Alternatives: a bearer or a bound token (DPoP); an empty requirement makes them optional.
            let schemes: [JSONValue] =
                endpoint.admin
                ? [.object(["admin": .array([])])]
                : [.object(["bearer": .array([])])] + (dpop.on ? [.object(["DPoP": .array([])])] : [])
            operation["security"] = .array(schemes + (endpoint.bearerOptional ? [.object([:])] : []))
        }
        var parameters: [JSONValue] = endpoint.path.split(separator: "/").filter { $0.hasPrefix(":") }.map { segment in
            .object([
                "name": .string(String(segment.dropFirst())), "in": .string("path"), "required": .bool(true),
                "schema": .object(["type": .string("string")]),
            ])
        }
        for parameter in endpoint.query {
            var schema: [String: JSONValue]
            switch parameter.kind {
            case .string(let maxLength, let allowed):
                schema = ["type": .string("string"), "minLength": .int(1), "maxLength": .int(maxLength)]
                if let allowed {
                    schema["enum"] = .array(allowed.map(JSONValue.string))
                } else {
                    schema["pattern"] = .string(AdminQuery.noControlCharacters)
                }
            case .integer(let range):
                schema = [
                    "type": .string("integer"), "minimum": .int(Int(range.lowerBound)),
                    "maximum": .int(Int(range.upperBound)),
                ]
            }
            parameters.append(
                .object([
                    "name": .string(parameter.name), "in": .string("query"), "required": .bool(false),
                    "description": .string(parameter.description), "schema": .object(schema),
                ]))
        }
        if proved {
            parameters.append(
                .object([
                    "name": .string("DPoP"), "in": .string("header"),
                    "required": .bool(
                        dpop.required && endpoint.tokenRequest && endpoint != RouteTable.revoke
                            && endpoint != RouteTable.logout),
                    "description": .string(
                        endpoint.tokenRequest
                            ? "A DPoP proof (RFC 9449) of this request (htm, htu; no ath): a login's binds the session to "
                                + "its key; a refresh's, a logout's by refresh token and a revocation's must be of the "
                                + "key the token is bound to."
                            : "A DPoP proof (RFC 9449) of this request by the key the access token is bound to (htm, "
                                + "htu, ath): required with Authorization: DPoP."),
                    "schema": string,
                ]))
        }
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        return .object(operation)
    }

    private static func json(_ schema: JSONValue) -> JSONValue {
        .object(["application/json": .object(["schema": schema])])
    }

    private static func ref(_ name: String) -> JSONValue { .object(["$ref": .string("#/components/schemas/\(name)")]) }

    private static func ref(header name: String) -> JSONValue {
        .object(["$ref": .string("#/components/headers/\(name)")])
    }

    private static func object(_ properties: [String: JSONValue], required: [String]) -> JSONValue {
        .object([
            "type": .string("object"), "properties": .object(properties),
            "required": .array(required.map(JSONValue.string)),
        ])
    }

    private static let string: JSONValue = .object(["type": .string("string")])
    private static let nullableString: JSONValue = .object(["type": .array([.string("string"), .string("null")])])
    private static let integer: JSONValue = .object(["type": .string("integer")])
    private static let nullableInteger: JSONValue = .object(["type": .array([.string("integer"), .string("null")])])
    private static let boolean: JSONValue = .object(["type": .string("boolean")])
    private static let strings: JSONValue = .object(["type": .string("array"), "items": string])
    private static let credentialDescriptors: JSONValue = .object([
        "type": .string("array"),
        "items": object(["type": string, "id": string, "transports": strings], required: ["type", "id"]),
    ])

    private static let commonSchemas: [String: JSONValue] = [
        "User": object(
            [
                "id": string, "provider_user_id": nullableString, "name": string, "email": nullableString,
                "picture": nullableString,
            ], required: ["id", "provider_user_id", "name", "email", "picture"]),
        "Session": object(
            [
                "session_id": string, "access_token": string,
                "token_type": .object([
                    "type": .string("string"), "enum": .array([.string("Bearer"), .string("DPoP")]),
                    "description": .string(
                        "DPoP when the session is bound to the key of the login's proof (RFC 9449), else Bearer."),
                ]),
                "expires_in": integer,
                "refresh_token": string,
                "refresh_expires_in": integer, "user": ref("User"), "granted_scopes": strings,
                "declined_scopes": strings, "provider_token": string,
            ],
            required: [
                "session_id", "access_token", "token_type", "expires_in", "refresh_token", "refresh_expires_in",
                "user", "granted_scopes", "declined_scopes",
            ]),
        "Introspection": object(
            ["valid": boolean, "user_id": string, "scopes": strings, "expires_at": integer, "session_id": string],
            required: ["valid", "user_id", "scopes", "expires_at", "session_id"]),
        "JWKS": object(
            ["keys": .object(["type": .string("array"), "items": .object(["type": .string("object")])])],
            required: ["keys"]),
        "AccountDeletion": object(
            ["deleted": boolean, "sessions_ended": integer, "revoked_at": strings, "not_revoked": strings],
            required: ["deleted", "sessions_ended", "revoked_at", "not_revoked"]),
        "Deauthorized": object(["success": boolean, "sessions_ended": integer], required: ["success"]),
        "DeletionAnswer": object(
            ["url": string, "confirmation_code": string], required: ["url", "confirmation_code"]),
        "DeletionStatus": object(
            [
                "confirmation_code": string, "status": string, "requested_at": integer,
                "completed_at": .object(["type": .array([.string("integer"), .string("null")])]),
            ], required: ["confirmation_code", "status", "requested_at"]),
        "Health": object(["status": string], required: ["status"]),
        "Activity": object(
            [
                "events": .object([
                    "type": .string("array"),
                    "items": object(
                        [
                            "at": integer, "event": string, "session_id": nullableString, "provider": nullableString,
                            "detail": nullableString, "address": nullableString, "client": nullableString,
                        ],
                        required: ["at", "event", "session_id", "provider", "detail", "address", "client"]),
                ])
            ], required: ["events"]),
        "SessionList": object(
            [
                "sessions": .object([
                    "type": .string("array"),
                    "items": object(
                        [
                            "id": string, "current": boolean, "client": nullableString, "platform": nullableString,
                            "created_at": integer, "refreshed_at": nullableInteger, "expires_at": integer,
                            "first_address": nullableString, "last_address": nullableString,
                        ],
                        required: [
                            "id", "current", "client", "platform", "created_at", "refreshed_at", "expires_at",
                            "first_address", "last_address",
                        ]),
                ])
            ], required: ["sessions"]),
        "AdminUserList": object(
            ["users": .object(["type": .string("array"), "items": ref("AdminUserSummary")])], required: ["users"]),
        "AdminUserSummary": object(
            [
                "id": string, "provider_user_id": nullableString, "name": string, "email": nullableString,
                "created_at": integer, "updated_at": integer,
            ], required: ["id", "provider_user_id", "name", "email", "created_at", "updated_at"]),
        "AdminUser": object(
            [
                "user": ref("AdminUserSummary"),
                "identities": .object([
                    "type": .string("array"),
                    "items": object(
                        ["provider": string, "subject": string, "email": nullableString],
                        required: ["provider", "subject", "email"]),
                ]),
                "sessions": .object([
                    "type": .string("array"),
                    "items": object(
                        [
                            "id": string, "client": nullableString, "platform": nullableString,
                            "provider": nullableString, "flow": nullableString, "created_at": integer,
                            "refreshed_at": nullableInteger, "expires_at": integer, "first_address": nullableString,
                            "last_address": nullableString,
                        ],
                        required: [
                            "id", "client", "platform", "provider", "flow", "created_at", "refreshed_at",
                            "expires_at", "first_address", "last_address",
                        ]),
                ]),
            ], required: ["user", "identities", "sessions"]),
        "AdminSessionsEnded": object(["sessions_ended": integer], required: ["sessions_ended"]),
        "AdminSessionEnded": object(["ended": boolean], required: ["ended"]),
        "AuditLog": object(
            [
                "events": .object([
                    "type": .string("array"),
                    "items": object(
                        [
                            "id": integer, "at": integer, "event": string, "user_id": nullableString,
                            "session_id": nullableString, "provider": nullableString, "detail": nullableString,
                            "address": nullableString, "client": nullableString, "actor": nullableString,
                        ],
                        required: [
                            "id", "at", "event", "user_id", "session_id", "provider", "detail", "address", "client",
                            "actor",
                        ]),
                ]),
                "next_before": nullableInteger,
            ], required: ["events", "next_before"]),
        "Passkey": object(
            [
                "id": string, "name": string, "created_at": integer, "last_used_at": nullableInteger,
                "backup_eligible": boolean, "backed_up": boolean, "transports": strings, "aaguid": string,
                "algorithm": integer, "counter_regressed_at": nullableInteger,
            ],
            required: [
                "id", "name", "created_at", "last_used_at", "backup_eligible", "backed_up", "transports", "aaguid",
                "algorithm", "counter_regressed_at",
            ]),
        "AdminPasskeyRemoved": object(["removed": boolean], required: ["removed"]),
        "PasskeyList": object(
            ["passkeys": .object(["type": .string("array"), "items": ref("Passkey")])], required: ["passkeys"]),
        "PublicKeyCredentialCreationOptionsJSON": object(
            [
                "rp": object(["id": string, "name": string], required: ["id", "name"]),
                "user": object(
                    ["id": string, "name": string, "displayName": string], required: ["id", "name", "displayName"]),
                "challenge": string,
                "pubKeyCredParams": .object([
                    "type": .string("array"),
                    "items": object(["type": string, "alg": integer], required: ["type", "alg"]),
                ]),
                "timeout": integer, "excludeCredentials": credentialDescriptors,
                "authenticatorSelection": .object(["type": .string("object")]), "attestation": string,
                "extensions": .object(["type": .string("object")]),
            ], required: ["rp", "user", "challenge", "pubKeyCredParams"]),
        "PublicKeyCredentialRequestOptionsJSON": object(
            [
                "challenge": string, "rpId": string, "allowCredentials": credentialDescriptors,
                "userVerification": string, "timeout": integer,
            ], required: ["challenge"]),
        "RegistrationResponseJSON": object(
            [
                "id": string, "rawId": string, "type": string, "authenticatorAttachment": string,
                "clientExtensionResults": .object(["type": .string("object")]),
                "response": object(
                    ["clientDataJSON": string, "attestationObject": string, "transports": strings],
                    required: ["clientDataJSON", "attestationObject"]),
            ], required: ["id", "rawId", "type", "response"]),
        "AuthenticationResponseJSON": object(
            [
                "id": string, "rawId": string, "type": string, "authenticatorAttachment": string,
                "clientExtensionResults": .object(["type": .string("object")]),
                "response": object(
                    [
                        "clientDataJSON": string, "authenticatorData": string, "signature": string,
                        "userHandle": nullableString,
                    ], required: ["clientDataJSON", "authenticatorData", "signature"]),
            ], required: ["id", "rawId", "type", "response"]),
        "RelatedOrigins": object(["origins": strings], required: ["origins"]),
        "AppleAppSiteAssociation": object(
            ["webcredentials": object(["apps": strings], required: ["apps"])], required: ["webcredentials"]),
        "AssetLinks": .object([
            "type": .string("array"),
            "items": object(
                [
                    "relation": strings,
                    "target": object(
                        ["namespace": string, "package_name": string, "sha256_cert_fingerprints": strings],
                        required: ["namespace", "package_name", "sha256_cert_fingerprints"]),
                ], required: ["relation", "target"]),
        ]),
        "Error": object(
            [
                "error": object(
                    [
                        "domain": string, "code": integer,
                        "subcode": .object(["type": .array([.string("integer"), .string("null")])]),
                        "name": string, "category": string, "recovery": string, "message": string,
                        "referenceId": nullableString, "additionalMessages": strings, "permissions": strings,
                    ], required: ["domain", "code", "name", "category", "recovery", "message", "referenceId"]),
                "passkey": object(["rp_id": string, "credential_id": string], required: ["rp_id", "credential_id"]),
            ], required: ["error"]),
    ]
}
