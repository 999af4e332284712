import Foundation
public import MendCore

/// A GraphQL response body as JSON: optional `data`, `errors` and `extensions`, kept whole.
///
/// The typed `GraphQLResponse<Data>` of the client decodes `data` further; this is the layer that decides whether
/// a body is a GraphQL response at all.
public struct GraphQLResponseBody: Sendable, Hashable {
    /// `data`: `nil` when the key was absent, `.null` when the server sent `null`.
    public var data: JSONValue?
    /// `errors`, in order.
    public var errors: [GraphQLError]
    /// `extensions`, if present.
    package var extensions: [String: JSONValue]?

    /// Why a body is not a GraphQL response.
    public enum ShapeError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The body is not a JSON object.
        case notAnObject
        /// The object has neither `data` nor `errors`.
        case noDataOrErrors
        /// `errors` is not a list of objects with a string `message`.
        case invalidErrors

        /// A stable, readable rendering.
        public var description: String {
            switch self {
            case .notAnObject: "The GraphQL response is not a JSON object."
            case .noDataOrErrors: "The GraphQL response has neither data nor errors."
            case .invalidErrors: "The GraphQL response's errors are not a list of objects with a message."
            }
        }
    }

    /// Reads a response body.
    public init(json: JSONValue) throws(ShapeError) {
        guard let object = json.objectValue else { throw .notAnObject }
        guard object["data"] != nil || object["errors"] != nil else { throw .noDataOrErrors }
        data = object["data"]
        if let errorsValue = object["errors"], !errorsValue.isNull {
            guard let list = errorsValue.arrayValue else { throw .invalidErrors }
            var errors: [GraphQLError] = []
            for item in list {
                guard let error = GraphQLError(json: item) else { throw .invalidErrors }
                errors.append(error)
            }
            self.errors = errors
        } else {
            errors = []
        }
        extensions = object["extensions"]?.objectValue
    }

    /// Whether the server produced no usable data (`data` absent or `null`).
    public var hasNoData: Bool { data == nil || data == .null }
}
