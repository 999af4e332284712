import Foundation
import MendCore

extension TokenBook {
    /// `GET /debug_token?input_token=…&access_token=…`: every field of the provider's answer.
    func debugToken(
        _ request: EmulatorRequest, users: UserDirectory, context: EmulatorContext
    ) -> Result<JSONValue, GraphFailure> {
        guard let inspector = request.accessToken else {
            return .failure(GraphFailure(code: 104, message: "An access token is required to request this resource."))
        }
        guard case .success(let caller) = validate(token: inspector, users: users, context: context) else {
            return .failure(.catalog(code: 190, subcode: nil))
        }
        guard let input = request.parameter("input_token"), !input.isEmpty else {
            return .failure(GraphFailure(code: 100, message: "(#100) The parameter input_token is required"))
        }
        guard let record = tokenRecord(for: input, context: context) else {
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
        let app = context.apps[record.appID]
        var data: [(String, JSONValue?)] = [
            ("app_id", .string(record.appID)), ("type", .string(record.kind.rawValue)),
            ("application", .string(app?.name)),
            ("expires_at", .int(record.expiresAt.map { Int($0.timeIntervalSince1970) } ?? 0)),
            ("issued_at", .int(Int(record.issuedAt.timeIntervalSince1970))),
        ]
        if let dataAccess = record.dataAccessExpiresAt {
            data.append(("data_access_expires_at", .int(Int(dataAccess.timeIntervalSince1970))))
        }
        let scopes = record.userID.map { users.grantedScopes(userID: $0, appID: record.appID) } ?? []
        data.append(("scopes", .array(scopes.map(JSONValue.string))))
        data.append(
            (
                "granular_scopes",
                .array(scopes.filter { $0 != "public_profile" }.map { .object(["scope": .string($0)]) })
            ))
        if let userID = record.userID { data.append(("user_id", .string(userID))) }
        switch validate(token: input, users: users, context: context) {
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
    static func openIDConfiguration(baseURL: String, context: EmulatorContext) -> JSONValue {
        let graphVersion = context.graphVersion
        return .object([
            "issuer": .string(context.issuer(baseURL: baseURL)),
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
