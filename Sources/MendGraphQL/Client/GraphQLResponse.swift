public import Foundation
public import MendCore
public import MendHTTP

/// What a GraphQL server answered: whatever data it produced, its errors (typed and classified), and extensions.
///
/// A response is never thrown away because part of it failed: ``data`` holds what decodes, ``rawData`` the JSON as
/// sent, ``errors`` every error with its path, and ``nulledPaths`` the places where a failure left a null.
public struct GraphQLResponse<Value: Decodable & Sendable>: Sendable {
    /// The data decoded into `Value`, or `nil` when the server sent none or it does not decode.
    public var data: Value?
    /// The data as the server sent it (`nil` when absent, `.null` when null).
    public var rawData: JSONValue?
    /// The errors, in order, each with its classified `MendError`.
    public var errors: [GraphQLError]
    /// Each error classified through the catalog (same order as ``errors``).
    public var classifiedErrors: [MendError]
    /// `extensions`, if the server sent them.
    public var extensions: [String: JSONValue]?
    /// The paths (`me.friends[1]`) where an error left a null: the nearest nullable parent of a failed field.
    public var nulledPaths: [String]
    /// Why `data` did not decode although the server sent some (for example a null where `Value` has no optional).
    public var decodingFailure: String?
    /// How many times the operation was sent.
    public var attempts: Int
    /// Where the response came from: the network, or the client's response store (``GraphQLClient/CachePolicy``).
    public var source: APIResponse.Source = .network
    /// Why the response is stale and how old, when a stored response stood in for a transient failure
    /// (``GraphQLOperation/maxStale``).
    public var staleness: Staleness? = nil

    /// Whether the server reported errors.
    public var hasErrors: Bool { !errors.isEmpty }

    /// The data, or an error that carries the GraphQL errors and the partial data.
    public func dataOrThrow() throws(MendError) -> Value {
        if let data, errors.isEmpty { return data }
        throw GraphQLResponseBody.responseError(
            errors: errors, classified: classifiedErrors, rawData: rawData, decodingFailure: decodingFailure,
            attempts: attempts, catalog: .graphQL)
    }
}

/// The GraphQL errors and the partial data of a response, as the underlying error of a thrown
/// `MendError.Code.GraphQL.responseHasErrors`.
public struct GraphQLErrors: Error, Sendable, CustomStringConvertible {
    /// The errors.
    public var errors: [GraphQLError]
    /// The partial data as the server sent it.
    public var partialData: JSONValue?

    /// One line per error, with its path.
    public var description: String {
        errors.map { error in (error.pathText.map { "\($0): " } ?? "") + Redactor.standard.redact(text: error.message) }
            .joined(separator: "; ")
    }
}

extension GraphQLResponseBody {
    /// The paths where errors left nulls: for each error path, the deepest prefix present in `data` whose value is
    /// null (null bubbling stops at the nearest nullable parent); `data` itself when it is null.
    public func nulledPaths() -> [String] {
        guard let data, data != .null else { return errors.isEmpty ? [] : ["data"] }
        var found: [String] = []
        for error in errors {
            guard let path = error.path, !path.isEmpty else { continue }
            var node: JSONValue? = data
            var prefix: [GraphQLError.PathSegment] = []
            for segment in path {
                guard let current = node, current != .null else { break }
                prefix.append(segment)
                switch segment {
                case .field(let name): node = current[name]
                case .index(let index): node = current.arrayValue.flatMap { index < $0.count ? $0[index] : nil }
                }
            }
            if node == .null, !prefix.isEmpty {
                let text = GraphQLError(message: "", path: prefix).pathText ?? ""
                if !found.contains(text) { found.append(text) }
            }
        }
        return found
    }

    /// The error that stands for a response with GraphQL errors: its category is the most actionable of its
    /// errors (recoverable, then transient, then other).
    static func responseError(
        errors: [GraphQLError], classified: [MendError], rawData: JSONValue?, decodingFailure: String?, attempts: Int,
        catalog: ErrorCatalog
    ) -> MendError {
        let hasData = rawData != nil && rawData != .null
        var error = MendError(
            code: .GraphQL.responseHasErrors,
            developerMessage: errors.isEmpty
                ? "The data did not decode: \(decodingFailure ?? "unknown reason")."
                : "The response carried \(errors.count) GraphQL error(s) and \(hasData ? "partial data" : "no data").",
            catalog: catalog)
        if let leading = mostActionable(classified) {
            error.override(ErrorCatalog.Override.mostActionable(leading.entry, hasPartialData: hasData))
            error.requestedPermissions = leading.requestedPermissions
            error.notBefore = leading.notBefore
        }
        error.additionalMessages = errors.map { (($0.pathText.map { "\($0): " }) ?? "") + $0.message }
        error.underlying = GraphQLErrors(errors: errors, partialData: rawData)
        error.attempts = attempts
        return error
    }

    static func mostActionable(_ errors: [MendError]) -> MendError? {
        func rank(_ category: MendError.Category) -> Int {
            switch category {
            case .recoverable: 0
            case .transient: 1
            case .other: 2
            }
        }
        return errors.min { rank($0.category) < rank($1.category) }
    }
}
