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
                endpoint, request: endpoint.requestSchema.flatMap { requestSchemas[$0] })
            paths[endpoint.openAPIPath] = .object(operations)
        }
        return .object([
            "openapi": .string("3.1.0"),
            "info": .object([
                "title": .string("mend-server"), "version": .string("1"),
                "description": .string(
                    "The login backend: exchanges the provider's authorization code, verifies the token, and gives the app its own session. Every error is the Mend error shape with the request id as referenceId."
                ),
            ]),
            "paths": .object(paths),
            "components": .object([
                "schemas": .object(commonSchemas.merging(requestSchemas.mapValues(\.openAPISchema)) { $1 }),
                "securitySchemes": .object([
                    "bearer": .object([
                        "type": .string("http"), "scheme": .string("bearer"), "bearerFormat": .string("JWT"),
                        "description": .string("A session's access token."),
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
                    ])
                ]),
            ]),
        ])
    }

    private static func operation(_ endpoint: RouteTable.Endpoint, request: RequestSchema?) -> JSONValue {
        var operation: [String: JSONValue] = [
            "operationId": .string(endpoint.operationID), "summary": .string(endpoint.summary),
        ]
        var success: [String: JSONValue] = ["description": .string(endpoint.successStatus == 204 ? "No content" : "OK")]
        if let schema = endpoint.responseSchema { success["content"] = json(ref(schema)) }
        if endpoint == RouteTable.metrics {
            success["content"] = .object(["text/plain": .object(["schema": .object(["type": .string("string")])])])
        }
        var responses: [String: JSONValue] = [String(endpoint.successStatus): .object(success)]
        for status in endpoint.errorStatuses {
            responses[String(status)] = .object(["$ref": .string("#/components/responses/Error")])
        }
        operation["responses"] = .object(responses)
        if let request {
            var content: [String: JSONValue] = [:]
            for encoding in request.encodings { content[encoding.rawValue] = .object(["schema": ref(request.name)]) }
            operation["requestBody"] = .object(["required": .bool(request.bodyRequired), "content": .object(content)])
        }
        if endpoint.authenticated {
            // An empty requirement makes the bearer optional.
            operation["security"] = .array(
                [.object([endpoint.admin ? "admin" : "bearer": .array([])])]
                    + (endpoint.bearerOptional ? [.object([:])] : []))
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
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        return .object(operation)
    }

    private static func json(_ schema: JSONValue) -> JSONValue {
        .object(["application/json": .object(["schema": schema])])
    }

    private static func ref(_ name: String) -> JSONValue { .object(["$ref": .string("#/components/schemas/\(name)")]) }

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

    private static let commonSchemas: [String: JSONValue] = [
        "User": object(
            [
                "id": string, "provider_user_id": nullableString, "name": string, "email": nullableString,
                "picture": nullableString,
            ], required: ["id", "provider_user_id", "name", "email", "picture"]),
        "Session": object(
            [
                "session_id": string, "access_token": string, "token_type": string, "expires_in": integer,
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
        "Error": object(
            [
                "error": object(
                    [
                        "domain": string, "code": integer,
                        "subcode": .object(["type": .array([.string("integer"), .string("null")])]),
                        "name": string, "category": string, "recovery": string, "message": string,
                        "referenceId": nullableString, "additionalMessages": strings, "permissions": strings,
                    ], required: ["domain", "code", "name", "category", "recovery", "message", "referenceId"])
            ], required: ["error"]),
    ]
}
