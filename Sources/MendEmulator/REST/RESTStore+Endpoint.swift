import Foundation
import HTTPTypes
import MendCore
import MendHTTP

enum RESTHeaders {
    static let apiKey = HTTPField.Name("Appacitive-Apikey")!
    static let apiKeyAlternative = HTTPField.Name("X-Appacitive-Apikey")!
    static let session = HTTPField.Name("Appacitive-Session")!
    static let requestID = HTTPField.Name.requestID
}

extension RESTStore {
    /// `/v1/objects/{type}[/{id}]`: create, read, update (with revisions) and delete.
    mutating func handle(
        _ request: EmulatorRequest, type: String, id: String?, tokens: TokenBook, users: UserDirectory,
        context: inout EmulatorContext
    ) -> EmulatorResponse {
        let referenceID = context.random.digits(18)
        switch outcome(request, type: type, id: id, tokens: tokens, users: users, context: context) {
        case .success(let (status, object)):
            let body = JSONValue.object([
                (
                    "status",
                    .object([
                        "code": .string(String(status.code)), "message": .string("Successful"),
                        "referenceId": .string(referenceID), "additionalMessages": .array([]),
                        "version": .string("2.0"),
                    ])
                ),
                ("object", object),
            ])
            var response = EmulatorResponse.json(body, status: status)
            response.headers[RESTHeaders.requestID] = referenceID
            return response
        case .failure(let failure):
            return failure.response(referenceID: referenceID)
        }
    }

    private mutating func outcome(
        _ request: EmulatorRequest, type: String, id: String?, tokens: TokenBook, users: UserDirectory,
        context: EmulatorContext
    ) -> Result<(HTTPResponse.Status, JSONValue?), RESTFailure> {
        let configuration = context.configuration
        guard let key = request.headers[RESTHeaders.apiKey] ?? request.headers[RESTHeaders.apiKeyAlternative] else {
            return .failure(RESTFailure(code: 401, message: "An API key is required (Appacitive-Apikey header)."))
        }
        guard key == configuration.restAPIKey else {
            return .failure(RESTFailure(code: 420, message: "The API key is invalid."))
        }
        if let session = request.headers[RESTHeaders.session] {
            guard case .success(let identity) = tokens.validate(token: session, users: users, context: context),
                identity.userID != nil
            else {
                return .failure(RESTFailure(code: 421, message: "The user session token is invalid or expired."))
            }
        }
        guard configuration.restSubscriptionValid else {
            return .failure(RESTFailure(code: 402, message: "The subscription is invalid or has expired."))
        }
        if let limit = configuration.restCallsPerMinute {
            let moment = context.now
            calls = calls.filter { moment.timeIntervalSince($0) < 60 } + [moment]
            if calls.count > limit {
                let wait = max(1, Int((calls[calls.count - limit - 1].timeIntervalSince(moment) + 60).rounded(.up)))
                return .failure(
                    RESTFailure(
                        code: 403, message: "The usage limit of \(limit) calls per minute was exceeded.",
                        retryAfter: wait))
            }
        }
        guard type.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !type.isEmpty else {
            return .failure(
                RESTFailure(code: 400, message: "Invalid object type.", additionalMessages: ["type: \(type)"]))
        }
        switch (request.method, id) {
        case (.post, nil): return create(request, type: type, context: context)
        case (.get, let id?):
            guard let object = objects[type]?[id] else { return .failure(Self.notFound(type: type, id: id)) }
            return .success((.ok, Self.json(object)))
        case (.put, let id?), (.patch, let id?): return update(request, type: type, id: id, context: context)
        case (.delete, let id?):
            guard objects[type]?.removeValue(forKey: id) != nil else {
                return .failure(Self.notFound(type: type, id: id))
            }
            return .success((.ok, nil))
        default:
            return .failure(
                RESTFailure(code: 400, message: "Unsupported method \(request.method.rawValue) for this path."))
        }
    }

    private mutating func create(
        _ request: EmulatorRequest, type: String, context: EmulatorContext
    ) -> Result<(HTTPResponse.Status, JSONValue?), RESTFailure> {
        guard case .success(let properties) = Self.properties(request.body) else {
            return .failure(Self.invalidBody)
        }
        if let field = duplicate(of: properties, type: type, except: nil) {
            return .failure(
                RESTFailure(
                    code: 435, message: "An object of type \(type) with the same \(field) exists.",
                    additionalMessages: ["\(field): must be unique"]))
        }
        let id = String(nextID + 100_000_000)
        nextID += 1
        let object = RESTStore.Object(
            id: id, type: type, revision: 1, properties: properties, createdAt: context.now, updatedAt: context.now)
        objects[type, default: [:]][id] = object
        return .success((.created, Self.json(object)))
    }

    private mutating func update(
        _ request: EmulatorRequest, type: String, id: String, context: EmulatorContext
    ) -> Result<(HTTPResponse.Status, JSONValue?), RESTFailure> {
        guard var object = objects[type]?[id] else { return .failure(Self.notFound(type: type, id: id)) }
        if let ifMatch = request.headers[.ifMatch],
            ifMatch.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) != String(object.revision)
        {
            return .failure(
                RESTFailure(
                    code: 412, message: "If-Match \(ifMatch) does not match the current revision \(object.revision)."))
        }
        guard case .success(var properties) = Self.properties(request.body) else { return .failure(Self.invalidBody) }
        let expected =
            request.parameter("revision") ?? properties.removeValue(forKey: "__revision")?.intValue.map(String.init)
        if let expected, expected != String(object.revision) {
            return .failure(
                RESTFailure(
                    code: 409, message: "The object was changed: revision \(expected) is not the current revision.",
                    additionalMessages: ["current revision: \(object.revision)"]))
        }
        var merged = object.properties
        for (key, value) in properties where !key.hasPrefix("__") { merged[key] = value }
        if let field = duplicate(of: merged, type: type, except: id) {
            return .failure(RESTFailure(code: 435, message: "An object of type \(type) with the same \(field) exists."))
        }
        object.properties = merged
        object.revision += 1
        object.updatedAt = context.now
        objects[type]?[id] = object
        return .success((.ok, Self.json(object)))
    }

    static let invalidBody = RESTFailure(
        code: 400, message: "The request body must be a JSON object.", additionalMessages: ["body: not a JSON object"])

    static func notFound(type: String, id: String) -> RESTFailure {
        RESTFailure(code: 404, message: "Object of type \(type) with id \(id) not found.")
    }

    static func properties(_ body: Data) -> Result<[String: JSONValue], RESTFailure> {
        if body.isEmpty { return .success([:]) }
        guard case .success(let value) = JSONValue.parse(body), var object = value.objectValue else {
            return .failure(invalidBody)
        }
        if let nested = object["object"]?.objectValue { object = nested }
        return .success(object)
    }

    static func json(_ object: Object) -> JSONValue {
        var members = object.properties
        members["__id"] = .string(object.id)
        members["__type"] = .string(object.type)
        members["__revision"] = .string(String(object.revision))
        members["__utcdatecreated"] = .string(ProviderDate.graph(object.createdAt))
        members["__utclastupdateddate"] = .string(ProviderDate.graph(object.updatedAt))
        return .object(members)
    }
}
