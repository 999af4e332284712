import Foundation
import HTTPTypes
import MendCore
import MendHTTP

/// The REST object API's objects, by type and id, with revisions.
struct RESTStore: Sendable {
    struct Object: Sendable, Hashable {
        var id: String
        var type: String
        var revision: Int
        var properties: [String: JSONValue]
        var createdAt: Date
        var updatedAt: Date
    }

    var objects: [String: [String: Object]] = [:]
    var nextID = 1
    var calls: [Date] = []

    /// Properties whose values must be unique within a type (435 DuplicateObject).
    static let uniqueProperties = ["key", "username", "email"]

    func duplicate(of properties: [String: JSONValue], type: String, except id: String?) -> String? {
        for name in Self.uniqueProperties {
            guard let value = properties[name], !value.isNull else { continue }
            if (objects[type] ?? [:]).values.contains(where: { $0.id != id && $0.properties[name] == value }) {
                return name
            }
        }
        return nil
    }
}

/// A REST API error: the status error space, rendered as the BaaS API renders it.
struct RESTFailure: Error, Sendable {
    var code: Int
    var message: String
    var additionalMessages: [String] = []
    var retryAfter: Int?

    /// The fault type name the API sends beside the code (`UpdateConflict`).
    var faultType: String {
        switch code {
        case 400: "BadRequest"
        case 401: "AccessDenied"
        case 402: "PaymentRequired"
        case 403: "UsageLimitExceeded"
        case 404: "NotFound"
        case 409: "UpdateConflict"
        case 412: "PreconditionFailed"
        case 420: "ApiAuthenticationError"
        case 421: "UserAuthenticationError"
        case 435: "DuplicateObject"
        case 436: "IncorrectConfiguration"
        case 500: "InternalServerError"
        case 512: "DataAccessError"
        default: "UnknownCause"
        }
    }

    /// The standard message of a code.
    static func standard(code: Int) -> RESTFailure {
        let entry = ErrorCatalog.everySpace.entry(code: MendError.Code(.rest, code))
        return RESTFailure(code: code, message: entry.summary)
    }

    /// The HTTP status: the code itself, except UnknownCause (100), which travels as a 500.
    var httpStatus: Int { (400...599).contains(code) ? code : 500 }

    func response(referenceID: String) -> EmulatorResponse {
        let status = JSONValue.object([
            "code": .string(String(code)), "message": .string(message),
            "additionalMessages": .array(additionalMessages.map(JSONValue.string)),
            "referenceId": .string(referenceID), "faultType": .string(faultType), "version": .string("2.0"),
        ])
        var response = EmulatorResponse.json(.object(["status": status]), status: .init(code: httpStatus))
        response.headers[RESTHeaders.requestID] = referenceID
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
