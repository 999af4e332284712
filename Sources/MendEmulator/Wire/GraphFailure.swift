import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI

/// A Graph API error as the provider sends it: the `{"error": {…}}` envelope, its HTTP status, and the
/// `WWW-Authenticate` header that repeats it.
struct GraphFailure: Error, Sendable, Hashable {
    var code: Int
    var subcode: Int?
    var message: String
    var type: String
    var userTitle: String?
    var userMessage: String?
    var isTransient: Bool
    var status: HTTPResponse.Status
    /// Extra headers (usage headers of a throttled call).
    var headers: [String: String] = [:]
    /// Whether the envelope carries `is_transient` (Graph leaves it out of some answers).
    var includesTransientFlag = true

    /// Graph's words for a request that asks for too much data (code 1).
    static let reduceData = "Please reduce the amount of data you're asking for, then retry your request"

    init(
        code: Int, subcode: Int? = nil, message: String, type: String = "OAuthException", userTitle: String? = nil,
        userMessage: String? = nil, isTransient: Bool? = nil, status: HTTPResponse.Status? = nil
    ) {
        self.code = code
        self.subcode = subcode
        self.message = message
        self.type = type
        self.userTitle = userTitle
        self.userMessage = userMessage
        self.isTransient = isTransient ?? Self.transientCodes.contains(code)
        self.status = status ?? Self.status(code: code)
    }

    /// Codes that the provider marks `is_transient: true`.
    static let transientCodes: Set<Int> = Set([1, 2, 4, 9, 17, 32, 341, 613]).union(80000...80014)

    /// The HTTP status the provider uses for a code: 500 for the "unknown"/"unavailable" codes, 403 for permission
    /// errors, 400 for everything else (token errors included).
    static func status(code: Int) -> HTTPResponse.Status {
        switch code {
        case 1, 2: .internalServerError
        case 10, 200...299: .forbidden
        default: .badRequest
        }
    }

    /// The `WWW-Authenticate` error kind for a code.
    var authenticateKind: String {
        switch code {
        case 102, 190, 2500, 104: "invalid_token"
        case 10, 200...299: "insufficient_scope"
        default: "invalid_request"
        }
    }

    /// The envelope as JSON.
    func envelope(traceID: String) -> JSONValue {
        .object([
            "error": .object([
                ("message", .string(message)), ("type", .string(type)), ("code", .int(code)),
                ("error_subcode", subcode.map(JSONValue.int)), ("error_user_title", .string(userTitle)),
                ("error_user_msg", .string(userMessage)),
                ("is_transient", includesTransientFlag ? .bool(isTransient) : nil),
                ("fbtrace_id", .string(traceID)),
            ])
        ])
    }

    /// The response: envelope, status, `WWW-Authenticate`, trace headers.
    func response(traceID: String, graphVersion: String) -> EmulatorResponse {
        var fields = HTTPFields()
        let quoted = message.replacingOccurrences(of: "\"", with: "'")
        fields[.wwwAuthenticate] = "OAuth \"Facebook Platform\" \"\(authenticateKind)\" \"\(quoted)\""
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        var response = EmulatorResponse.json(envelope(traceID: traceID), status: status, headers: fields)
        GraphHeaders.apply(to: &response.headers, traceID: traceID, graphVersion: graphVersion)
        return response
    }
}

/// Headers that every Graph response carries.
enum GraphHeaders {
    static let traceID = GraphAPI.traceIDHeader
    static let requestID = GraphAPI.requestIDHeader
    static let apiVersion = HTTPField.Name("facebook-api-version")!
    static let appUsage = HTTPField.Name("x-app-usage")!
    static let businessUsage = HTTPField.Name("x-business-use-case-usage")!

    /// Graph's cache headers: no answer of the API may be stored or reused.
    static let cacheControl = "private, no-cache, no-store, must-revalidate"
    static let pragma = HTTPField.Name("pragma")!
    static let expires = HTTPField.Name("expires")!
    static let expiredDate = "Sat, 01 Jan 2000 00:00:00 GMT"

    static func apply(to fields: inout HTTPFields, traceID: String, graphVersion: String) {
        fields[Self.traceID] = traceID
        fields[Self.requestID] = "A" + String(traceID.reversed())
        fields[Self.apiVersion] = graphVersion
        // An answer that set its own cache policy (the token endpoint's `no-store` refusal) keeps it.
        if fields[.cacheControl] == nil {
            fields[.cacheControl] = Self.cacheControl
            fields[Self.pragma] = "no-cache"
            fields[Self.expires] = Self.expiredDate
        }
    }
}
