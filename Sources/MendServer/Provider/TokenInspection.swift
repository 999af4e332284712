import Foundation
import MendCore
import MendGraphAPI
import MendLogin

/// What `debug_token` says about a user token (its `data` object).
struct TokenInspection: Sendable, Hashable {
    var isValid: Bool
    var appID: String?
    var userID: String?
    var type: String?
    var scopes: [String]
    var expiresAt: Int64?
    var errorCode: Int?
    var errorSubcode: Int?
    var errorMessage: String?

    init(
        isValid: Bool, appID: String? = nil, userID: String? = nil, type: String? = nil, scopes: [String] = [],
        expiresAt: Int64? = nil, errorCode: Int? = nil, errorSubcode: Int? = nil, errorMessage: String? = nil
    ) {
        self.isValid = isValid
        self.appID = appID
        self.userID = userID
        self.type = type
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.errorCode = errorCode
        self.errorSubcode = errorSubcode
        self.errorMessage = errorMessage
    }

    /// Reads `{"data": {...}}`; `nil` when there is no `data` object.
    init?(json: JSONValue) {
        guard let data = json["data"], data.objectValue != nil else { return nil }
        self.init(
            isValid: data["is_valid"]?.boolValue ?? false,
            appID: data["app_id"]?.stringValue ?? data["app_id"]?.intValue.map(String.init),
            userID: data["user_id"]?.stringValue ?? data["user_id"]?.intValue.map(String.init),
            type: data["type"]?.stringValue, scopes: data["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            expiresAt: data["expires_at"]?.intValue.map(Int64.init), errorCode: data["error"]?["code"]?.intValue,
            errorSubcode: data["error"]?["subcode"]?.intValue, errorMessage: data["error"]?["message"]?.stringValue)
    }

    /// The verdict on a token for this app: accepted (the provider's user and scopes), or the error to answer
    /// with. A pure function: valid, issued for `appID`, a user token with a user, every required scope granted.
    func verdict(
        appID expected: String, requiredScopes: [String]
    ) -> Result<(userID: String, scopes: [String]), MendError> {
        guard isValid else {
            let code = MendError.Code(.graph, errorCode ?? 190)
            return .failure(
                MendError(
                    code: code, subcode: errorSubcode.map(MendError.Subcode.init(rawValue:)),
                    developerMessage:
                        "debug_token: the provider says the token is invalid: \(errorMessage ?? "no reason given").",
                    catalog: .server))
        }
        guard appID == expected else {
            var error = MendError(
                code: .Graph.accessTokenInvalid, subcode: .invalidAccessToken,
                developerMessage: "debug_token: the token was issued for app \(appID ?? "(none)"), not for this app.",
                catalog: .server)
            error.override(.securityEvent)
            return .failure(error)
        }
        if let type, type.uppercased() != "USER" {
            return .failure(
                MendError(
                    code: .Graph.accessTokenInvalid, subcode: .invalidAccessToken,
                    developerMessage: "debug_token: the token is a \(type) token, not a user token.", catalog: .server))
        }
        guard let userID, !userID.isEmpty else {
            return .failure(
                MendError(
                    code: .Graph.accessTokenInvalid, subcode: .invalidAccessToken,
                    developerMessage: "debug_token: the token names no user.", catalog: .server))
        }
        let missing = requiredScopes.filter { !scopes.contains($0) }
        guard missing.isEmpty else {
            var error = MendError(
                code: .Graph.permissionMissing,
                developerMessage:
                    "The login did not grant the required permissions: \(missing.joined(separator: ", ")).",
                catalog: .server)
            error.requestedPermissions = missing
            return .failure(error)
        }
        return .success((userID, scopes))
    }
}
